/** Timers that move only when a test says so. */
import type { TimerHost } from '../../src/connection.ts';

interface Pending {
  id: number;
  at: number;
  callback: () => void;
}

export class ManualTimers implements TimerHost {
  now = 0;
  private nextId = 1;
  private pending: Pending[] = [];

  setTimeout(callback: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.push({ id, at: this.now + ms, callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((p) => p.id !== handle);
  }

  /** Delays of the timers now waiting, from now. */
  get waiting(): number[] {
    return this.pending.map((p) => p.at - this.now).sort((a, b) => a - b);
  }

  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      const due = this.pending.filter((p) => p.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.pending = this.pending.filter((p) => p !== due);
      this.now = due.at;
      due.callback();
    }
    this.now = until;
  }
}

/** Let queued microtasks and promise callbacks run. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
