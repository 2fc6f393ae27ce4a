/**
 * The PTY provider contract. It mirrors DSH's `SubprocessTerminalHandle` (pid, output, done, write,
 * inspectForeground, signalForeground, terminate) so that the DSH plugin can adapt
 * `ctx.subprocess.spawnTerminal` to it, and adds optional facts that our own Linux inspector can read from
 * the kernel. Every optional field may be absent: the engine then falls back to slower, safe rules.
 */
import type { Readable } from 'node:stream';

export type ForegroundSignal = 'SIGINT' | 'SIGTERM' | 'SIGKILL' | 'SIGTSTP' | 'SIGHUP';
export const FOREGROUND_SIGNALS: readonly ForegroundSignal[] = ['SIGINT', 'SIGTERM', 'SIGKILL', 'SIGTSTP', 'SIGHUP'];

/** What `stty -a` says of a terminal that the engine acts on. */
export interface TerminalModes {
  echo: boolean;
  /** Input is collected line by line (canonical mode), at most 4095 bytes of a line. */
  icanon: boolean;
  /** The line discipline turns the INTR character into SIGINT (and discards typed-ahead input). */
  isig: boolean;
  /** The INTR character (^C unless changed), absent when undefined. */
  intr?: string;
}

export interface PtySpawnSpec {
  /** argv[0] is the executable. */
  argv: string[];
  cwd: string;
  env: Record<string, string>;
  rows: number;
  cols: number;
  /** TERM name for the PTY (providers that force their own may ignore it; the env carries it too). */
  term?: string;
  /** Grace between the polite signals and SIGKILL when the tree is terminated. */
  graceMs: number;
  signal?: AbortSignal;
}

/** How the waiting process asks for input. */
export type InputCall = 'read' | 'poll';

export interface InspectForegroundOptions {
  /** Read the terminal's flags (a process spawn) when a wait is found; default true. 'ahead': do not wait
   *  for them, but start reading them, so that a later look at the same sleep of the same reader (a
   *  confirming look) has them at once. */
  terminalFlags?: boolean | 'ahead';
  /** Look for a reader at all; false asks only who is in front and what its leader runs (cheap: one or
   *  two /proc reads). Default true. */
  readers?: boolean;
  /** Linux: when a reader of the foreground group is found, also fingerprint the group's stillness (see
   *  `ForegroundInfo.stillness`; a few more /proc reads). Default false. */
  stillness?: boolean;
}

export interface ForegroundInfo {
  /** The foreground process group of the terminal. Equal to the shell pid when the shell is in front. */
  processGroupId: number;
  /** A process of that group is blocked reading this terminal (any fd that is the terminal, not only 0). */
  inputWaiting: boolean;
  /** Linux: a blocking read(), or select/poll/epoll with the terminal in its set (readline, REPLs). */
  inputCall?: InputCall;
  /** Terminal flags while waiting: ECHO off with ICANON on is a secret prompt (getpass, read -s). */
  secret?: boolean;
  /** Short command name of the waiting (or leading) process, e.g. `python3`. */
  command?: string;
  /** Linux: the waiting process. */
  inputProcessId?: number;
  /** Linux: the waiting call has a finite timeout (bash's `read -t`; its prompt waits without one). */
  inputTimed?: boolean;
  /** Linux: the timeout of a timed wait as the program passed it, when it could be read. A wait seen for
   *  longer than this is a program that keeps waiting again (a polling loop), not one wait running out. */
  inputTimeoutMs?: number;
  /** Linux: the wait is epoll's, whose interest list outlives the program's interest (libuv and other
   *  event loops take a descriptor out only when an event comes for it). */
  inputInterestList?: boolean;
  /** Linux: the waiting thread's user stack pointer as it entered the call. For bash in its line editor
   *  it tells the top-level prompt (always the same depth in one program image) from `read -e` inside a
   *  running command (deeper), without any mark. */
  inputStack?: string;
  /** Linux: the reader is not in the foreground group (a dialog another process started, e.g. pinentry). */
  inputOutside?: boolean;
  /** Linux, nothing waits: some process of the foreground group is running (not asleep). */
  busy?: boolean;
  /** Linux, asked for, a reader found: every thread of the foreground group, each with how many times the
   *  kernel has switched it out, while all of them sleep. Two equal fingerprints mean no thread of the
   *  group ran between the looks, so none of it printed: output meanwhile came from elsewhere (a
   *  background job). Absent when a thread was running or could not be read. */
  stillness?: string;
  /** Linux, a reader in the foreground group that is not bash itself nor a relay, with other threads in
   *  the group (its own process's or another member's, such as jshell's execution agent): whether one
   *  of them runs now, and their CPU time so far in nanoseconds. Its growth between looks tells a
   *  program working beside its reader (compiling the line it read, computing while it watches for a
   *  key) from one that waits. */
  inputSiblings?: { running: boolean; cpuNs: number };
  /** Terminal flags, when read (a wait was found and `terminalFlags` was not false). */
  echo?: boolean;
  icanon?: boolean;
  /** Linux, the shell is the reader: an identity of its program image, which changes when it execs. */
  shellImage?: string;
  /** Linux: the reader relays input to a terminal of its own (script, tmux, screen, ssh): the foreground
   *  inside it, or 'unknown' when that terminal cannot be seen from here (ssh to another machine). */
  inner?: InnerTerminal | 'unknown';
  /** Linux: the shell itself is stopped (`suspend`, `kill -STOP $$`). Nothing above it in this terminal
   *  can continue it (see PtyHandle.continueShell); the rest of the look is left out. */
  shellStopped?: boolean;
}

/** The foreground of a terminal inside the one we own. */
export interface InnerTerminal {
  path: string;
  processGroupId: number;
  command?: string;
  inputWaiting: boolean;
  inputCall?: InputCall;
  secret?: boolean;
}

export interface PtyExit {
  exitCode: number | null;
  signal: string | null;
}

export interface PtyHandle {
  readonly pid: number;
  /** The provider can see input waits (and tell bash's line editor from its `read` builtin, when it
   *  reports `inputCall`). False or absent: waits are unknown and model commands that read input time out. */
  readonly inputWaitDetection?: boolean;
  /** Decoded UTF-8 text; ends after the shell exits and its last output was read. Pausing it holds the PTY. */
  readonly output: Readable;
  /** Settles once the process has exited and its output has ended. */
  readonly done: Promise<PtyExit>;
  write(data: string): void | Promise<void>;
  /** undefined when nothing can be inspected (the process is gone). `terminalFlags: false` skips reading
   *  the terminal flags (which costs a process spawn on Linux) when only the wait itself matters. */
  inspectForeground(options?: InspectForegroundOptions): Promise<ForegroundInfo | undefined>;
  /** Bytes the shell process itself has read so far, from any descriptor (Linux: its thread's rchar); not
   *  what its children read. Every byte of input its line editor or its `read` builtin took is in it. */
  bytesRead?(): number | undefined;
  /** Re-inspects the foreground, signals that group and returns its id. Refuses SIGKILL to the shell itself. */
  signalForeground(signal: ForegroundSignal): Promise<number>;
  /** The line discipline's modes now, undefined when unknown: with ISIG its INTR character is typed for an
   *  interrupt like a person's Ctrl-C; with ICANON a line over 4095 bytes would lose its tail. */
  terminalModes?(): Promise<TerminalModes | undefined>;
  /** Drops the input written to the terminal and not yet read by its program (what a typed Ctrl-C drops),
   *  so the interrupt character typed next is not left queued behind a full input buffer. */
  discardUnreadInput?(): Promise<void>;
  /** Ends the whole process tree (polite signals, then SIGKILL after graceMs) and resolves when it is gone. */
  terminate(): Promise<void>;
  /** Sends SIGCONT to the shell, which stopped itself (`shellStopped`). Absent: a stopped shell stays
   *  stopped, and the operation ends by its deadline. */
  continueShell?(): void;
}

export interface PtyProvider {
  spawn(spec: PtySpawnSpec): Promise<PtyHandle>;
}

export class ForegroundSignalError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForegroundSignalError';
  }
}
