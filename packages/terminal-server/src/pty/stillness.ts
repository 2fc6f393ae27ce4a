/**
 * Whether a process group has stayed asleep, and whether the rest of a reader's group is working.
 *
 * The kernel counts every time it switches a thread out (voluntary and involuntary switches in
 * /proc/<pid>/task/<tid>/status), so a thread asleep at two looks with the same count never ran in
 * between. A group whose every thread did so wrote nothing to the terminal in between: output read
 * meanwhile came from another process (a background job of the shell).
 *
 * A thread asleep reading the terminal says little when its siblings compute: a REPL compiling the line
 * it just read in another thread (jshell), a program watching for a key while it works. The kernel keeps
 * each thread's time on a CPU (/proc/<pid>/task/<tid>/schedstat, nanoseconds); its growth between two
 * looks says whether they worked in between, a state of R or D whether one works now.
 */
import { procText, statFields, threadIds } from './procfs.ts';

/** A thread that can print nothing now: asleep on a wait, or stopped by a signal or a tracer. */
const STILL_STATES = new Set(['S', 'T', 't']);

/**
 * Every thread of `members` with its switch count, as one string, when all of them are still; undefined
 * when one runs (or is in an uninterruptible wait, which I/O ends at any moment) or could not be read.
 */
export async function groupStillness(members: ReadonlyArray<{ pid: number }>): Promise<string | undefined> {
  const parts: string[] = [];
  for (const { pid } of [...members].sort((a, b) => a.pid - b.pid)) {
    const tids = await threadIds(pid);
    if (!tids) return undefined;
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

/** What the other threads of a reader's process group are doing: see `ForegroundInfo.inputSiblings`. */
export interface SiblingActivity {
  /** One of them is running or runnable, or in an uninterruptible wait (I/O) at this look. */
  running: boolean;
  /** Their time on a CPU so far, summed, in nanoseconds (schedstat's first field). */
  cpuNs: number;
}

/** A look reads two small files per sibling thread, synchronously (procfs.ts): a group with more threads
 *  than this gives no sample rather than hold the event loop (a JVM has 20 to 60). */
const SIBLING_THREADS_MAX = 256;

/**
 * The threads of `members` other than the reader `except` (its thread `tid` of process `pid`): whether one
 * runs now, and their CPU time so far. Undefined when there is no other thread (a single-threaded program
 * has no sibling to be busy), none could be read, or there are too many to read at every look.
 */
export async function siblingActivity(
  members: ReadonlyArray<{ pid: number }>,
  except: { pid: number; tid: string },
): Promise<SiblingActivity | undefined> {
  let running = false;
  let cpuNs = 0;
  let seen = 0;
  for (const { pid } of members) {
    for (const tid of (await threadIds(pid)) ?? []) {
      if (pid === except.pid && tid === except.tid) continue;
      if (seen >= SIBLING_THREADS_MAX) return undefined;
      const thread = await threadCpu(pid, tid);
      if (!thread) continue;
      seen += 1;
      running ||= thread.running;
      cpuNs += thread.cpuNs;
    }
  }
  return seen > 0 ? { running, cpuNs } : undefined;
}

/** /proc's user and system times count in USER_HZ ticks, 100 a second on every Linux ABI. */
const NS_PER_TICK = 10_000_000;

/** Whether a thread runs (or waits on I/O) now, and its CPU time so far; undefined once it is gone. */
async function threadCpu(pid: number, tid: string): Promise<{ running: boolean; cpuNs: number } | undefined> {
  const stat = await procText(`/proc/${pid}/task/${tid}/stat`);
  if (stat === undefined) return undefined;
  const fields = statFields(stat);
  const running = fields[0] === 'R' || fields[0] === 'D';
  const schedstat = await procText(`/proc/${pid}/task/${tid}/schedstat`);
  // A kernel without scheduler statistics: the coarser user + system time (fields 14 and 15 of stat).
  const cpuNs = schedstat === undefined ? (Number(fields[11]) + Number(fields[12])) * NS_PER_TICK : Number(schedstat.split(' ')[0]);
  return Number.isFinite(cpuNs) ? { running, cpuNs } : undefined;
}

/** How many times the kernel has switched thread `tid` of `pid` out (voluntary + involuntary), or undefined. */
export async function contextSwitches(pid: number, tid: string): Promise<number | undefined> {
  return (await threadStatus(pid, tid))?.switches;
}

/** A thread's scheduler state letter and how many times the kernel has switched it out, or undefined. */
async function threadStatus(pid: number, tid: string): Promise<{ state: string; switches: number } | undefined> {
  const text = await procText(`/proc/${pid}/task/${tid}/status`);
  if (text === undefined) return undefined;
  const state = /^State:\s*(\S)/m.exec(text)?.[1];
  const voluntary = /^voluntary_ctxt_switches:\s*(\d+)/m.exec(text)?.[1];
  const involuntary = /^nonvoluntary_ctxt_switches:\s*(\d+)/m.exec(text)?.[1];
  if (state === undefined || voluntary === undefined || involuntary === undefined) return undefined;
  return { state, switches: Number(voluntary) + Number(involuntary) };
}
