/**
 * One notice for a burst of a person's interactions instead of one per command.
 *
 * Every command a person types at the idle prompt settles on its own (the prompt comes back); telling the
 * Agent each time would start a turn per command. Interactions that began at the idle prompt are gathered
 * until the terminal has been quiet (no human input lease) for `quietMs`, then handed over together. A
 * takeover of the model's running send is an answer the Agent waits for: it goes at once, with anything
 * gathered before it. Times come from an injected clock, so tests move them by hand.
 */
import { type Clock, systemClock } from '../time.ts';
import type { HumanSettled } from './human-session.ts';

export interface SettleBatcherOptions {
  /** Quiet time after the last idle interaction before its batch is delivered; 0 delivers each at once. */
  quietMs: number;
  /** Receives each batch, oldest interaction first (never empty). */
  deliver: (batch: HumanSettled[]) => void;
  clock?: Clock;
}

export class HumanSettleBatcher {
  private readonly options: SettleBatcherOptions;
  private readonly clock: Clock;
  private pending: HumanSettled[] = [];
  private timer: unknown;
  private humanActive = false;
  private disposed = false;

  constructor(options: SettleBatcherOptions) {
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  /** Whether a human input lease holds the terminal now (the quiet period runs only while none does). */
  setHumanActive(active: boolean): void {
    if (this.disposed || active === this.humanActive) return;
    this.humanActive = active;
    if (active) this.stopTimer();
    else this.startTimer();
  }

  /** A human interaction is over. */
  settled(event: HumanSettled): void {
    if (this.disposed) return;
    this.pending.push(event);
    if (event.origin === 'takeover' || this.options.quietMs <= 0) {
      this.flush();
      return;
    }
    this.stopTimer();
    this.startTimer();
  }

  /** Deliver what is gathered now (nothing happens when nothing is). */
  flush(): void {
    this.stopTimer();
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.options.deliver(batch);
  }

  /** Drop what is gathered (the terminal is gone: there is nothing left to read). */
  dispose(): void {
    this.disposed = true;
    this.stopTimer();
    this.pending = [];
  }

  private startTimer(): void {
    if (this.timer !== undefined || this.humanActive || this.pending.length === 0) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.options.quietMs);
  }

  private stopTimer(): void {
    if (this.timer === undefined) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
