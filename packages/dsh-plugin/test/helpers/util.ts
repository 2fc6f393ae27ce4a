/** Small test utilities: polling (test-support's), and process liveness from /proc (zombies count as gone). */
import { readFileSync, readdirSync } from 'node:fs';
import { waitFor } from '@shared-terminal/test-support/wait';

export { sleep, waitFor } from '@shared-terminal/test-support/wait';

export function pidAlive(pid: number): boolean {
  try {
    return !/\) [ZX] /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Every live descendant of `pid` (children first found through /proc/<pid>/task/<tid>/children). */
export function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift()!;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${current}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      let children: string;
      try {
        children = readFileSync(`/proc/${current}/task/${task}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of children.split(/\s+/).filter(Boolean).map(Number)) {
        if (pidAlive(child)) found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** Live processes whose whole command line (arguments joined by spaces) is `commandLine`. */
export function processesMatching(commandLine: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      if (cmdline === commandLine && pidAlive(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** A process as /proc shows it (pid, state, parent, group, command line), for a failure message. */
export function describeProcess(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return `${pid} ${state} ppid ${ppid} pgrp ${pgrp}: ${cmdline}`;
  } catch {
    return `${pid} gone`;
  }
}

/** Wait until none of `pids` is alive; on timeout, say which are and how (`context()` adds more). */
export async function waitForEnd(pids: number[], what: string, timeoutMs: number, context: () => string = () => ''): Promise<void> {
  try {
    await waitFor(() => pids.every((pid) => !pidAlive(pid)), what, timeoutMs);
  } catch (error) {
    const alive = pids.filter(pidAlive).map(describeProcess);
    throw new Error(`${(error as Error).message}; still alive: ${alive.join('; ')}${context()}`, { cause: error });
  }
}
