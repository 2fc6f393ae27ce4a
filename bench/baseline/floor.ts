/**
 * The floor: what the same work costs with nothing of the product in the way. A bare node-pty running the
 * product's bash exactly as the engine starts it (its shell path and arguments, its environment, its
 * markers, its size), and nothing else: no queue, no mirror, no protocol, no page. Each figure the product
 * is judged against is measured here in the same run, so the machine's load hits both alike.
 *
 * - write to prompt: a command line written, until the prompt mark (`633;B`) of the next prompt is read;
 *   with `parse`, until a headless xterm.js fed every chunk has parsed it too (fed as the product feeds its
 *   own: a short chunk handed to an idle emulator is parsed at once, see feedParser);
 * - the reader seen: `read x` written, then a loop reading /proc/<bash>/syscall as fast as it can (one look
 *   per turn of the event loop) until bash sleeps in read(2) on the terminal (the kernel fact the engine
 *   uses), with no quiet window and no second look;
 * - read rate: a flood of known size, until its end line is read (the bytes are dropped as they come);
 *   with `parse`, each chunk also goes to a headless xterm.js of the same size and history cap, and the
 *   flood counts as read once its end line is parsed: the least a terminal that keeps a screen pays;
 * - echo: a letter written at bash's prompt, until a chunk carrying it is read (with floods running in
 *   other floors of the same process, what the machine alone does to a quiet terminal's echo).
 */
import { readFileSync } from 'node:fs';
import { spawn, type IPty } from 'node-pty';
import headless from '@xterm/headless';
import { resolveConfig } from '@shared-terminal/server';
// The floor starts bash exactly as the engine does; that launch is internal to the server, not a host API.
import { prepareShellLaunch } from '../../packages/terminal-server/src/shell/integration.ts';
import { IMMEDIATE_PARSE_MAX_CHARS } from '../../packages/terminal-server/src/screen/screen.ts';

interface Waiter {
  pattern: string;
  resolve(at: number): void;
}

/** Characters kept from the previous chunk, so a pattern split across two reads is still found. */
const TAIL = 128;
/** Letters typed by `echoTimes`; each is awaited on its own, so nothing else on a quiet prompt prints them. */
const ECHO_LETTERS = 'abcdefghijkl';
/** The line typed by `echoTimes` is cleared (Ctrl-U) after this many letters, long before it wraps. */
const CLEAR_EVERY = 40;
/** An echo not read within this long counts as missed. */
const ECHO_WAIT_MS = 2000;
/** How long `kill` waits for bash to end after its hang-up before it kills it. */
const KILL_GRACE_MS = 1000;

export class Floor {
  private readonly pty: IPty;
  private readonly nonce: string;
  private tail = '';
  private readonly waiters = new Set<Waiter>();
  /** The emulator a parsing run feeds while it runs (see writeToPrompt and readRate). */
  private parser: InstanceType<typeof headless.Terminal> | undefined;
  /** The one emulator every parsing `writeToPrompt` feeds: warm, like the product's, so the figure is the
   *  parse and not a new emulator's first allocations. */
  private promptParser: InstanceType<typeof headless.Terminal> | undefined;
  /** Writes handed to the parsing run's emulator and not yet parsed. */
  private parserQueued = 0;
  private readonly size: { rows: number; cols: number; scrollback: number };
  readonly ready: Promise<void>;

  constructor(options: { cwd: string; rows: number; cols: number }) {
    const config = resolveConfig({ rows: options.rows, cols: options.cols });
    const launch = prepareShellLaunch({ baseEnv: process.env, shellPath: config.shellPath, term: config.term, extraEnv: config.env });
    this.nonce = launch.nonce;
    this.size = { rows: config.rows, cols: config.cols, scrollback: config.scrollbackLines };
    this.pty = spawn(config.shellPath, config.shellArgs, {
      name: config.term,
      cwd: options.cwd,
      rows: config.rows,
      cols: config.cols,
      env: launch.env,
    });
    this.pty.onData((data) => {
      const at = performance.now();
      if (this.parser) this.feedParser(this.parser, data);
      const text = this.tail + data;
      for (const waiter of [...this.waiters]) {
        if (!text.includes(waiter.pattern)) continue;
        this.waiters.delete(waiter);
        waiter.resolve(at);
      }
      this.tail = text.slice(-TAIL);
    });
    const first = this.next(this.promptMark);
    this.pty.write(launch.bootInput);
    this.ready = first.then(() => undefined);
  }

  private get promptMark(): string {
    return `\x1b]633;B;${this.nonce};`;
  }

  /** When the next chunk read from now on carries `pattern` (performance.now() at its arrival). */
  private next(pattern: string, timeoutMs = 30_000): Promise<number> {
    if (this.waiters.size === 0) this.tail = '';
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`floor: no ${JSON.stringify(pattern)} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        pattern,
        resolve: (at) => {
          clearTimeout(timer);
          resolve(at);
        },
      };
      this.waiters.add(waiter);
    });
  }

  /**
   * `text` + Enter written, until the next prompt is drawn: ms. `parse`: until a headless xterm.js of the
   * product's size, fed every chunk as it is read, has also parsed the prompt (what it takes any terminal
   * that keeps a screen to know what is on it).
   */
  async writeToPrompt(text: string, parse = false): Promise<number> {
    if (parse) this.promptParser ??= new headless.Terminal({ ...this.size, allowProposedApi: true, logLevel: 'off' });
    const parser = parse ? this.promptParser : undefined;
    this.parser = parser;
    try {
      const prompt = this.next(this.promptMark);
      const start = performance.now();
      this.pty.write(`${text}\r`);
      let end = await prompt;
      if (parser) end = await new Promise<number>((resolve) => this.feedParser(parser, '', () => resolve(performance.now())));
      return end - start;
    } finally {
      this.parser = undefined;
    }
  }

  /**
   * `text` (a command whose shell reads a line: `read x`) written, until /proc shows bash asleep in read(2)
   * on fd 0; then the answer (untimed) until the prompt. Looks at the file once per turn of the loop;
   * null when it never saw the reader within 10 s.
   */
  async readerSeen(text: string, answer: string): Promise<number | null> {
    const file = `/proc/${this.pty.pid}/syscall`;
    const start = performance.now();
    this.pty.write(`${text}\r`);
    let seen: number | null = null;
    while (seen === null && performance.now() - start < 10_000) {
      // One turn of the event loop between looks: node-pty writes through the thread pool, and a write
      // queued behind one whose completion has not run yet goes out only once the loop turns.
      await new Promise((resolve) => setImmediate(resolve));
      let line: string;
      try {
        line = readFileSync(file, 'utf8');
      } catch {
        continue; // a read of the file can fail while the task changes state: look again
      }
      // x86_64: read is syscall 0; its first argument, the fd, is 0 (the terminal).
      if (line.startsWith('0 0x0 ')) seen = performance.now() - start;
    }
    const prompt = this.next(this.promptMark);
    this.pty.write(`${answer}\r`);
    await prompt;
    return seen;
  }

  /**
   * `command` (which prints `bytes` bytes and then `doneText`) written, until `doneText` is read: MB/s.
   * `parse`: until it is also parsed by a headless xterm.js of the product's size and history cap, fed
   * every chunk as it is read (no flow control: the emulator queues what it has not parsed yet).
   */
  async readRate(command: string, doneText: string, bytes: number, parse = false): Promise<{ mbPerSecond: number; seconds: number }> {
    const parser = parse ? new headless.Terminal({ ...this.size, allowProposedApi: true, logLevel: 'off' }) : undefined;
    this.parser = parser;
    try {
      const done = this.next(doneText, 120_000);
      const prompt = this.next(this.promptMark, 120_000);
      const start = performance.now();
      this.pty.write(`${command}\r`);
      let end = await done;
      if (parser) end = await new Promise<number>((resolve) => this.feedParser(parser, '', () => resolve(performance.now())));
      const seconds = (end - start) / 1000;
      await prompt;
      return { seconds, mbPerSecond: bytes / 1e6 / seconds };
    } finally {
      this.parser = undefined;
      parser?.dispose();
    }
  }

  /** Hand `data` to `parser` the way the product's screen does (packages/terminal-server/src/screen/screen.ts):
   *  short text given to an emulator with nothing queued is parsed at once, the rest on its timer turn. */
  private feedParser(parser: InstanceType<typeof headless.Terminal>, data: string, parsed?: () => void): void {
    if (this.parserQueued === 0 && data.length <= IMMEDIATE_PARSE_MAX_CHARS) parser.input('', true);
    this.parserQueued += 1;
    parser.write(data, () => {
      this.parserQueued -= 1;
      parsed?.();
    });
  }

  /** Write a command line (a background flood) without waiting for anything. */
  start(command: string): void {
    this.pty.write(`${command}\r`);
  }

  /**
   * `keys` letters typed at the prompt one at a time, each until a chunk carrying it is read (ms each;
   * missed: none within ECHO_WAIT_MS). The line is cleared now and then so that it never wraps.
   */
  async echoTimes(keys: number): Promise<{ times: number[]; missed: number }> {
    const times: number[] = [];
    let missed = 0;
    for (let i = 0; i < keys; i++) {
      const letter = ECHO_LETTERS[i % ECHO_LETTERS.length]!;
      const echoed = this.next(letter, ECHO_WAIT_MS).catch(() => undefined);
      const start = performance.now();
      this.pty.write(letter);
      const at = await echoed;
      if (at === undefined) missed += 1;
      else times.push(at - start);
      if (i % CLEAR_EVERY === CLEAR_EVERY - 1) this.pty.write('\x15');
      // A person's pace, uneven so that keys do not fall in step with the floods' own rhythm.
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 20));
    }
    this.pty.write('\x15');
    return { times, missed };
  }

  /** SIGHUP, then SIGKILL if bash is still there after KILL_GRACE_MS: bash in its line editor has been seen
   *  to take a hang-up and go on waiting (after a line was typed and cleared with Ctrl-U). */
  kill(): Promise<void> {
    this.promptParser?.dispose();
    this.promptParser = undefined;
    return new Promise((resolve) => {
      const force = setTimeout(() => this.pty.kill('SIGKILL'), KILL_GRACE_MS);
      this.pty.onExit(() => {
        clearTimeout(force);
        resolve();
      });
      this.pty.kill('SIGHUP');
    });
  }
}
