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

/**
 * clear: nothing typed ahead is owed. owed: bash has not read all of it. read: it has, but possibly after
 * the prompt a look is judging, and what it printed since may not have been read from the terminal yet;
 * until a look confirms a prompt with no output in flight, every prompt needs that confirmation.
 */
type LedgerState = { kind: 'clear' } | ({ kind: 'owed' } & Shortfall) | { kind: 'read' };

export type TypedAheadVerdict = LedgerState['kind'];

export class TypedAheadLedger {
  private readonly count: () => number | undefined;
  private state: LedgerState = { kind: 'clear' };

  /** `count`: the bytes the shell itself has read so far (undefined: unknown). */
  constructor(count: () => number | undefined) {
    this.count = count;
  }

  /** Called just before `data` goes to the terminal. */
  writing(data: string, now: number): void {
    if (LINE_DISCIPLINE_CONTROL.test(data)) {
      this.state = { kind: 'clear' };
      return;
    }
    const bytes = utf8Length(data);
    if (this.state.kind === 'owed') {
      this.state.bytes += bytes;
      return;
    }
    const before = LINES_AHEAD.test(data) ? this.count() : undefined;
    this.state = before === undefined ? { kind: 'clear' } : { kind: 'owed', before, bytes, seen: before, movedAt: now };
  }

  /** Where the lines typed ahead stand now. A shortfall that stood still past the grace is let go. */
  look(now: number): TypedAheadVerdict {
    const state = this.state;
    if (state.kind !== 'owed') return state.kind;
    const read = this.count();
    if (read === undefined) this.state = { kind: 'clear' };
    else if (read - state.before >= state.bytes) this.state = { kind: 'read' };
    else if (read !== state.seen) {
      state.seen = read;
      state.movedAt = now;
    } else if (now - state.movedAt >= TYPED_AHEAD_GRACE_MS) this.state = { kind: 'clear' };
    return this.state.kind;
  }

  /** A prompt was confirmed with no output in flight after everything typed ahead was read. */
  confirmed(): void {
    if (this.state.kind === 'read') this.state = { kind: 'clear' };
  }
}
