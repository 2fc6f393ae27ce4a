/**
 * Runs `stty -a -F <terminal>` for the engine without forking the server.
 *
 * Node has no tcgetattr, so the terminal's flags come from `stty`. Spawning it from the server costs more
 * than the run itself: libuv forks the whole server process and waits for the exec, which blocks the
 * event loop, every terminal's parse and every socket for 5–10 ms per spawn. One small shell, started on
 * first use, forks `stty` instead (its fork is cheap) and answers over a pipe. Requests are answered in
 * order; each answer ends with a record separator and stty's exit status (stty prints control characters
 * as `^X`, never that byte). If the shell cannot be used, each read falls back to a spawn of its own.
 */
import { type ChildProcessByStdio, execFile, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** An answer that does not come within this ends the shell (a stuck stty): that read gets nothing. */
const ANSWER_TIMEOUT_MS = 2000;
/** A shell with nothing to do for this long ends: a host with no terminal waiting keeps no extra process. */
const IDLE_MS = 60_000;
const END = '\x1e';
// `read -r` keeps backslashes; stty's own stdin is /dev/null so it cannot eat the next request.
const LOOP = `while IFS= read -r p; do stty -a -F "$p" </dev/null 2>/dev/null; printf '${END}%s\\n' "$?"; done`;

type Shell = ChildProcessByStdio<Writable, Readable, null>;

/** started: no answer yet (a shell that ends so was never usable); answering: it has answered; ended. */
type ShellState = 'started' | 'answering' | 'ended';

interface Request {
  path: string;
  resolve(output: string | undefined): void;
}

class SttyShell {
  private readonly child: Shell;
  private readonly waiting: Request[] = [];
  private buffer = '';
  private timer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private state: ShellState = 'started';

  /** `onEnd(unusable)`: the shell is gone; unusable when it never answered (later reads spawn stty). */
  private readonly onEnd: (unusable: boolean) => void;

  constructor(onEnd: (unusable: boolean) => void) {
    this.onEnd = onEnd;
    // Its own session: a Ctrl-C meant for the host's terminal must not end it.
    this.child = spawn('/bin/sh', ['-c', LOOP], { stdio: ['pipe', 'pipe', 'ignore'], detached: true });
    // The shell must not keep the server alive; it ends by itself when its stdin closes with the server.
    this.child.unref();
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (text: string) => this.take(text));
    this.child.on('error', () => this.end());
    this.child.on('exit', () => this.end());
    this.child.stdin.on('error', () => this.end());
    (this.child.stdin as Writable & { unref?: () => void }).unref?.();
    this.holdProcess(false);
  }

  /** While a read is awaited its answer keeps the process alive, as a spawn of stty would; idle, nothing does. */
  private holdProcess(hold: boolean): void {
    const pipe = this.child.stdout as Readable & { ref?: () => void; unref?: () => void };
    if (hold) pipe.ref?.();
    else pipe.unref?.();
  }

  ask(path: string): Promise<string | undefined> {
    if (this.state === 'ended') return spawnStty(path);
    return new Promise((resolve) => {
      this.waiting.push({ path, resolve });
      this.child.stdin.write(`${path}\n`);
      if (!this.timer) this.arm();
    });
  }

  private take(text: string): void {
    this.buffer += text;
    for (;;) {
      const end = this.buffer.indexOf(END);
      const newline = end < 0 ? -1 : this.buffer.indexOf('\n', end);
      if (newline < 0) return;
      const output = this.buffer.slice(0, end);
      const status = this.buffer.slice(end + 1, newline);
      this.buffer = this.buffer.slice(newline + 1);
      this.state = 'answering';
      this.waiting.shift()?.resolve(status === '0' ? output : undefined);
      this.arm();
    }
  }

  /** One timer, for the oldest read still awaited: armed when it becomes the oldest. */
  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.state === 'ended') return;
    this.holdProcess(this.waiting.length > 0);
    if (this.waiting.length === 0) return this.idle();
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    this.timer = setTimeout(() => this.end(true), ANSWER_TIMEOUT_MS);
    this.timer.unref();
  }

  /** Nothing awaited: end the shell if nothing comes for IDLE_MS (its stdin closed, it exits by itself). */
  private idle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.waiting.length > 0 || this.state === 'ended') return;
      this.state = 'ended';
      this.child.stdin.end();
      this.onEnd(false);
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  /** The shell is gone (it died, or `stuck`: the oldest read got no answer in time). */
  private end(stuck = false): void {
    if (this.state === 'ended') return;
    const unusable = this.state === 'started';
    this.state = 'ended';
    if (this.timer) clearTimeout(this.timer);
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.child.kill('SIGKILL');
    const waiting = this.waiting.splice(0);
    // A stuck read gets nothing; the rest were never run, so each spawns stty of its own.
    if (stuck) waiting.shift()?.resolve(undefined);
    for (const request of waiting) void spawnStty(request.path).then(request.resolve);
    this.onEnd(unusable);
  }
}

let shell: SttyShell | undefined;
/** The shell could not run at all (no /bin/sh): spawn stty directly from then on. */
let shellUnusable = false;

/** `stty -a -F path`'s output, or undefined when it failed (no such terminal, no stty). */
export function runStty(path: string): Promise<string | undefined> {
  if (shellUnusable || /[\n\0]/.test(path)) return spawnStty(path);
  shell ??= new SttyShell((unusable) => {
    shell = undefined;
    if (unusable) shellUnusable = true;
  });
  return shell.ask(path);
}

function spawnStty(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('stty', ['-a', '-F', path], { timeout: ANSWER_TIMEOUT_MS }, (error, stdout) => resolve(error ? undefined : stdout));
  });
}
