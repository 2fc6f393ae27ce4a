/**
 * Retry backoff: owns how long the view waits before attaching again after a lost connection. The delay
 * doubles with each failure in a row, from `initialMs` up to `maxMs`; a snapshot (a working attach) or a
 * person's Reconnect starts the count over. Only one retry waits at a time.
 */
import type { TimerHost } from './timers.ts';

export interface RetryPolicy {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { initialMs: 250, maxMs: 8000 };

/** idle: no retry waits. waiting: `fire` runs after `delayMs`. */
export type RetryState = { kind: 'idle' } | { kind: 'waiting'; delayMs: number };

export class RetrySchedule {
  private readonly timers: TimerHost;
  private readonly policy: RetryPolicy;
  private current: RetryState = { kind: 'idle' };
  private timer: unknown = null;
  private failures = 0;

  constructor(timers: TimerHost, policy: RetryPolicy) {
    this.timers = timers;
    this.policy = policy;
  }

  get state(): RetryState {
    return this.current;
  }

  /** Failed attempts in a row since the last success (or reset). */
  get failuresInRow(): number {
    return this.failures;
  }

  /** The delay the next `schedule` would wait. */
  nextDelay(): number {
    return Math.min(this.policy.maxMs, this.policy.initialMs * 2 ** this.failures);
  }

  /** Count a failure and run `fire` after the backoff; replaces a retry already waiting. Returns the delay. */
  schedule(fire: () => void): number {
    const delayMs = this.nextDelay();
    this.failures += 1;
    this.cancel();
    this.current = { kind: 'waiting', delayMs };
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      this.current = { kind: 'idle' };
      fire();
    }, delayMs);
    return delayMs;
  }

  cancel(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.current = { kind: 'idle' };
  }

  /** An attach worked, or a person asked to try now: the next failure waits the initial delay again. */
  reset(): void {
    this.failures = 0;
  }
}
