/**
 * Input waits found while output never goes quiet (a background job printing every few milliseconds, or
 * flat out). Quiet output is how the watch otherwise knows the program in front has finished drawing its
 * question; here the kernel says it instead: every thread of the foreground group asleep at two looks with
 * unchanged context-switch counts (pty/stillness.ts) printed nothing in between, so the output came from
 * elsewhere. Before the second look, what the group wrote before the first has been read and parsed.
 *
 * One owner: the completion watch, which decides when to ask (the operation takes input waits, no prompt
 * mark pending, the last write had time to arrive) and what a look means (its evidence rules).
 */
import type { ForegroundInfo, PtyHandle } from '../pty/contract.ts';
import { INPUT_DELIVERY_MS, type Verdict, sameVerdict } from './evidence.ts';

/** Output the foreground wrote before a look can still be on its way to us: in the kernel's buffers
 *  between the two sides of the terminal (about 20 KiB on the kernels here, 64 KiB on older ones), in a
 *  read libuv has made (64 KiB) and in the stream's buffer. Once this many characters more were read, all
 *  of it was; a slower printer gets there by time instead (see IN_FLIGHT_SETTLE_MS). */
const IN_FLIGHT_BOUND_CHARS = 256 * 1024;
/** Or once this long passed with our reading not paused: output crosses the terminal through the same
 *  kernel worker that delivers input, whose delay on a loaded machine INPUT_DELIVERY_MS bounds. */
const IN_FLIGHT_SETTLE_MS = INPUT_DELIVERY_MS;
/** First looks come at most this often (each reads every thread of the group). */
const STILL_LOOK_MS = 50;

export type InputVerdict = Verdict & { kind: 'input' };

/** What the finder needs of its generation. */
export interface ThroughOutputHost {
  readonly handle: Pick<PtyHandle, 'inspectForeground'>;
  /** Characters of output read so far. */
  charsRead(): number;
  /** Reading the terminal waits for the screen to parse what was read (output is held in the kernel). */
  readingPaused(): boolean;
  /** Run `task` once everything read so far is parsed. */
  atBoundary<T>(task: () => T): Promise<T>;
}

/** What the owner says of one look: the input wait it shows by its evidence rules, or undefined. */
export type JudgeLook = (info: ForegroundInfo | undefined) => InputVerdict | undefined;

interface Candidate {
  dispatch: number;
  stillness: string;
  /** charsRead() and the time at the first look. */
  chars: number;
  at: number;
  verdict: InputVerdict;
}

export class WaitThroughOutput {
  private readonly host: ThroughOutputHost;
  private readonly judgeLook: JudgeLook;
  private candidate: Candidate | undefined;
  /** The sleep of the last wait found: the same sleep is not reported twice. */
  private reported: { dispatch: number; stillness: string } | undefined;
  private lastLook = 0;

  constructor(host: ThroughOutputHost, judgeLook: JudgeLook) {
    this.host = host;
    this.judgeLook = judgeLook;
  }

  /** Input went in: a sleep seen before it says nothing of the program now. */
  forget(): void {
    this.candidate = undefined;
  }

  /**
   * Take the next step for `dispatch`: a first look, or the confirming one once what was in flight was read.
   * Returns the confirmed wait; `current` tells whether the dispatch is still the operation's.
   */
  async step(dispatch: number, current: () => boolean): Promise<InputVerdict | undefined> {
    const now = performance.now();
    const candidate = this.candidate?.dispatch === dispatch ? this.candidate : undefined;
    if (candidate) return this.confirm(candidate, now, current);
    if (now - this.lastLook < STILL_LOOK_MS) return undefined;
    this.lastLook = now;
    const chars = this.host.charsRead();
    const info = await this.inspect('ahead');
    const verdict = this.judgeLook(info);
    const stillness = info?.stillness;
    if (!verdict || stillness === undefined || !current()) return undefined;
    if (this.reported?.dispatch === dispatch && this.reported.stillness === stillness) return undefined;
    this.candidate = { dispatch, stillness, chars, at: now, verdict };
    return undefined;
  }

  private async confirm(candidate: Candidate, now: number, current: () => boolean): Promise<InputVerdict | undefined> {
    const settled = now - candidate.at >= IN_FLIGHT_SETTLE_MS && !this.host.readingPaused();
    if (!settled && this.host.charsRead() - candidate.chars < IN_FLIGHT_BOUND_CHARS) return undefined;
    this.candidate = undefined;
    await this.host.atBoundary(() => undefined);
    const again = await this.inspect(true);
    const confirmed = this.judgeLook(again);
    if (!confirmed || again?.stillness !== candidate.stillness || !sameVerdict(candidate.verdict, confirmed) || !current())
      return undefined;
    this.reported = { dispatch: candidate.dispatch, stillness: candidate.stillness };
    return confirmed;
  }

  private inspect(terminalFlags: true | 'ahead'): Promise<ForegroundInfo | undefined> {
    return this.host.handle.inspectForeground({ terminalFlags, stillness: true }).catch(() => undefined);
  }
}
