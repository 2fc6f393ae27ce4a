/**
 * Lines typed ahead of the shell, and whether it has read them yet.
 *
 * A write with more after its first line break (a multi-line send, a paste) reaches bash through a kernel
 * worker that hands it to the terminal's line discipline. On a loaded machine that hand-over has been seen
 * to come in parts: bash reads and runs the first lines, draws a fresh prompt and sleeps in its line
 * editor, with the rest of the write neither read nor readable yet (FIONREAD 0), for milliseconds and
 * under heavy load for over a second. bash asleep at a fresh prompt then says nothing of the lines to
 * come. What does is a count: the bytes bash itself has read since the write (its own thread's count; the
 * process's would add what every reaped command read, kilobytes of libraries for a `sleep`). Until it
 * covers the write, a prompt is not the send's last one.
 *
 * The count can fall short for good: a command took some of the lines (`python3` and the lines it ran),
 * the line discipline dropped a control character it acts on, a password prompt flushed input typed
 * ahead. So a shortfall that stands still (no byte read by bash) for TYPED_AHEAD_GRACE_MS no longer holds
 * a prompt back.
 */
import { utf8Length } from '../utf8.ts';

/** How long a shortfall that no longer moves holds a prompt back: input the kernel or a program threw
 *  away never arrives, while a hand-over the worker runs late usually comes well within this. */
export const TYPED_AHEAD_GRACE_MS = 250;

/** C0 controls other than tab, line feed, carriage return and escape, and DEL: the line discipline may act
 *  on them (interrupt, erase, end of file, flow control) and drop bytes, so no count can be trusted. */
const LINE_DISCIPLINE_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]/;

/** A line break with more text after it. */
const LINES_AHEAD = /[\r\n][\s\S]/;

interface Shortfall {
  /** The shell's count just before the first write of the run. */
  before: number;
  /** Bytes written since then. */
  bytes: number;
  /** The count at the last look, and when it last moved. */
  seen: number;
  movedAt: number;
}

export class TypedAheadLedger {
  private readonly count: () => number | undefined;
  private pending: Shortfall | undefined;

  /** `count`: the bytes the shell itself has read so far (undefined: unknown). */
  constructor(count: () => number | undefined) {
    this.count = count;
  }

  /** Called just before `data` goes to the terminal. */
  writing(data: string, now: number): void {
    if (LINE_DISCIPLINE_CONTROL.test(data)) {
      this.pending = undefined;
      return;
    }
    const bytes = utf8Length(data);
    if (this.pending) {
      this.pending.bytes += bytes;
      return;
    }
    if (!LINES_AHEAD.test(data)) return;
    const before = this.count();
    if (before !== undefined) this.pending = { before, bytes, seen: before, movedAt: now };
  }

  /** Whether everything typed ahead has been read, or the shortfall has stood still past the grace. */
  taken(now: number): boolean {
    const pending = this.pending;
    if (!pending) return true;
    const read = this.count();
    if (read === undefined || read - pending.before >= pending.bytes) {
      this.pending = undefined;
      return true;
    }
    if (read !== pending.seen) {
      pending.seen = read;
      pending.movedAt = now;
    }
    if (now - pending.movedAt >= TYPED_AHEAD_GRACE_MS) {
      this.pending = undefined;
      return true;
    }
    return false;
  }
}
