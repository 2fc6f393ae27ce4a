/**
 * Terminal flags read ahead of need, for one sleep of one reader thread.
 *
 * Reading the flags costs a run of `stty` (Node has no tcgetattr), a few ms, and a wait is reported only
 * after a second, confirming look. Started at the first look that finds a reader, the read
 * runs while the watch waits for that confirmation, and the confirming look takes its answer if the
 * reader slept the whole time: the kernel counts every time a thread goes to sleep (its context
 * switches), so an equal count at both looks, with the thread asleep at each, means it never ran in
 * between and could not have changed its terminal's flags. Any other count is a new sleep, read afresh.
 */
import type { TerminalModes } from './contract.ts';
import { readTerminalFlags } from './procfs.ts';

/** One sleep of one thread: its ids and how many times the kernel had switched it out when seen. */
export interface Sleep {
  pid: number;
  tid: string;
  switches: number;
}

/** A read older than this is not reused even for the same sleep: another process (a sibling thread,
 *  `stty -F` from elsewhere) may have changed the flags since. A confirming look comes 4–20 ms after
 *  the first, or a few hundred ms for waits that must be seen longer. */
const REUSE_MS = 500;

interface Pending {
  sleep: Sleep;
  startedAt: number;
  modes: Promise<TerminalModes | undefined>;
}

export class TerminalFlagsAhead {
  /** The last read started ahead, per terminal (the one we own, and any inside it that a relay shows). */
  private readonly pending = new Map<string, Pending>();
  private readonly inFlight = new Set<string>();

  /** Start reading `path`'s flags for `sleep`, unless that read already runs or another one for `path` does. */
  start(path: string, sleep: Sleep): void {
    if (this.matching(path, sleep) || this.inFlight.has(path)) return;
    // Terminals inside relays come and go: forget reads too old to be reused.
    const now = performance.now();
    for (const [key, old] of this.pending) if (now - old.startedAt > REUSE_MS) this.pending.delete(key);
    this.inFlight.add(path);
    const modes = readTerminalFlags(path).finally(() => this.inFlight.delete(path));
    this.pending.set(path, { sleep, startedAt: now, modes });
  }

  /** The flags of `path` during `sleep`: the read started ahead when it is the same sleep, else a new one. */
  read(path: string, sleep: Sleep | undefined): Promise<TerminalModes | undefined> {
    return (sleep && this.matching(path, sleep)?.modes) ?? readTerminalFlags(path);
  }

  private matching(path: string, sleep: Sleep): Pending | undefined {
    const seen = this.pending.get(path);
    if (seen === undefined || performance.now() - seen.startedAt > REUSE_MS) return undefined;
    const same = seen.sleep;
    return same.pid === sleep.pid && same.tid === sleep.tid && same.switches === sleep.switches ? seen : undefined;
  }
}
