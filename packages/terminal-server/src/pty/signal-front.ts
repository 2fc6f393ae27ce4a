/**
 * Signalling the process group in front of a terminal, which may change under us.
 *
 * The terminal's foreground group is read and signalled in two steps, and a group can end in between:
 * under a loop of short programs (`while :; do cat f; done`) groups come and go many times a second.
 * There is also a window after a group's last process was reaped and before the shell takes the terminal
 * back (tcsetpgrp) in which the terminal still names the dead group; on a loaded machine the shell can be
 * off the CPU for tens of milliseconds right there. A kill in that window fails with ESRCH however often
 * it is retried at once, so a group that is gone is read again after a short, growing pause, until the
 * terminal names a live group or the time is up.
 */
import { ForegroundSignalError } from './contract.ts';

export interface SignalFrontParts {
  /** The terminal's foreground group now, or undefined when there is nothing to signal. */
  readGroup(): number | undefined | Promise<number | undefined>;
  /** Signal a whole group; throws an errno error (ESRCH when the group is gone). */
  killGroup(pgid: number, signal: NodeJS.Signals): void;
  /** Waits; injected so a test can run the retry schedule without real time. */
  pause(ms: number): Promise<void>;
  now(): number;
}

/** How long a group that keeps turning out gone is read again before the signal is given up. */
export const SIGNAL_FRONT_PATIENCE_MS = 1_000;
const FIRST_PAUSE_MS = 1;
const LONGEST_PAUSE_MS = 25;

export async function signalFront(parts: SignalFrontParts, signal: NodeJS.Signals, shellPid: number): Promise<number> {
  const deadline = parts.now() + SIGNAL_FRONT_PATIENCE_MS;
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS)) {
    const pgid = await parts.readGroup();
    if (pgid === undefined) throw new ForegroundSignalError('the terminal has no foreground process to signal');
    if (signal === 'SIGKILL' && pgid === shellPid) {
      throw new ForegroundSignalError('SIGKILL to the shell itself is refused; use shared_terminal_reset to replace the shell');
    }
    try {
      parts.killGroup(pgid, signal);
      return pgid;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
      if (parts.now() >= deadline) {
        throw new ForegroundSignalError(
          `the program in front (group ${pgid}) ended and the shell has not taken the terminal back for ${SIGNAL_FRONT_PATIENCE_MS} ms; read the terminal, then signal again if something still runs`,
        );
      }
    }
    await parts.pause(pause);
  }
}
