/**
 * Discards input the terminal holds for its program and the program has not read: what a person's Ctrl-C
 * discards, done before the interrupt character is typed so that the character is heard at all.
 *
 * The line discipline acts on an interrupt character when it receives it, and it receives no more while its
 * input buffer is full (4 KiB; in canonical mode, once complete lines fill it). A program that stopped
 * reading with that much typed ahead (a paste into `sleep`, a cbreak program busy elsewhere) leaves the
 * typed Ctrl-C queued behind the rest, and the interrupt never comes. Node cannot call tcflush, so the
 * input is read away through the terminal's slave side, opened without becoming anyone's controlling
 * terminal: the same bytes a Ctrl-C would have discarded. A line still being typed (canonical mode, no
 * newline yet) cannot be read; it never blocks the character, and the Ctrl-C discards it as always.
 */
import { closeSync, constants, openSync, readSync } from 'node:fs';

/** The kernel moves what waits behind a full buffer on when the buffer has room, soon but not at once. */
const SETTLE_MS = 2;
/** Rounds that read nothing after such a pause before the input counts as gone (once some was read). */
const QUIET_ROUNDS = 2;
/** Bound on the work: the kernel holds some tens of KiB for a program that is not reading; more than this
 *  means something keeps writing, and the character goes in anyway. */
const MAX_BYTES = 1 << 20;
const MAX_MS = 200;

/** Reads and drops the unread input of the terminal at `ptsPath`; resolves with the bytes dropped. */
export async function discardUnreadInput(ptsPath: string): Promise<number> {
  let fd: number;
  try {
    fd = openSync(ptsPath, constants.O_RDONLY | constants.O_NOCTTY | constants.O_NONBLOCK);
  } catch {
    return 0; // gone, or not ours to open: the interrupt goes as it would have
  }
  try {
    const chunk = Buffer.allocUnsafe(16 * 1024);
    const deadline = performance.now() + MAX_MS;
    let dropped = 0;
    for (let quiet = 0; quiet < QUIET_ROUNDS && dropped < MAX_BYTES && performance.now() < deadline;) {
      const read = readAvailable(fd, chunk);
      // Nothing readable at the first look: the buffer is not full (a full one holds a complete line, or
      // in cbreak mode any byte), so the character will be heard; no need to wait for more.
      if (read === undefined || (read === 0 && dropped === 0)) break;
      dropped += read;
      quiet = read === 0 ? quiet + 1 : 0;
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    }
    return dropped;
  } finally {
    closeSync(fd);
  }
}

/** What could be read now (0 when nothing could), or undefined once the terminal cannot be read (EIO). */
function readAvailable(fd: number, chunk: Buffer): number | undefined {
  let total = 0;
  for (;;) {
    let read: number;
    try {
      read = readSync(fd, chunk, 0, chunk.length, null);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EINTR') return total;
      return total > 0 ? total : undefined;
    }
    // An end-of-file character typed ahead reads as 0 once (a hung-up terminal reads 0 every time, and
    // the rounds above end that).
    if (read === 0) return total;
    total += read;
    if (total >= MAX_BYTES) return total;
  }
}
