/**
 * Whether a process group has stayed asleep: the kernel counts every time it switches a thread out
 * (voluntary and involuntary switches in /proc/<pid>/task/<tid>/status), so a thread asleep at two looks
 * with the same count never ran in between. A group whose every thread did so wrote nothing to the
 * terminal in between: output read meanwhile came from another process (a background job of the shell).
 */
import { procNow } from './procfs.ts';

/** A thread that can print nothing now: asleep on a wait, or stopped by a signal or a tracer. */
const STILL_STATES = new Set(['S', 'T', 't']);

/**
 * Every thread of `members` with its switch count, as one string, when all of them are still; undefined
 * when one runs (or is in an uninterruptible wait, which I/O ends at any moment) or could not be read.
 */
export async function groupStillness(members: ReadonlyArray<{ pid: number }>): Promise<string | undefined> {
  const parts: string[] = [];
  for (const { pid } of [...members].sort((a, b) => a.pid - b.pid)) {
    let tids: string[];
    try {
      tids = await procNow.readdir(`/proc/${pid}/task`);
    } catch {
      return undefined;
    }
    for (const tid of tids.sort()) {
      const thread = await threadStillness(pid, tid);
      if (thread === undefined) return undefined;
      parts.push(`${pid}/${tid}:${thread}`);
    }
  }
  return parts.length > 0 ? parts.join(',') : undefined;
}

/** The switch count of a still thread, or undefined. */
async function threadStillness(pid: number, tid: string): Promise<number | undefined> {
  const status = await threadStatus(pid, tid);
  return status && STILL_STATES.has(status.state) ? status.switches : undefined;
}

/** How many times the kernel has switched thread `tid` of `pid` out (voluntary + involuntary), or undefined. */
export async function contextSwitches(pid: number, tid: string): Promise<number | undefined> {
  return (await threadStatus(pid, tid))?.switches;
}

/** A thread's scheduler state letter and how many times the kernel has switched it out, or undefined. */
async function threadStatus(pid: number, tid: string): Promise<{ state: string; switches: number } | undefined> {
  let text: string;
  try {
    text = await procNow.readText(`/proc/${pid}/task/${tid}/status`);
  } catch {
    return undefined;
  }
  const state = /^State:\s*(\S)/m.exec(text)?.[1];
  const voluntary = /^voluntary_ctxt_switches:\s*(\d+)/m.exec(text)?.[1];
  const involuntary = /^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(text)?.[1];
  if (state === undefined || voluntary === undefined || involuntary === undefined) return undefined;
  return { state, switches: Number(voluntary) + Number(involuntary) };
}
