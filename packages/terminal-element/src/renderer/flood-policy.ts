/**
 * Flood pacing: owns when the flood canvas stays the screen for plain output. In a flood the server sends
 * plain output between catch-ups whenever a little came in one cycle; giving the screen back to xterm's
 * rows for it rebuilds every row, and the next catch-up takes the canvas again. So while catch-ups come
 * within FLOOD_LINGER_MS of each other, output that soon after the last one stays on the canvas, and the
 * rows come back FLOOD_LINGER_MS after the last catch-up even if nothing else arrives. A single catch-up
 * (a reconnect's screen) is no flood: the next output brings the rows back at once.
 */
import type { TimerHost } from '../connection/timers.ts';

export const FLOOD_LINGER_MS = 500;

export interface Clock extends TimerHost {
  now(): number;
}

/**
 * quiet: no catch-up yet. single: the last catch-up (at `at`) came alone. flooding: it came within
 * FLOOD_LINGER_MS of the one before.
 */
export type FloodState = { kind: 'quiet' } | { kind: 'single'; at: number } | { kind: 'flooding'; at: number };

export class FloodPolicy {
  private readonly clock: Clock;
  private current: FloodState = { kind: 'quiet' };
  private quietTimer: unknown = null;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  get state(): FloodState {
    return this.current;
  }

  /** A catch-up is being written in place (on the canvas). */
  catchUp(): void {
    const now = this.clock.now();
    const last = this.current.kind === 'quiet' ? -Infinity : this.current.at;
    this.current = now - last < FLOOD_LINGER_MS ? { kind: 'flooding', at: now } : { kind: 'single', at: now };
  }

  /** Whether plain output arriving now stays on the canvas (which must be the screen already). */
  outputOnCanvas(canvasShowing: boolean): boolean {
    return canvasShowing && this.current.kind === 'flooding' && this.clock.now() - this.current.at < FLOOD_LINGER_MS;
  }

  /** Run `leave` once FLOOD_LINGER_MS have passed since the last catch-up (later catch-ups move it on). */
  leaveWhenQuiet(leave: () => void): void {
    if (this.quietTimer !== null) return;
    const check = (): void => {
      const at = this.current.kind === 'quiet' ? -Infinity : this.current.at;
      const left = at + FLOOD_LINGER_MS - this.clock.now();
      if (left > 0) {
        this.quietTimer = this.clock.setTimeout(check, left);
        return;
      }
      this.quietTimer = null;
      leave();
    };
    check();
  }

  /** The renderer went: no leave is due. */
  cancel(): void {
    if (this.quietTimer !== null) this.clock.clearTimeout(this.quietTimer);
    this.quietTimer = null;
  }
}
