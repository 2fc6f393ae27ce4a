/**
 * Who waits for input on a terminal, read from the Linux kernel without stopping anything.
 *
 * A process waits for terminal input when one of its threads sleeps (`S`) in a call that would return
 * when the terminal has input: read() on a descriptor that is the terminal, or select/poll/epoll with the
 * terminal in its read set. Where such a reader is looked for, in order:
 *   1. the terminal's foreground process group (the common case: a prompt, a REPL, a pager);
 *   2. when nothing in front is running, every other process holding the terminal open (a passphrase
 *      dialog started by an agent, not by the shell, opens the terminal by name);
 * and when the reader also polls a terminal master or a socket, it relays input to a terminal of its own
 * (script, expect, screen, tmux's client, ssh): what counts then is what runs inside that terminal,
 * found through the master's `tty-index` (its own masters, or those of the processes this terminal
 * started, which is where tmux's and screen's servers hold theirs).
 *
 * Layout of /proc/<pid>/stat after the command name: state ppid pgrp session tty_nr tpgid ...
 * /proc/<pid>/task/<tid>/syscall: "<nr> <arg0> ... <arg5> <sp> <pc>" in hex, or "running".
 */
import { promises as fs, readlinkSync, statSync } from 'node:fs';
import type { ForegroundInfo, InnerTerminal, InputCall, TerminalModes } from './contract.ts';
import {
  type ProcStat,
  allProcStats,
  charCountOf,
  descendantPids,
  processesWithEnvironment,
  procStatOf,
  readProcStat,
  readProcStatSync,
  readTerminalFlags,
  statFields,
  threadIds,
} from './procfs.ts';
import { type Sleep, TerminalFlagsAhead } from './flags-ahead.ts';
import { contextSwitches, groupStillness, siblingActivity } from './stillness.ts';
import { SocketPeers, socketInode, socketInodes } from './socket-peers.ts';
import { KeptProcessFiles, type ProcessReader, processByPath } from './process-files.ts';
import { discardUnreadInput } from './unread-input.ts';

interface SyscallTable {
  read: number[];
  select: number[]; // (nfds, readfds*, writefds*, exceptfds*, timeout*)
  poll: number[]; // poll(fds*, nfds, int timeout) / ppoll(fds*, nfds, timespec*)
  epoll: number[]; // epoll_wait(epfd, events*, max, int timeout) / epoll_pwait2(..., timespec*)
  /** Calls whose timeout is a pointer (NULL: none) rather than an int (-1: none). */
  pointerTimeout: number[];
  /** Of those, the ones whose timeout is a `struct timeval` (microseconds), not a `struct timespec`. */
  timeval: number[];
}

const SYSCALLS: Record<string, SyscallTable> = {
  x64: { read: [0, 17, 19], select: [23, 270], poll: [7, 271], epoll: [232, 281, 441], pointerTimeout: [23, 270, 271, 441], timeval: [23] },
  arm64: { read: [63, 65, 67], select: [72], poll: [73], epoll: [22, 441], pointerTimeout: [72, 73, 441], timeval: [] },
};

/** A thread asleep in a call that returns on terminal input. */
interface Wait {
  call: InputCall;
  /** The call has a finite timeout (bash's `read -t`; its prompt waits without one). */
  timed: boolean;
  /** That timeout, when it could be read. */
  timeoutMs?: number;
  /** The user stack pointer at the call (from /proc/<pid>/task/<tid>/syscall). */
  stack?: string;
  /** An epoll wait: the set is the interest list, not one the program passed to this call. */
  interestList?: boolean;
  /** The other descriptors it waits on include a socket or a terminal master: it relays input elsewhere. */
  relay: boolean;
  /** Terminal masters it polls (script, expect): their slaves are inner terminals. */
  masters: number[];
}

interface Reader extends Wait {
  pid: number;
  /** The waiting thread. */
  tid: string;
  command: string;
  processGroupId: number;
  /** This sleep of the waiting thread, when its switch count could be read (see flags-ahead.ts). */
  sleep?: Sleep;
}

/** One listing of socket peers serves every terminal of the process (a listing costs a spawn). */
const sharedSocketPeers = new SocketPeers();

/** How long a scan for terminal masters held by a terminal's processes is reused. */
const MASTER_SCAN_TTL_MS = 1000;
/** How long a scan for the processes holding the terminal open is reused (a dialog appears within it). */
const HOLDER_SCAN_TTL_MS = 500;

export interface InspectOptions {
  /** See InspectForegroundOptions. */
  terminalFlags?: boolean | 'ahead';
  /** false: who is in front only, no reader search. */
  readers?: boolean;
  /** See InspectForegroundOptions. */
  stillness?: boolean;
  /** The environment mark every process of this terminal inherits (finds tmux's and screen's servers). */
  treeMark?: { name: string; value: string };
}

export class LinuxInspector {
  private readonly shellPid: number;
  private readonly ptsPath: string;
  private readonly table: SyscallTable | undefined = SYSCALLS[process.arch];
  private masterScan: { at: number; masters: Array<{ pid: number; fd: number }> } | undefined;
  private holderScan: { at: number; pids: number[] } | undefined;
  private readonly flagsAhead = new TerminalFlagsAhead();
  private readonly socketPeers: SocketPeers;
  /** The shell's own files, read on every look (see process-files.ts). */
  private readonly shellFiles: KeptProcessFiles;
  /** The terminal's file as the shell's fdinfo shows it, once a descriptor named it (see descriptorTarget). */
  private terminalFile: string | undefined;

  constructor(shellPid: number, ptsPath: string, socketPeers: SocketPeers = sharedSocketPeers) {
    this.shellPid = shellPid;
    this.ptsPath = ptsPath;
    this.socketPeers = socketPeers;
    this.shellFiles = new KeptProcessFiles(shellPid);
  }

  /** Close the shell's kept files (its terminal ended). */
  close(): void {
    this.shellFiles.close();
  }

  /** The bytes the shell's main thread has read so far (see procfs.ts charCountOf). */
  shellCharCount(): number | undefined {
    return charCountOf(this.shellFiles.text(`task/${this.shellPid}/io`));
  }

  async inspect(options: InspectOptions = {}): Promise<ForegroundInfo | undefined> {
    const memoryReads = this.shellFiles.memoryReads;
    const shell = procStatOf(this.shellPid, this.shellFiles.text('stat'));
    if (!shell || shell.state === 'Z') return undefined;
    const pgid = shell.tpgid;
    if (!(pgid > 0)) return undefined;
    // A shell stopped by a signal: whatever runs in front, the terminal is frozen once that ends.
    if (shell.state === 'T') return { processGroupId: pgid, inputWaiting: false, shellStopped: true };
    if (options.readers === false) {
      // Who is in front, and what its leader runs (the shell's fork before its exec still says bash).
      const command = pgid === this.shellPid ? shell.comm : readProcStatSync(pgid)?.comm;
      return command === undefined ? { processGroupId: pgid, inputWaiting: false } : { processGroupId: pgid, inputWaiting: false, command };
    }
    const members = pgid === this.shellPid ? [shell] : await this.groupMembers(pgid);
    const leader = members.find((s) => s.pid === pgid) ?? members[0];
    const info: ForegroundInfo = { processGroupId: pgid, inputWaiting: false };
    if (leader) info.command = leader.comm;
    if (!this.table) return info;
    // Which sleep a reader is in matters only to its terminal flags (see flags-ahead.ts).
    const sleeps = options.terminalFlags !== false;
    let reader = await this.findReader(members, this.ptsPath, sleeps);
    if (!reader && members.every((m) => m.state !== 'R' && m.state !== 'D')) {
      reader = await this.findOutsideReader(pgid, shell, sleeps);
      if (reader) info.inputOutside = true;
    }
    if (!reader) {
      info.busy = members.some((m) => m.state === 'R' || m.state === 'D');
      return info;
    }
    info.inputWaiting = true;
    info.inputCall = reader.call;
    info.inputTimed = reader.timed;
    if (reader.timeoutMs !== undefined) info.inputTimeoutMs = reader.timeoutMs;
    if (reader.stack !== undefined) info.inputStack = reader.stack;
    if (reader.interestList) info.inputInterestList = true;
    info.command = reader.command;
    info.inputProcessId = reader.pid;
    if (options.stillness && !info.inputOutside && !reader.relay) {
      const still = await groupStillness(members);
      if (still !== undefined) info.stillness = still;
    }
    if (!info.inputOutside && !reader.relay && reader.pid !== this.shellPid) {
      const siblings = await siblingActivity(members, reader);
      if (siblings) info.inputSiblings = siblings;
    }
    if (reader.pid === this.shellPid) {
      const image = this.imageOf(memoryReads, reader.stack);
      if (image !== undefined) info.shellImage = image;
    }
    if (reader.relay) info.inner = await this.innerTerminal(reader, options);
    // The shell's own line editor is never a secret prompt: skip the stty spawn there.
    const shellEditing = reader.pid === this.shellPid && reader.call === 'poll' && !reader.timed;
    const flags = shellEditing ? undefined : await this.terminalFlags(this.ptsPath, reader, options);
    if (flags) {
      info.echo = flags.echo;
      info.icanon = flags.icanon;
      info.secret = !flags.echo && (flags.icanon || info.inputOutside === true || (reader.pid === this.shellPid && reader.call === 'read'));
    }
    return info;
  }

  /** The terminal's modes now (one `stty` run): see PtyHandle.terminalModes. */
  terminalModes(): Promise<TerminalModes | undefined> {
    return readTerminalFlags(this.ptsPath);
  }

  /** Drops the input this terminal holds unread, before an interrupt character is typed (unread-input.ts). */
  async discardUnreadInput(): Promise<void> {
    await discardUnreadInput(this.ptsPath);
  }

  private async groupMembers(pgid: number): Promise<ProcStat[]> {
    const pids = (await descendantPids(this.shellPid)).concat(this.shellPid);
    const stats = pids.map((pid) => readProcStatSync(pid));
    return stats.filter((s): s is ProcStat => s !== undefined && s.pgrp === pgid);
  }

  /** The first process among `members` with a thread waiting for input on `ptsPath`; `sleeps`: with which
   *  sleep of that thread it is, read right after the wait itself. */
  private async findReader(members: ProcStat[], ptsPath: string, sleeps: boolean): Promise<Reader | undefined> {
    for (const member of members) {
      // A process of one thread (a shell, most programs): its only thread has its pid for id.
      const tids = member.threads === 1 ? [String(member.pid)] : ((await threadIds(member.pid)) ?? []);
      for (const tid of tids) {
        // The process's own state, read just now, is its only thread's.
        const wait = await this.threadWait(member.pid, tid, ptsPath, member.threads === 1 ? member.state : undefined);
        if (!wait) continue;
        const reader: Reader = { ...wait, pid: member.pid, tid, command: member.comm, processGroupId: member.pgrp };
        const switches = sleeps ? await contextSwitches(member.pid, tid) : undefined;
        if (switches !== undefined) reader.sleep = { pid: member.pid, tid, switches };
        return reader;
      }
    }
    return undefined;
  }

  /**
   * A reader outside the foreground group: another process holding this terminal open, asleep on it (a
   * passphrase dialog started by an agent; a tmux server started elsewhere, which got the terminal from
   * its client over a socket). Jobs of this shell's session are left out: reading their controlling
   * terminal stops them.
   */
  private async findOutsideReader(pgid: number, shell: ProcStat, sleeps: boolean): Promise<Reader | undefined> {
    const holders = await this.terminalHolders();
    for (const pid of holders) {
      if (pid === process.pid) continue;
      const stat = await readProcStat(pid);
      if (!stat || stat.pgrp === pgid || stat.session === shell.session || stat.state !== 'S') continue;
      const reader = await this.findReader([stat], this.ptsPath, sleeps);
      if (reader) return reader;
    }
    return undefined;
  }

  /** Processes with this terminal open, from a scan of every process's descriptors (reused briefly). */
  private async terminalHolders(): Promise<number[]> {
    const now = performance.now();
    if (this.holderScan && now - this.holderScan.at < HOLDER_SCAN_TTL_MS) return this.holderScan.pids;
    const pids: number[] = [];
    for (const stat of await allProcStats()) {
      if ((await terminalFds(stat.pid, this.ptsPath)).length > 0) pids.push(stat.pid);
    }
    this.holderScan = { at: performance.now(), pids };
    return pids;
  }

  /** Whether thread `tid` of `pid` is asleep waiting for input on `ptsPath`, and how; `knownState`: its state
   *  letter, when the caller has just read it (a process of one thread). */
  private async threadWait(pid: number, tid: string, ptsPath: string, knownState?: string): Promise<Wait | undefined> {
    const table = this.table;
    if (!table) return undefined;
    const proc = this.processReader(pid);
    // A thread that input has already woken is runnable ('R') while it still sits in the syscall.
    const state = knownState ?? statFields(proc.text(`task/${tid}/stat`) ?? '')[0];
    if (state !== 'S') return undefined;
    const text = proc.text(`task/${tid}/syscall`)?.trim();
    if (text === undefined || text === 'running') return undefined;
    const fields = text.split(' ');
    const nr = Number(fields[0]);
    const arg = (i: number): number => Number.parseInt(fields[i + 1] ?? '0', 16);
    const int32 = (i: number): number => arg(i) | 0;
    const stack = fields[7];
    if (table.read.includes(nr)) {
      if (this.descriptorTarget(pid, arg(0), ptsPath) !== 'terminal') return undefined;
      const read: Wait = { call: 'read', timed: false, relay: false, masters: [] };
      if (stack !== undefined) read.stack = stack;
      return read;
    }
    let polled: number[] | undefined;
    let timeout: Timeout = { timed: false };
    if (table.select.includes(nr)) {
      timeout = pointerTimeout(proc, arg(4), table.timeval.includes(nr) ? 'timeval' : 'timespec');
      polled = selectSet(proc, arg(0), arg(1));
    } else if (table.poll.includes(nr)) {
      timeout = table.pointerTimeout.includes(nr) ? pointerTimeout(proc, arg(2), 'timespec') : intTimeout(int32(2));
      polled = pollSet(proc, arg(0), arg(1));
    } else if (table.epoll.includes(nr)) {
      timeout = table.pointerTimeout.includes(nr) ? pointerTimeout(proc, arg(3), 'timespec') : intTimeout(int32(3));
      polled = epollSet(pid, arg(0));
    }
    if (!polled || polled.length === 0) return undefined;
    const targets = polled.map((fd) => ({ fd, target: this.descriptorTarget(pid, fd, ptsPath) }));
    if (!targets.some((t) => t.target === 'terminal')) return undefined;
    const masters = targets.filter((t) => t.target === 'master').map((t) => t.fd);
    const sockets = targets.filter((t) => t.target === 'socket').map((t) => t.fd);
    const relay = masters.length > 0 || (sockets.length > 0 && !(await this.wakeupChannels(pid, sockets)));
    const wait: Wait = { call: 'poll', timed: timeout.timed, relay, masters };
    if (timeout.ms !== undefined) wait.timeoutMs = timeout.ms;
    if (stack !== undefined) wait.stack = stack;
    if (table.epoll.includes(nr)) wait.interestList = true;
    return wait;
  }

  /**
   * Whether every socket among `fds` of `pid` is its own event loop's wakeup channel (asyncio's
   * socketpair): `pid` holds the peer end too, and no other process of this terminal does (those it
   * started, and the rest of the shell's tree, where a sibling may have inherited it). A socketpair shared
   * with another process, a socket to a server, a TCP connection: a way for input to go elsewhere, a relay.
   */
  private async wakeupChannels(pid: number, fds: number[]): Promise<boolean> {
    const own = socketInodes(pid);
    let others: Array<Set<number>> | undefined;
    for (const fd of fds) {
      const inode = socketInode(pid, fd);
      const peer = inode === undefined ? undefined : await this.socketPeers.peerOf(inode);
      if (peer === undefined || !own.has(peer)) return false;
      others ??= await this.otherProcessSockets(pid);
      if (others.some((held) => held.has(peer))) return false;
    }
    return true;
  }

  /** The sockets of every process of this terminal's tree and of `pid`'s own, `pid` left out. */
  private async otherProcessSockets(pid: number): Promise<Array<Set<number>>> {
    const tree = new Set([this.shellPid, ...(await descendantPids(this.shellPid))]);
    // A reader in the shell's tree has its own descendants in it already (one outside has not).
    if (!tree.has(pid)) for (const below of await descendantPids(pid)) tree.add(below);
    tree.delete(pid);
    return [...tree].map(socketInodes);
  }

  /** What runs inside the terminal a relaying reader forwards to, or 'unknown' when it cannot be seen. */
  private async innerTerminal(reader: Reader, options: InspectOptions): Promise<InnerTerminal | 'unknown'> {
    let masters = reader.masters.map((fd) => ({ pid: reader.pid, fd }));
    if (masters.length === 0 && options.treeMark) masters = await this.markedMasters(options.treeMark);
    const inner: InnerTerminal[] = [];
    for (const master of masters) {
      const found = await this.innerOf(master.pid, master.fd, options);
      if (found) inner.push(found);
    }
    if (inner.length === 0) return 'unknown';
    // A terminal inside that runs something (not waiting) means the relay is not waiting either.
    return inner.find((t) => !t.inputWaiting) ?? inner[0]!;
  }

  /** Masters held by processes that carry this terminal's mark (tmux's and screen's servers). */
  private async markedMasters(mark: { name: string; value: string }): Promise<Array<{ pid: number; fd: number }>> {
    const now = performance.now();
    if (this.masterScan && now - this.masterScan.at < MASTER_SCAN_TTL_MS) return this.masterScan.masters;
    const pids = await processesWithEnvironment(mark.name, mark.value);
    const masters: Array<{ pid: number; fd: number }> = [];
    for (const pid of pids) {
      if (pid === this.shellPid || pid === process.pid) continue;
      let fds: string[];
      try {
        fds = await fs.readdir(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) if (fdTarget(pid, Number(fd)) === 'master') masters.push({ pid, fd: Number(fd) });
    }
    this.masterScan = { at: now, masters };
    return masters;
  }

  /** The flags of `path` while `reader` waits, as `options` asks: read now, only started ahead, or not. */
  private async terminalFlags(path: string, reader: Reader, options: InspectOptions): Promise<TerminalModes | undefined> {
    if (options.terminalFlags === false) return undefined;
    if (options.terminalFlags !== 'ahead') return this.flagsAhead.read(path, reader.sleep);
    if (reader.sleep) this.flagsAhead.start(path, reader.sleep);
    return undefined;
  }

  /** The foreground of the terminal whose master is `fd` of `pid`. */
  private async innerOf(pid: number, fd: number, options: InspectOptions): Promise<InnerTerminal | undefined> {
    let index: number;
    try {
      const fdinfo = await fs.readFile(`/proc/${pid}/fdinfo/${fd}`, 'utf8');
      const match = /^tty-index:\s*(\d+)/m.exec(fdinfo);
      if (!match) return undefined;
      index = Number(match[1]);
    } catch {
      return undefined;
    }
    const path = `/dev/pts/${index}`;
    let rdev: number;
    try {
      rdev = (await fs.stat(path)).rdev;
    } catch {
      return undefined;
    }
    // The session leader on that terminal among the holder's descendants names its foreground group.
    const below = await Promise.all((await descendantPids(pid)).map((p) => readProcStat(p)));
    const onTerminal = below.filter((s): s is ProcStat => s !== undefined && s.ttyNr === rdev);
    const leader = onTerminal.find((s) => s.session === s.pid) ?? onTerminal[0];
    if (!leader || !(leader.tpgid > 0)) return undefined;
    const members = onTerminal.filter((s) => s.pgrp === leader.tpgid);
    const reader = await this.findReader(members, path, options.terminalFlags !== false);
    const front = members.find((s) => s.pid === leader.tpgid) ?? members[0];
    const inner: InnerTerminal = { path, processGroupId: leader.tpgid, inputWaiting: reader !== undefined };
    const command = reader?.command ?? front?.comm;
    if (command !== undefined) inner.command = command;
    if (reader) {
      inner.inputCall = reader.call;
      const flags = await this.terminalFlags(path, reader, options);
      if (flags) inner.secret = !flags.echo && flags.icanon;
    }
    return inner;
  }

  /**
   * What descriptor `fd` of `pid` is. The shell's standard descriptors are told by their kept fdinfo, which
   * names the mount and inode of the file open there now: equal to the terminal's, the descriptor is the
   * terminal (an inode number is unique within its mount). That read costs a fraction of readlink, which
   * walks the path and builds the name each time; readlink still decides any other file, and the
   * terminal's own is learnt from a descriptor it named, unchanged across that naming.
   */
  private descriptorTarget(pid: number, fd: number, ptsPath: string): FdTarget {
    const name = `fdinfo/${fd}`;
    if (pid !== this.shellPid || ptsPath !== this.ptsPath || !(fd >= 0 && fd <= 2)) return fdTarget(pid, fd, ptsPath);
    const file = openFile(this.shellFiles.text(name));
    if (file !== undefined && file === this.terminalFile) return 'terminal';
    const link = linkOf(pid, fd);
    if (link === ptsPath && file !== undefined && openFile(this.shellFiles.text(name)) === file) this.terminalFile = file;
    return classifyLink(pid, link, ptsPath);
  }

  /** The shell's files kept open; any other process's read by path. */
  private processReader(pid: number): ProcessReader {
    return pid === this.shellPid ? this.shellFiles : processByPath(pid);
  }

  /**
   * What the shell process is running. Its kept memory file reads the address space it was opened on and
   * nothing once an exec replaced it (`exec bash`: the markers went with the old image), when it is opened
   * anew: the opening a read of this look went through names the image. A look that read no memory of the
   * shell (`memoryReads` unchanged: a plain read(2)) reads one byte at its stack pointer.
   */
  private imageOf(memoryReads: number, stack: string | undefined): string | undefined {
    const files = this.shellFiles;
    if (files.memoryReads === memoryReads) {
      const pointer = stack === undefined ? Number.NaN : Number.parseInt(stack, 16);
      if (!files.memory(pointer, 1)) return undefined;
    }
    const space = files.addressSpace;
    return space === undefined ? undefined : `space-${space}`;
  }
}

type FdTarget = 'terminal' | 'master' | 'socket' | 'other';

/** What descriptor `fd` of `pid` is: the terminal `ptsPath`, a terminal master, a socket, or other. */
function fdTarget(pid: number, fd: number, ptsPath?: string): FdTarget {
  return classifyLink(pid, linkOf(pid, fd), ptsPath);
}

/** The name /proc gives descriptor `fd` of `pid` (a path, `socket:[inode]`), or undefined. */
function linkOf(pid: number, fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/** The file open in an fdinfo, as `<mount id>:<inode>`, or undefined. */
function openFile(fdinfo: string | undefined): string | undefined {
  if (fdinfo === undefined) return undefined;
  const mount = /^mnt_id:\s*(\d+)$/m.exec(fdinfo)?.[1];
  const inode = /^ino:\s*(\d+)$/m.exec(fdinfo)?.[1];
  return mount === undefined || inode === undefined ? undefined : `${mount}:${inode}`;
}

function classifyLink(pid: number, target: string | undefined, ptsPath?: string): FdTarget {
  if (target === undefined) return 'other';
  if (ptsPath === undefined ? target.startsWith('/dev/pts/') && target !== '/dev/pts/ptmx' : target === ptsPath) return 'terminal';
  // /dev/tty is the process's own controlling terminal: this one only for processes it controls (a
  // program in another terminal reading its /dev/tty, like less or pinentry, is no reader of this one).
  if (target === '/dev/tty') return ptsPath !== undefined && controlledBy(pid, ptsPath) ? 'terminal' : 'other';
  if (target === '/dev/ptmx' || target === '/dev/pts/ptmx') return 'master';
  if (target.startsWith('socket:')) return 'socket';
  return 'other';
}

/** Whether `ptsPath` is the controlling terminal of `pid`. */
function controlledBy(pid: number, ptsPath: string): boolean {
  const device = terminalDevice(ptsPath);
  return device !== undefined && readProcStatSync(pid)?.ttyNr === device;
}

/** The device number of a terminal (fixed by its path: /dev/pts/N is always the same device). */
const terminalDevices = new Map<string, number>();
function terminalDevice(ptsPath: string): number | undefined {
  let device = terminalDevices.get(ptsPath);
  if (device === undefined) {
    try {
      device = statSync(ptsPath).rdev;
    } catch {
      return undefined;
    }
    if (terminalDevices.size > 1024) terminalDevices.clear(); // bounded: one entry per terminal seen
    terminalDevices.set(ptsPath, device);
  }
  return device;
}

/** The fds of `pid` that are the terminal `ptsPath`. */
async function terminalFds(pid: number, ptsPath: string): Promise<number[]> {
  let fds: string[];
  try {
    fds = await fs.readdir(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const fd of fds) if (fdTarget(pid, Number(fd), ptsPath) === 'terminal') found.push(Number(fd));
  return found;
}

interface Timeout {
  timed: boolean;
  ms?: number;
}

/** poll() and epoll_wait() take milliseconds; a negative value waits without end. */
function intTimeout(ms: number): Timeout {
  return ms < 0 ? { timed: false } : { timed: true, ms };
}

/**
 * select() takes a `struct timeval *`, pselect/ppoll/epoll_pwait2 a `struct timespec *`; NULL waits without
 * end. While the call sleeps, the struct in the program's memory still holds the timeout it was given.
 */
function pointerTimeout(proc: ProcessReader, address: number, kind: 'timeval' | 'timespec'): Timeout {
  if (address === 0) return { timed: false };
  const bytes = proc.memory(address, 16);
  if (!bytes || bytes.length < 16) return { timed: true };
  const seconds = Number(bytes.readBigInt64LE(0));
  const fraction = Number(bytes.readBigInt64LE(8));
  const ms = seconds * 1000 + (kind === 'timeval' ? fraction / 1000 : fraction / 1e6);
  return Number.isFinite(ms) && ms >= 0 ? { timed: true, ms } : { timed: true };
}

function selectSet(proc: ProcessReader, nfds: number, readfds: number): number[] | undefined {
  if (readfds === 0 || nfds <= 0 || nfds > 65536) return undefined;
  const set = proc.memory(readfds, Math.ceil(nfds / 64) * 8);
  if (!set) return undefined;
  const fds: number[] = [];
  for (let fd = 0; fd < nfds; fd++) if (((set[fd >> 3] ?? 0) & (1 << (fd & 7))) !== 0) fds.push(fd);
  return fds;
}

function pollSet(proc: ProcessReader, address: number, count: number): number[] | undefined {
  const nfds = Math.min(count, 4096);
  if (nfds <= 0) return undefined;
  const array = proc.memory(address, nfds * 8);
  if (!array) return undefined;
  const fds: number[] = [];
  for (let i = 0; i < nfds; i++) {
    const fd = array.readInt32LE(i * 8);
    const events = array.readInt16LE(i * 8 + 4);
    if (fd >= 0 && (events & 0x1) !== 0) fds.push(fd);
  }
  return fds;
}

/** The interest list of an epoll descriptor (read by path: descriptors come and go). */
function epollSet(pid: number, epfd: number): number[] | undefined {
  const info = processByPath(pid).text(`fdinfo/${epfd}`);
  if (info === undefined) return undefined;
  const fds: number[] = [];
  for (const match of info.matchAll(/^tfd:\s+(\d+)\s+events:\s+([0-9a-f]+)/gm)) {
    if ((Number.parseInt(match[2]!, 16) & 0x1) !== 0) fds.push(Number(match[1]));
  }
  return fds;
}
