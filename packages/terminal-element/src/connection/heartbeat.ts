/**
 * Heartbeat: owns the rule that decides a socket is dead. Every interval without a frame counts as one
 * missed beat and sends a ping; the third interval with no frame at all means the socket is half-open
 * (a network that dropped it without a close) and `dead` is called once. Any frame resets the count.
 */
import type { TimerHost } from './timers.ts';

/** stopped: no socket open (or heartbeats off). beating: an interval is running; `missed` intervals had no frame. */
export type HeartbeatState = { kind: 'stopped' } | { kind: 'beating'; missed: number };

export interface HeartbeatEvents {
  /** Send a ping; `beat` counts the intervals without a frame (1 or 2). */
  ping(beat: number): void;
  /** Two intervals passed without a frame: treat the socket as lost. */
  dead(): void;
}

/** Intervals without a frame after which the socket counts as dead. */
const MISSED_BEATS_LIMIT = 2;

export class Heartbeat {
  private readonly timers: TimerHost;
  private readonly intervalMs: number;
  private readonly events: HeartbeatEvents;
  private current: HeartbeatState = { kind: 'stopped' };
  private timer: unknown = null;

  /** `intervalMs` 0 (or less) turns heartbeats off: `start` then does nothing. */
  constructor(timers: TimerHost, intervalMs: number, events: HeartbeatEvents) {
    this.timers = timers;
    this.intervalMs = intervalMs;
    this.events = events;
  }

  get state(): HeartbeatState {
    return this.current;
  }

  /** The socket opened: start counting. */
  start(): void {
    this.stop();
    if (this.intervalMs <= 0) return;
    this.current = { kind: 'beating', missed: 0 };
    this.schedule();
  }

  /** A frame arrived: the socket is alive. */
  heard(): void {
    if (this.current.kind === 'beating') this.current = { kind: 'beating', missed: 0 };
  }

  stop(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.current = { kind: 'stopped' };
  }

  private schedule(): void {
    this.timer = this.timers.setTimeout(() => this.beat(), this.intervalMs);
  }

  private beat(): void {
    this.timer = null;
    const state = this.current;
    if (state.kind !== 'beating') return;
    if (state.missed >= MISSED_BEATS_LIMIT) {
      this.current = { kind: 'stopped' };
      this.events.dead();
      return;
    }
    const missed = state.missed + 1;
    this.current = { kind: 'beating', missed };
    this.events.ping(missed);
    // ping() may have stopped us (a send that closed the socket): then no further beat.
    if (this.current.kind === 'beating') this.schedule();
  }
}
