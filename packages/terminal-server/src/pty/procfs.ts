/**
 * Linux kernel facts about a PTY, read from /proc without spawning anything on the hot path:
 * the terminal's foreground process group, whether one of its processes is blocked reading the terminal
 * (a read() on any fd that is the terminal, or select/poll/epoll with the terminal in its set), and the
 * terminal flags (through `stty`, only when a wait was found).
 *
 * Layout of /proc/<pid>/stat after the command name: state ppid pgrp session tty_nr tpgid ...
 * /proc/<pid>/task/<tid>/syscall: "<nr> <arg0> ... <arg5> <sp> <pc>" in hex, or "running".
 */
import { execFile } from 'node:child_process';
import { promises as fs, readFileSync } from 'node:fs';
import type { ForegroundInfo, InputCall } from './contract.ts';

interface SyscallTable {
  read: number[];
  select: number[]; // (nfds, readfds*, ...)
  poll: number[]; // (pollfd*, nfds, ...)
  epoll: number[]; // (epfd, ...)
}

const SYSCALLS: Record<string, SyscallTable> = {
  x64: { read: [0, 17, 19], select: [23, 270], poll: [7, 271], epoll: [232, 281, 441] },
  arm64: { read: [63, 65, 67], select: [72], poll: [73], epoll: [22, 441] },
};

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  ttyNr: number;
  tpgid: number;
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

function parseProcStat(pid: number, text: string): ProcStat | undefined {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < 0) return undefined;
  const rest = text.slice(close + 2).split(' ');
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: rest[0] ?? '?',
    ppid: Number(rest[1]),
    pgrp: Number(rest[2]),
    session: Number(rest[3]),
    ttyNr: Number(rest[4]),
    tpgid: Number(rest[5]),
  };
}

/** The pid of every process /proc lists now (none when /proc cannot be read). */
async function allPids(): Promise<number[]> {
  const entries = await fs.readdir('/proc').catch(() => [] as string[]);
  return entries.filter((e) => /^\d+$/.test(e)).map(Number);
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
    let tids: string[];
    try {
      tids = await fs.readdir(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const children = (await fs.readFile(`/proc/${pid}/task/${tid}/children`, 'utf8')).trim();
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
  const stats = (await Promise.all((await allPids()).map((pid) => readProcStat(pid)))).filter(
    (s): s is ProcStat => s !== undefined,
  );
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

function archTable(): SyscallTable | undefined {
  return SYSCALLS[process.arch];
}

async function fdIsTerminal(pid: number, fd: number, ptsPath: string): Promise<boolean> {
  try {
    const target = await fs.readlink(`/proc/${pid}/fd/${fd}`);
    return target === ptsPath || target === '/dev/tty';
  } catch {
    return false;
  }
}

async function readMemory(pid: number, address: number, length: number): Promise<Buffer | undefined> {
  if (length <= 0 || length > 65536 || !Number.isSafeInteger(address) || address <= 0) return undefined;
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(`/proc/${pid}/mem`, 'r');
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, address);
    return bytesRead === length ? buffer : undefined;
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The fds of `pid` that are this terminal (0..limit). */
async function terminalFds(pid: number, ptsPath: string): Promise<number[]> {
  let fds: string[];
  try {
    fds = await fs.readdir(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const result: number[] = [];
  await Promise.all(
    fds.map(async (fd) => {
      if (await fdIsTerminal(pid, Number(fd), ptsPath)) result.push(Number(fd));
    }),
  );
  return result;
}

/** Whether thread `tid` of `pid` is blocked waiting to read the terminal, and how. */
async function threadInputCall(pid: number, tid: string, ptsPath: string, table: SyscallTable): Promise<InputCall | undefined> {
  let text: string;
  try {
    // A thread that input has already woken is runnable ('R') while it still sits in the syscall: only a
    // sleeping thread ('S') is really waiting.
    const stat = await fs.readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'S') return undefined;
    text = (await fs.readFile(`/proc/${pid}/task/${tid}/syscall`, 'utf8')).trim();
  } catch {
    return undefined;
  }
  if (text === 'running') return undefined;
  const fields = text.split(' ');
  const nr = Number(fields[0]);
  const arg = (i: number): number => Number.parseInt(fields[i + 1] ?? '0', 16);
  if (table.read.includes(nr)) {
    return (await fdIsTerminal(pid, arg(0), ptsPath)) ? 'read' : undefined;
  }
  if (table.select.includes(nr)) {
    const nfds = arg(0);
    const fds = (await terminalFds(pid, ptsPath)).filter((fd) => fd < nfds);
    if (fds.length === 0 || arg(1) === 0) return undefined;
    const bytes = Math.ceil(nfds / 64) * 8;
    const set = await readMemory(pid, arg(1), bytes);
    if (!set) return undefined;
    return fds.some((fd) => ((set[fd >> 3] ?? 0) & (1 << (fd & 7))) !== 0) ? 'poll' : undefined;
  }
  if (table.poll.includes(nr)) {
    const nfds = Math.min(arg(1), 4096);
    const fds = await terminalFds(pid, ptsPath);
    if (fds.length === 0 || nfds === 0) return undefined;
    const array = await readMemory(pid, arg(0), nfds * 8);
    if (!array) return undefined;
    for (let i = 0; i < nfds; i++) {
      const fd = array.readInt32LE(i * 8);
      const events = array.readInt16LE(i * 8 + 4);
      if (fds.includes(fd) && (events & 0x1) !== 0) return 'poll';
    }
    return undefined;
  }
  if (table.epoll.includes(nr)) {
    const fds = await terminalFds(pid, ptsPath);
    if (fds.length === 0) return undefined;
    try {
      const info = await fs.readFile(`/proc/${pid}/fdinfo/${arg(0)}`, 'utf8');
      for (const match of info.matchAll(/^tfd:\s+(\d+)\s+events:\s+([0-9a-f]+)/gm)) {
        if (fds.includes(Number(match[1])) && (Number.parseInt(match[2]!, 16) & 0x1) !== 0) return 'poll';
      }
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Terminal flags through `stty` (Node has no tcgetattr). Only called once a wait was found. */
export function readTerminalFlags(ptsPath: string): Promise<{ echo: boolean; icanon: boolean } | undefined> {
  return new Promise((resolve) => {
    execFile('stty', ['-a', '-F', ptsPath], { timeout: 2000 }, (error, stdout) => {
      if (error) return resolve(undefined);
      const words = new Set(stdout.split(/[\s;]+/));
      resolve({ echo: words.has('echo'), icanon: words.has('icanon') });
    });
  });
}

/**
 * Inspect the terminal whose session leader (the shell) is `shellPid` and whose slave is `ptsPath`.
 */
export async function inspectLinuxForeground(
  shellPid: number,
  ptsPath: string,
  options: { terminalFlags?: boolean } = {},
): Promise<ForegroundInfo | undefined> {
  const shell = await readProcStat(shellPid);
  if (!shell || shell.state === 'Z') return undefined;
  const pgid = shell.tpgid;
  if (!(pgid > 0)) return undefined;
  const table = archTable();
  const members = pgid === shellPid ? [shellPid] : (await descendantPids(shellPid)).concat(shellPid);
  const stats = (await Promise.all(members.map((pid) => readProcStat(pid)))).filter(
    (s): s is ProcStat => s !== undefined && s.pgrp === pgid,
  );
  const leader = stats.find((s) => s.pid === pgid) ?? stats[0];
  const info: ForegroundInfo = { processGroupId: pgid, inputWaiting: false };
  if (leader) info.command = leader.comm;
  if (!table) return info;
  for (const member of stats) {
    let tids: string[];
    try {
      tids = await fs.readdir(`/proc/${member.pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const call = await threadInputCall(member.pid, tid, ptsPath, table);
      if (call) {
        info.inputWaiting = true;
        info.inputCall = call;
        info.command = member.comm;
        // The shell's own line editor is not a secret prompt; skip the stty spawn there.
        if (options.terminalFlags !== false && !(member.pid === shellPid && call === 'poll')) {
          const flags = await readTerminalFlags(ptsPath);
          if (flags) info.secret = !flags.echo && flags.icanon;
        }
        return info;
      }
    }
  }
  return info;
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
