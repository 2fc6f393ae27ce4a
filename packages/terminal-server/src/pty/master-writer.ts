/**
 * Writes to a PTY's master side, in order, at once when the terminal takes them.
 *
 * node-pty hands every write to libuv's thread pool (`fs.write`), so a keystroke or a command line reaches
 * the program only after a worker thread has been woken and scheduled: on a 2-core machine that is tens of
 * microseconds on every write, ahead of the program's own work. The master is non-blocking, so the same
 * write made here returns at once: whole, in part, or EAGAIN while the terminal's input buffer is full (a
 * program not reading). What it did not take waits in a queue, in order, and later writes queue behind it.
 */
import { writeSync } from 'node:fs';

/** The master's descriptor and whether its owner has closed it (node-pty closes it when its stream ends). */
export interface MasterDescriptor {
  readonly fd: number;
  /** True once the descriptor is closed or closing: its number may belong to another file then. */
  closed(): boolean;
}

/** A full input buffer drains only as the program reads; nothing signals that here, so look again soon. */
const RETRY_MS = 2;

export class MasterWriter {
  private readonly master: MasterDescriptor;
  private readonly queue: Buffer[] = [];
  private retry: NodeJS.Timeout | undefined;

  constructor(master: MasterDescriptor) {
    this.master = master;
  }

  /** Write `data` after everything written before it; returns at once. */
  write(data: string): void {
    const bytes = Buffer.from(data, 'utf8');
    if (bytes.length === 0) return;
    this.queue.push(bytes);
    if (this.queue.length === 1) this.drain();
  }

  /** Bytes given and not yet taken by the terminal. */
  get pendingBytes(): number {
    return this.queue.reduce((sum, bytes) => sum + bytes.length, 0);
  }

  /** Drop what the terminal has not taken yet (an interrupt discards it, or the terminal ended); later
   *  writes go on as usual. */
  discard(): void {
    this.queue.length = 0;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
  }

  private drain(): void {
    this.retry = undefined;
    while (this.queue.length > 0) {
      if (this.master.closed()) return this.discard();
      const head = this.queue[0]!;
      const taken = this.writeSome(head);
      if (taken === undefined) return this.discard();
      if (taken < head.length) {
        // The rest when the program has read some of its input.
        this.queue[0] = head.subarray(taken);
        this.retry = setTimeout(() => this.drain(), RETRY_MS);
        return;
      }
      this.queue.shift();
    }
  }

  /** Bytes the terminal took (0 while its buffer is full), or undefined when it cannot take any more. */
  private writeSome(bytes: Buffer): number | undefined {
    try {
      return writeSync(this.master.fd, bytes);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' || code === 'EINTR') return 0;
      // EIO: the terminal's last reader closed it (the shell ended); the exit report follows.
      return undefined;
    }
  }
}
