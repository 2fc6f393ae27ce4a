/**
 * The node-pty provider: spawns the shell as a session leader on a new PTY and answers the contract from
 * the kernel (/proc on Linux, `ps` on macOS).
 */
import { constants } from 'node:os';
import { Readable } from 'node:stream';
import * as nodePty from 'node-pty';
import {
  type ForegroundInfo,
  type ForegroundSignal,
  type InspectForegroundOptions,
  type PtyExit,
  type PtyHandle,
  type PtyProvider,
  type PtySpawnSpec,
  type TerminalModes,
} from './contract.ts';
import { sleep, within } from '../time.ts';
import { signalFront } from './signal-front.ts';
import { descendantPids, inspectDarwinForeground, readProcStatSync, sessionProcesses } from './procfs.ts';
import { LinuxInspector } from './linux-inspector.ts';
import { endProcessTree, newProcessTreeMark, PROCESS_TREE_VARIABLE } from './process-tree.ts';
import { openContainment, type TerminalContainment } from './containment.ts';
import { type MasterDescriptor, MasterWriter } from './master-writer.ts';

class NodePtyHandle implements PtyHandle {
  readonly pid: number;
  readonly inputWaitDetection = process.platform === 'linux';
  readonly output: Readable;
  readonly done: Promise<PtyExit>;
  private readonly pty: nodePty.IPty;
  private readonly ptsPath: string;
  private readonly graceMs: number;
  private readonly treeMark: string;
  private readonly containment: TerminalContainment;
  private exited = false;
  private inspector: LinuxInspector | undefined;
  /** Writes straight to the master where node-pty shows it (see master-writer.ts); else node-pty's own. */
  private readonly writer: MasterWriter | undefined;

  constructor(pty: nodePty.IPty, graceMs: number, treeMark: string, containment: TerminalContainment) {
    this.pty = pty;
    this.containment = containment;
    this.pid = pty.pid;
    this.graceMs = graceMs;
    this.treeMark = treeMark;
    this.ptsPath = (pty as unknown as { ptsName?: string }).ptsName ?? '';
    const master = masterOf(pty);
    this.writer = master ? new MasterWriter(master) : undefined;
    const output = new Readable({
      encoding: 'utf8',
      highWaterMark: 256 * 1024,
      read: () => pty.resume(),
    });
    this.output = output;
    pty.onData((data) => {
      if (!output.push(data)) pty.pause();
    });
    const exit = new Promise<PtyExit>((resolve) => {
      pty.onExit(({ exitCode, signal }) => {
        this.exited = true;
        this.inspector?.close();
        this.writer?.discard();
        resolve({ exitCode: signal ? null : exitCode, signal: signal ? signalName(signal) : null });
        // node-pty reports exit only after its socket closed, so every byte was pushed already.
        output.push(null);
      });
    });
    const ended = new Promise<void>((resolve) => output.once('end', resolve));
    this.done = Promise.all([exit, ended]).then(([result]) => result);
  }

  write(data: string): void {
    if (this.exited) throw new Error('terminal is exited');
    if (this.writer) this.writer.write(data);
    else this.pty.write(data);
  }

  inspectForeground(options?: InspectForegroundOptions): Promise<ForegroundInfo | undefined> {
    if (this.exited) return Promise.resolve(undefined);
    if (process.platform === 'linux') {
      return this.linuxInspector().inspect({ ...options, treeMark: { name: PROCESS_TREE_VARIABLE, value: this.treeMark } });
    }
    return inspectDarwinForeground(this.pid);
  }

  bytesRead(): number | undefined {
    if (this.exited || process.platform !== 'linux') return undefined;
    return this.linuxInspector().shellCharCount();
  }

  async terminalModes(): Promise<TerminalModes | undefined> {
    if (this.exited || process.platform !== 'linux') return undefined;
    return this.linuxInspector().terminalModes();
  }

  async discardUnreadInput(): Promise<void> {
    this.writer?.discard();
    if (this.exited || process.platform !== 'linux') return;
    await this.linuxInspector().discardUnreadInput();
  }

  /** Made at the first look; its kept files are closed when the shell exits. */
  private linuxInspector(): LinuxInspector {
    this.inspector ??= new LinuxInspector(this.pid, this.ptsPath);
    return this.inspector;
  }

  continueShell(): void {
    if (this.exited) return;
    try {
      process.kill(this.pid, 'SIGCONT');
    } catch {
      // gone meanwhile: its exit ends the terminal
    }
  }

  /** Signal the foreground process group as it is at the moment of the kill (see signal-front.ts). */
  signalForeground(signal: ForegroundSignal): Promise<number> {
    return signalFront(
      {
        readGroup: () => this.foregroundGroup(),
        killGroup: (pgid, name) => process.kill(-pgid, name),
        pause: sleep,
        now: () => performance.now(),
      },
      signal,
      this.pid,
    );
  }

  private async foregroundGroup(): Promise<number | undefined> {
    if (this.exited) return undefined;
    if (process.platform === 'linux') {
      const shell = readProcStatSync(this.pid);
      return shell && shell.state !== 'Z' && shell.tpgid > 0 ? shell.tpgid : undefined;
    }
    return (await inspectDarwinForeground(this.pid))?.processGroupId;
  }

  async terminate(): Promise<void> {
    // Collect the tree first: a process that left the session (setsid) is still a descendant until its
    // parent exits, and marked after that (see process-tree.ts).
    const pids = new Set<number>([this.pid]);
    if (process.platform === 'linux') {
      for (const pid of await descendantPids(this.pid)) pids.add(pid);
      for (const stat of await sessionProcesses(this.pid)) pids.add(stat.pid);
    }
    await endProcessTree(pids, this.treeMark, this.graceMs);
    // What escaped both the session and the mark (`setsid env -i cmd &`) is still in the cgroup.
    await this.containment.end();
    try {
      this.pty.kill('SIGKILL');
    } catch {
      // already gone
    }
    // Zombies count as alive to kill(0) until reaped; wait for the shell's own exit report.
    await within(this.done, this.graceMs + 2000);
    this.output.resume();
  }
}

/**
 * node-pty's master descriptor on Unix (its `fd`), closed when the stream that reads it is destroyed; undefined
 * where this node-pty does not show them (Windows, another version), and writes go through node-pty.
 */
function masterOf(pty: nodePty.IPty): MasterDescriptor | undefined {
  const unix = pty as unknown as { fd?: unknown; _socket?: { destroyed?: unknown } };
  const socket = unix._socket;
  if (typeof unix.fd !== 'number' || socket === undefined || typeof socket.destroyed !== 'boolean') return undefined;
  return { fd: unix.fd, closed: () => socket.destroyed === true };
}

function signalName(signal: number): string {
  for (const [name, value] of Object.entries(constants.signals)) if (value === signal) return name;
  return String(signal);
}

/** The provider that the standalone server and the tests use. */
export function createNodePtyProvider(): PtyProvider {
  return {
    async spawn(spec: PtySpawnSpec): Promise<PtyHandle> {
      spec.signal?.throwIfAborted();
      const [file, ...args] = spec.argv;
      if (!file) throw new Error('spawn needs an executable in argv[0]');
      const treeMark = newProcessTreeMark();
      const containment = openContainment();
      const [wrappedFile, ...wrappedArgs] = containment.wrap([file, ...args]);
      const pty = nodePty.spawn(wrappedFile!, wrappedArgs, {
        name: spec.term ?? spec.env['TERM'] ?? 'xterm-256color',
        cols: spec.cols,
        rows: spec.rows,
        cwd: spec.cwd,
        env: { ...spec.env, [PROCESS_TREE_VARIABLE]: treeMark },
      });
      containment.started(pty.pid, treeMark);
      return new NodePtyHandle(pty, spec.graceMs, treeMark, containment);
    },
  };
}
