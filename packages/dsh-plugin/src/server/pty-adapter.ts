/**
 * The engine's `PtyProvider` over DSH's subprocess provider (`ctx.subprocess.spawnTerminal`).
 *
 * DSH keeps what it owns: the credential-scrubbed environment (its `childEnv` starts from the scrubbed
 * parent environment and lays our variables on top, so the engine passes only its shell-integration
 * variables), foreground re-inspection before every signal, the refusal to SIGKILL the shell, and the
 * tree-wide terminate. What this adapter adds:
 * - text: rc.8's `output` carries bytes; the engine wants decoded UTF-8 (split characters are held back by
 *   the stream's decoder, never mangled);
 * - `done` that settles only after the output was read to its end, as the engine's contract says;
 * - refusals (`cannot resolve foreground…`, `refusing to SIGKILL…`) as `ForegroundSignalError`, which the
 *   engine turns into a `signal-refused` result instead of a broken queue;
 * - TERM: rc.8 spawns node-pty with `name: 'dumb'`, which overwrites TERM in the environment; the shell is
 *   therefore started through `/usr/bin/env TERM=<term>` so the configured terminal type wins.
 * - processes that escaped DSH's tree walk: the shell carries a process-tree mark in its environment, and
 *   after DSH's terminate every process still marked is ended too (`setsid cmd &` at the prompt leaves both
 *   the tree and the session once setsid's parent exits; see the engine's pty/process-tree.ts).
 * - on Linux, the engine's own inspector (who waits on the terminal, read from /proc without blocking DSH's
 *   event loop): rc.8's inspector sees only a plain read on fd 0, so relays, readers outside the job and
 *   the shell's own waits would go unseen; rc.8's stays the fallback where /proc cannot be read.
 * - before an interrupt is typed, the input its program has not read is dropped through the terminal's
 *   slave side, as a Ctrl-C drops it (the engine's pty/unread-input.ts); otherwise a full input buffer
 *   would hold the character back.
 * - a shell that stopped itself (`suspend`) is continued, as the engine's own handle does: no job control
 *   above it would.
 * rc.8's handle has no resize.
 */
import { promises as fs } from 'node:fs';
import {
  endProcessTree,
  ForegroundSignalError,
  LinuxInspector,
  newProcessTreeMark,
  PROCESS_TREE_VARIABLE,
  type ForegroundSignal,
  type InspectForegroundOptions,
  type PtyHandle,
  type PtyProvider,
  type PtySpawnSpec,
  type TerminalModes,
} from '@shared-terminal/server';
import type { SubprocessRuntime, SubprocessTerminalHandle } from './dsh-api.ts';

/** Where `env` lives on every platform the plugin supports (Linux and macOS). */
const ENV_PROGRAM = '/usr/bin/env';

/** The argv that starts `argv` with TERM set to `term` (unchanged when DSH's own `dumb` is wanted). */
export function withTerm(argv: readonly string[], term: string | undefined): string[] {
  if (!term || term === 'dumb') return [...argv];
  return [ENV_PROGRAM, `TERM=${term}`, ...argv];
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

class DshPtyHandle implements PtyHandle {
  readonly pid: number;
  readonly inputWaitDetection = process.platform === 'linux';
  readonly output: SubprocessTerminalHandle['output'];
  readonly done: PtyHandle['done'];
  private readonly handle: SubprocessTerminalHandle;
  private readonly treeMark: string;
  private readonly graceMs: number;
  /** The engine's inspector once the terminal's path is known; null where it cannot be used. */
  private inspector: LinuxInspector | null | undefined;

  constructor(handle: SubprocessTerminalHandle, treeMark: string, graceMs: number) {
    this.handle = handle;
    this.treeMark = treeMark;
    this.graceMs = graceMs;
    this.pid = handle.pid;
    this.output = handle.output;
    // A string decoder on the stream: multi-byte characters split across chunks are completed, not replaced.
    this.output.setEncoding('utf8');
    const ended = new Promise<void>((resolve) => {
      if (this.output.readableEnded) resolve();
      this.output.once('end', () => resolve());
      this.output.once('close', () => resolve());
      this.output.once('error', () => resolve());
    });
    this.done = Promise.all([handle.done, ended]).then(([exit]) => ({ exitCode: exit.exitCode, signal: exit.signal }));
  }

  write(data: string): Promise<void> {
    return Promise.resolve(this.handle.write(data));
  }

  async inspectForeground(options?: InspectForegroundOptions): ReturnType<PtyHandle['inspectForeground']> {
    const linux = await this.linuxInspector();
    if (linux) return linux.inspect({ ...options, treeMark: { name: PROCESS_TREE_VARIABLE, value: this.treeMark } });
    const info = await this.handle.inspectForeground();
    if (!info) return undefined;
    return { processGroupId: info.processGroupId, inputWaiting: info.inputWaiting };
  }

  /** The shell's terminal is its stdin (DSH starts it on the PTY's slave). */
  private async linuxInspector(): Promise<LinuxInspector | undefined> {
    if (process.platform !== 'linux' || this.inspector === null) return undefined;
    if (this.inspector) return this.inspector;
    try {
      const pts = await fs.readlink(`/proc/${this.pid}/fd/0`);
      this.inspector = pts.startsWith('/dev/pts/') ? new LinuxInspector(this.pid, pts) : null;
    } catch {
      this.inspector = null;
    }
    return this.inspector ?? undefined;
  }

  async terminalModes(): Promise<TerminalModes | undefined> {
    return (await this.linuxInspector())?.terminalModes();
  }

  /** Through the terminal's slave side, as the engine's own handle does (DSH's write queue is its own). */
  async discardUnreadInput(): Promise<void> {
    await (await this.linuxInspector())?.discardUnreadInput();
  }

  async signalForeground(signal: ForegroundSignal): Promise<number> {
    try {
      return await this.handle.signalForeground(signal);
    } catch (error) {
      throw new ForegroundSignalError(message(error));
    }
  }

  /** The shell stopped itself (`suspend`): DSH's runtime runs no job control above it, so nothing else would
   *  continue it. The pid is the one the inspector reads, on this machine. */
  continueShell(): void {
    try {
      process.kill(this.pid, 'SIGCONT');
    } catch {
      // gone meanwhile: its exit ends the terminal
    }
  }

  async terminate(): Promise<void> {
    await this.handle.terminate();
    await endProcessTree([], this.treeMark, this.graceMs);
  }
}

/** Adapt DSH's subprocess runtime (resolved when a shell is spawned, so a reloaded provider is used). */
export function createDshPtyProvider(runtime: () => SubprocessRuntime): PtyProvider {
  return {
    async spawn(spec: PtySpawnSpec): Promise<PtyHandle> {
      spec.signal?.throwIfAborted();
      const treeMark = newProcessTreeMark();
      const handle = await runtime().spawnTerminal({
        argv: withTerm(spec.argv, spec.term),
        cwd: spec.cwd,
        env: { ...spec.env, [PROCESS_TREE_VARIABLE]: treeMark },
        rows: spec.rows,
        cols: spec.cols,
        graceMs: spec.graceMs,
        ...(spec.signal ? { signal: spec.signal } : {}),
      });
      return new DshPtyHandle(handle, treeMark, spec.graceMs);
    },
  };
}
