/**
 * Ending every process a terminal started. A tree walk from the shell misses a process that left both
 * the tree and the session: `setsid cmd &` at an interactive prompt forks, and once setsid's parent exits
 * its child belongs to init, in a session of its own. So each shell gets a mark in its environment, unique
 * to that PTY, which every process it starts inherits, and the end of a terminal also ends every process
 * that still carries the mark. A program that clears its environment (`env -i`, a daemon that rebuilds
 * it) still escapes; only a cgroup would catch that. Linux only: elsewhere the mark is set but not read.
 */
import { randomBytes } from 'node:crypto';
import { sleep } from '../time.ts';
import { processesWithEnvironment } from './procfs.ts';

/** The environment variable that carries the mark (visible to the user's programs; harmless). */
export const PROCESS_TREE_VARIABLE = 'SHARED_TERMINAL_TREE';

/** A new mark: 24 hex digits, so that no two terminals, nor anything else, share one. */
export function newProcessTreeMark(): string {
  return randomBytes(12).toString('hex');
}

/** The live processes that carry `mark` (never this process itself). */
export async function markedProcesses(mark: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  return (await processesWithEnvironment(PROCESS_TREE_VARIABLE, mark)).filter((pid) => pid !== process.pid);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function trySignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/**
 * Ask `pids` and the marked processes to end (HUP, CONT so that a stopped one can act, TERM), give them
 * `graceMs`, then kill what is left, marked processes found in the meantime included. The second look goes
 * by the mark alone: a shell reaped meanwhile may have handed its pid to a stranger.
 */
export async function endProcessTree(pids: Iterable<number>, mark: string, graceMs: number): Promise<void> {
  const targets = new Set<number>(pids);
  for (const pid of await markedProcesses(mark)) targets.add(pid);
  targets.delete(process.pid);
  // Nothing left to end (DSH's own terminate took the tree): no marked process can start another either.
  if (targets.size === 0) return;
  for (const pid of targets) {
    trySignal(pid, 'SIGHUP');
    trySignal(pid, 'SIGCONT');
    trySignal(pid, 'SIGTERM');
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && [...targets].some(processAlive)) await sleep(20);
  for (const pid of await markedProcesses(mark)) targets.add(pid);
  for (const pid of targets) if (processAlive(pid)) trySignal(pid, 'SIGKILL');
}
