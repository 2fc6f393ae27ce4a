/**
 * Reading Linux's /proc without spawning anything on the hot path: process status lines, the process
 * tree, environments, memory, and the terminal flags (through `stty`, only when a wait was found). The
 * rules that turn these facts into "who waits for input" live in linux-inspector.ts.
 *
 * Layout of /proc/<pid>/stat after the command name: state ppid pgrp session tty_nr tpgid (fields 3-8),
 * ..., starttime (field 22).
 */
import { execFile } from 'node:child_process';
import { promises as fs, readFileSync, readdirSync } from 'node:fs';
import type { ForegroundInfo, TerminalModes } from './contract.ts';
import { runStty } from './stty-runner.ts';

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  ttyNr: number;
  tpgid: number;
  /** Clock ticks after boot when the process started. */
  startTime: number;
  /** How many threads it has. */
  threads: number;
}

export async function readProcStat(pid: number): Promise<ProcStat | undefined> {
  let text: string;
  try {
    text = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return parseProcStat(pid, text);
}

/**
 * The same, read synchronously: for a signal to the foreground group, where the time between reading the
 * group and signalling it must be as short as possible (an asynchronous read is several thread-pool trips,
 * milliseconds on a loaded machine, and a loop of short programs replaces its group faster than that).
 * A read of /proc does not block on a disk.
 */
export function readProcStatSync(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return parseProcStat(pid, text);
}

/** A stat line read elsewhere (process-files.ts), parsed; undefined when there was none. */
export function procStatOf(pid: number, text: string | undefined): ProcStat | undefined {
  return text === undefined ? undefined : parseProcStat(pid, text);
}

/**
 * The fields of a /proc stat line after the command name, which may itself hold spaces and parentheses:
 * [0] is the state (field 3 of proc(5)), [1] the parent (field 4), and so on.
 */
export function statFields(text: string): string[] {
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

function parseProcStat(pid: number, text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < 0) return undefined;
  const rest = statFields(text);
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    session: Number(rest[3]),
    ttyNr: Number(rest[4]),
    tpgid: Number(rest[5]),
    startTime: Number(rest[19]),
    threads: Number(rest[17]),
  };
}

/** The pid of every process /proc lists now (none when /proc cannot be read). */
async function allPids(): Promise<number[]> {
  const entries = await fs.readdir('/proc').catch(() => [] as string[]);
  return entries.filter((e) => /^\d+$/.test(e)).map(Number);
}

/** The status line of every process /proc lists now. */
export async function allProcStats(): Promise<ProcStat[]> {
  const stats = await Promise.all((await allPids()).map((pid) => readProcStat(pid)));
  return stats.filter((s): s is ProcStat => s !== undefined);
}

/** Every process of `sessionId` (the shell's session), found by scanning /proc. */
export async function sessionProcesses(sessionId: number): Promise<ProcStat[]> {
  const stats = await Promise.all((await allPids()).map((pid) => readProcStat(pid)));
  return stats.filter((s): s is ProcStat => s !== undefined && s.session === sessionId);
}

/**
 * Every process whose environment, as it was when the process started, holds `name=value`. A process
 * that left the shell's session (setsid) and whose parent then exited has been handed to init: it is
 * neither a descendant nor in the session any more, but it still carries the environment it inherited.
 * Processes of other users cannot be read and are skipped (they cannot be ours).
 */
export async function processesWithEnvironment(name: string, value: string): Promise<number[]> {
  const entry = Buffer.from(`${name}=${value}\0`);
  const found = await Promise.all(
    (await allPids()).map(async (pid) => {
      const environ = await fs.readFile(`/proc/${pid}/environ`).catch(() => undefined);
      if (!environ) return undefined;
      for (let at = environ.indexOf(entry); at >= 0; at = environ.indexOf(entry, at + 1)) {
        if (at === 0 || environ[at - 1] === 0) return pid;
      }
      return undefined;
    }),
  );
  return found.filter((pid): pid is number => pid !== undefined);
}

/** Descendants of `rootPid` (children files when the kernel has them, else a /proc scan). */
export async function descendantPids(rootPid: number): Promise<number[]> {
  const found: number[] = [];
  const queue = [rootPid];
  let useScan = false;
  while (queue.length > 0 && !useScan) {
    const pid = queue.shift()!;
    for (const tid of (await threadIds(pid)) ?? []) {
      try {
        const children = (await procNow.readText(`/proc/${pid}/task/${tid}/children`)).trim();
        for (const child of children.split(/\s+/).filter(Boolean).map(Number)) {
          found.push(child);
          queue.push(child);
        }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') useScan = true;
      }
    }
  }
  if (!useScan) return found;
  // Fallback: build the tree from a full scan.
  const stats = (await Promise.all((await allPids()).map((pid) => readProcStat(pid)))).filter((s): s is ProcStat => s !== undefined);
  const byParent = new Map<number, number[]>();
  for (const s of stats) byParent.set(s.ppid, [...(byParent.get(s.ppid) ?? []), s.pid]);
  const result: number[] = [];
  const walk = [rootPid];
  while (walk.length > 0) {
    for (const child of byParent.get(walk.pop()!) ?? []) {
      result.push(child);
      walk.push(child);
    }
  }
  return result;
}

/**
 * One process's small /proc files, read at once behind the promise API, for the look at who reads the
 * terminal. That look is a chain of a dozen reads; asynchronous ones each wait for a thread-pool trip and
 * then for the event loop's turn, which other terminals' output being parsed can make tens of ms, so one
 * look took as long as its slowest turns. A read of /proc never waits for a disk. Scans of every process
 * stay asynchronous (they read hundreds of files).
 */
export const procNow = {
  async readText(path: string): Promise<string> {
    return readFileSync(path, 'utf8');
  },
  async readdir(path: string): Promise<string[]> {
    return readdirSync(path);
  },
};

/** A small /proc file's text, or undefined once its process or thread is gone. */
export async function procText(path: string): Promise<string | undefined> {
  try {
    return await procNow.readText(path);
  } catch {
    return undefined;
  }
}

/**
 * The bytes the main thread of a process has taken with read(2) and its kin so far, from any descriptor,
 * given its thread's own io file (`/proc/<pid>/task/<pid>/io`: unlike the process's, its `rchar` leaves
 * out what reaped children read). Undefined when it could not be read.
 */
export function charCountOf(text: string | undefined): number | undefined {
  const match = text === undefined ? null : /^rchar:\s*(\d+)/m.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The thread ids of `pid` (its /proc task folder), or undefined once it is gone. */
export async function threadIds(pid: number): Promise<string[] | undefined> {
  try {
    return await procNow.readdir(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
}

/** Terminal flags through `stty` (Node has no tcgetattr): a process run, so only read when needed. */
export async function readTerminalFlags(ptsPath: string): Promise<TerminalModes | undefined> {
  const output = await runStty(ptsPath);
  return output === undefined ? undefined : parseStty(output);
}

export function parseStty(text: string): TerminalModes {
  const words = new Set(text.split(/[\s;]+/));
  const modes: TerminalModes = { echo: words.has('echo'), icanon: words.has('icanon'), isig: words.has('isig') };
  const intr = controlCharacter(/(?:^|[\s;])intr = ([^;\s]+);/.exec(text)?.[1]);
  if (intr !== undefined) modes.intr = intr;
  return modes;
}

/** stty's spelling of a control character (`^C`, `^?`, `M-x`, a plain character) as the byte itself. */
function controlCharacter(spelled: string | undefined): string | undefined {
  if (spelled === undefined || spelled === '<undef>') return undefined;
  if (spelled === '^?') return '\x7f';
  if (spelled.length === 2 && spelled[0] === '^') return String.fromCharCode(spelled.charCodeAt(1) & 0x1f);
  if (spelled.length === 1) return spelled;
  return undefined; // meta characters: not worth writing
}

/** macOS: the foreground group from `ps`; input waits cannot be seen there. */
export function inspectDarwinForeground(shellPid: number): Promise<ForegroundInfo | undefined> {
  return new Promise((resolve) => {
    execFile('ps', ['-o', 'tpgid=', '-p', String(shellPid)], { timeout: 2000 }, (error, stdout) => {
      const pgid = Number(stdout.trim());
      if (error || !(pgid > 0)) return resolve(undefined);
      resolve({ processGroupId: pgid, inputWaiting: false });
    });
  });
}
