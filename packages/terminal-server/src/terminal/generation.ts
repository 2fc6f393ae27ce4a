/**
 * One terminal generation: a PTY running bash, its shell integration, and the screen that mirrors it.
 *
 * Everything that touches the screen runs on one serial chain (ingest of each output chunk, snapshots,
 * captures, reads), so each of them sees a whole number of chunks. Output is read as fast as the screen
 * parses it; while a chunk is parsed the PTY stream buffers and, past its high-water mark, pauses the
 * PTY (back-pressure all the way to the program).
 *
 * Completion facts it reports to its observer (the owner's queue):
 * - prompt: the nonce's prompt-drawn marker was parsed, the kernel says bash itself is in front and
 *   waiting for input, and the cursor has not moved since the marker (no typed-ahead echo).
 * - stdin_read: a process of the foreground group is blocked reading the terminal, and it is not bash at
 *   its own prompt (bash's `read` builtin counts).
 * Each fact is stamped with the dispatch that was current when its evidence arrived.
 */
import { EventEmitter } from 'node:events';
import type { ForegroundInfo, ForegroundSignal, PtyExit, PtyHandle, PtyProvider } from '../pty/contract.ts';
import { type Cursor, type CaptureHandle, Screen, type ScreenSnapshot } from '../screen/screen.ts';
import { within } from '../time.ts';
import { MarkerFilter, prepareShellLaunch } from '../shell/integration.ts';
import type { TerminalConfig } from '../config.ts';

export type ProcessStatus = { kind: 'running' } | { kind: 'exited'; exitCode: number | null; signal: string | null };

export interface InputWait {
  processGroupId: number;
  command: string | undefined;
  /** ECHO off with ICANON on: a password-style prompt. */
  secret: boolean;
  /** The waiting program is bash itself (its `read` builtin). */
  shell: boolean;
}

export interface PromptFact {
  /** Exit status of the last command, when the shell reported one since the dispatch. */
  exitCode: number | undefined;
}

/** What the generation reports to, and asks of, the owner's queue. */
export interface GenerationObserver {
  /** The current dispatch number (stamps evidence). */
  dispatch(): number;
  /** What the active operation can be completed by; 'none' stops polling. */
  interest(): 'none' | 'prompt' | 'prompt-and-input';
  prompt(dispatch: number, fact: PromptFact): void;
  inputWait(dispatch: number, wait: InputWait): void;
}

/** Output as read from the PTY (shell markers taken out), numbered within its generation. */
export interface OutputEvent {
  generation: number;
  sequence: number;
  data: string;
  /** This chunk drew the shell's prompt (its marker was in it): a person is likely waiting to see it. */
  prompt?: true;
}

export interface GenerationEvents {
  output: [OutputEvent];
  exit: [ProcessStatus & { kind: 'exited' }];
}

export interface GenerationStartOptions {
  generation: number;
  config: TerminalConfig;
  provider: PtyProvider;
  cwd: string;
  baseEnv?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  /** Wrap the argv (sandbox confinement); applied before spawn. */
  wrapArgv?: (argv: string[]) => string[] | Promise<string[]>;
}

const PROMPT_SETTLE_MS = 2;
const INPUT_SETTLE_MS = 4;
/** Input just written may not have reached the reader yet (the line discipline delivers it from a kernel
 *  worker): a wait seen sooner than this after a write is not trusted. */
const WRITE_SETTLE_MS = 15;
const QUIET_CHECK_MS = 8;
/** Quiet time after which the screen moves old history rows into its compact archive. */
const COMPACT_IDLE_MS = 1500;
const COMPACT_STEP_ROWS = 500;
/** How long an unfinished escape sequence at the end of a chunk waits for its rest. */
const CARRY_FLUSH_MS = 20;
/** Characters handed to the emulator but not yet parsed, before the PTY stream is left unread. Small, as
 *  every snapshot (a view catching up with a flood) waits for what is queued, and a keystroke's echo in a
 *  flood is read only after everything before it: 32 Ki is ~5 ms of parse, and enough to keep the parser
 *  busy (the bench measured the same throughput as with 128 Ki). */
const MAX_PENDING_PARSE = 1 << 15;

export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

export class TerminalGeneration extends EventEmitter<GenerationEvents> {
  readonly generation: number;
  readonly rows: number;
  readonly cols: number;
  readonly pid: number;
  private readonly handle: PtyHandle;
  private readonly screen: Screen;
  private readonly filter: MarkerFilter;
  private readonly config: TerminalConfig;
  private observer: GenerationObserver | undefined;
  private sequenceNumber = 0;
  private booted = false;
  private bootWaiter: { resolve(): void; reject(error: Error): void } | undefined;
  private processStatus: ProcessStatus = { kind: 'running' };
  private disposed = false;
  // prompt evidence
  private lastStatus: { status: number; dispatch: number } | undefined;
  private promptMark: { dispatch: number; cursor: ReturnType<Screen['absoluteCursor']> } | undefined;
  private promptTimer: NodeJS.Timeout | undefined;
  // input-wait polling
  private pollTimer: NodeJS.Timeout | undefined;
  private inspecting = false;
  private pollDelay: number | undefined;
  private reportedWait: { dispatch: number; sequence: number } | undefined;
  private lastOutputAt = 0;
  private lastWriteAt = 0;
  private pendingParse = 0;
  private releaseParse: (() => void) | undefined;
  private pumped: Promise<void> = Promise.resolve();
  private compactTimer: NodeJS.Timeout | undefined;
  private carryTimer: NodeJS.Timeout | undefined;
  readonly done: Promise<ProcessStatus & { kind: 'exited' }>;

  private constructor(options: GenerationStartOptions, handle: PtyHandle, nonce: string) {
    super();
    this.generation = options.generation;
    this.config = options.config;
    this.rows = options.config.rows;
    this.cols = options.config.cols;
    this.handle = handle;
    this.pid = handle.pid;
    this.filter = new MarkerFilter(nonce);
    this.screen = new Screen(
      {
        rows: options.config.rows,
        cols: options.config.cols,
        scrollbackLines: options.config.scrollbackLines,
        scrollbackMaxBytes: options.config.scrollbackMaxBytes,
      },
      // The emulator answers terminal queries (CPR, DA...) itself, straight to the PTY, outside the queue:
      // these are the terminal's replies, not anybody's input.
      (reply) => {
        if (this.processStatus.kind === 'running') void Promise.resolve(this.handle.write(reply)).catch(() => undefined);
      },
    );
    this.done = new Promise((resolve) => this.once('exit', resolve));
  }

  /** Spawn bash and resolve once its first controlled prompt is drawn. */
  static async start(options: GenerationStartOptions): Promise<TerminalGeneration> {
    const { config } = options;
    const launch = prepareShellLaunch({ baseEnv: options.baseEnv ?? process.env, term: config.term, extraEnv: config.env });
    let argv = [config.shellPath, ...config.shellArgs];
    if (options.wrapArgv) argv = await options.wrapArgv(argv);
    options.signal?.throwIfAborted();
    const spawnSpec = {
      argv,
      cwd: options.cwd,
      env: launch.env,
      rows: config.rows,
      cols: config.cols,
      term: config.term,
      graceMs: config.disposeGraceMs,
      ...(options.signal ? { signal: options.signal } : {}),
    };
    const handle = await options.provider.spawn(spawnSpec);
    const generation = new TerminalGeneration(options, handle, launch.nonce);
    const booted = new Promise<void>((resolve, reject) => {
      generation.bootWaiter = { resolve, reject };
    });
    generation.pumped = generation.pumpOutput();
    void generation.watchExit();
    try {
      await Promise.resolve(handle.write(launch.bootInput));
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new StartupError(`the shell did not reach its controlled prompt within ${config.operationTimeoutMs} ms`)),
          config.operationTimeoutMs,
        );
      });
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(new StartupError('terminal creation was cancelled'));
        options.signal?.addEventListener('abort', onAbort, { once: true });
      });
      try {
        await Promise.race([booted, timeout, aborted]);
      } finally {
        clearTimeout(timer);
        if (onAbort) options.signal?.removeEventListener('abort', onAbort);
      }
    } catch (error) {
      await generation.terminate().catch(() => undefined);
      throw error;
    }
    return generation;
  }

  // ------------------------------------------------------------------ observation wiring

  setObserver(observer: GenerationObserver | undefined): void {
    this.observer = observer;
    this.kick();
  }

  /** The active operation changed (granted, written, settled): re-evaluate completion evidence now. */
  kick(): void {
    if (this.disposed || this.processStatus.kind !== 'running') return;
    if (this.promptMark) this.schedulePromptCheck();
    this.schedulePoll(QUIET_CHECK_MS);
  }

  get status(): ProcessStatus {
    return this.processStatus;
  }

  get sequence(): number {
    return this.sequenceNumber;
  }

  // ------------------------------------------------------------------ output

  /**
   * Read the PTY as fast as the screen parses it. Chunks are handed to the emulator without waiting for
   * each parse (it parses everything queued in one run); at most MAX_PENDING_PARSE characters wait
   * unparsed, beyond that the stream is left unread and, once its buffer fills, pauses the PTY.
   */
  private async pumpOutput(): Promise<void> {
    try {
      for await (const chunk of this.handle.output as AsyncIterable<string>) {
        if (this.carryTimer) clearTimeout(this.carryTimer);
        this.carryTimer = undefined;
        this.ingest(chunk);
        // A chunk that ended inside an escape sequence: its rest comes with the next chunk, or it goes out
        // as it is once the stream has paused.
        if (this.filter.holding) {
          this.carryTimer = setTimeout(() => {
            this.carryTimer = undefined;
            const rest = this.filter.flush();
            if (rest && !this.disposed) this.ingest('', rest);
          }, CARRY_FLUSH_MS);
          this.carryTimer.unref?.();
        }
        if (this.pendingParse > MAX_PENDING_PARSE) await new Promise<void>((resolve) => (this.releaseParse = resolve));
      }
      const rest = this.filter.flush();
      if (rest) this.ingest('', rest);
    } catch {
      // A stream error ends the output; the exit watcher reports the end of the process.
    }
  }

  private scheduleCompaction(): void {
    if (this.compactTimer) clearTimeout(this.compactTimer);
    this.compactTimer = setTimeout(() => {
      this.compactTimer = undefined;
      void this.compactNow();
    }, COMPACT_IDLE_MS);
    this.compactTimer.unref?.();
  }

  /** Run `task` once everything read so far is parsed, before anything read later is. */
  private atBoundary<T>(task: () => T): Promise<T> {
    return this.screen.atBoundary(task);
  }

  private ingest(chunk: string, raw?: string): void {
    const dispatch = this.observer?.dispatch() ?? 0;
    let { text, markers } = raw === undefined ? this.filter.push(chunk) : { text: raw, markers: [] };
    if (!this.booted) {
      // Everything before the first prompt hook (the echoed nonce line, startup noise) is discarded.
      const first = markers.find((m) => m.kind === 'D');
      if (!first) return;
      this.booted = true;
      text = text.slice(first.at);
      markers = markers.filter((m) => m.at >= first.at && m !== first).map((m) => ({ ...m, at: m.at - first.at }));
    }
    if (text.length === 0 && markers.length === 0) return;
    const sawPrompt = markers.some((m) => m.kind === 'B');
    if (text.length > 0) {
      // Views get output as it is read, not after the mirror parsed it (a keystroke's echo does not wait for
      // the parse queue); snapshots name the last chunk queued before them, so the two stay consistent.
      this.sequenceNumber += 1;
      // (A marker read alone, after its prompt's text, marks nothing: that prompt then waits its turn.)
      const event: OutputEvent = { generation: this.generation, sequence: this.sequenceNumber, data: text };
      if (sawPrompt) event.prompt = true;
      this.emit('output', event);
    }
    this.pendingParse += text.length;
    let written = 0;
    for (const marker of markers) {
      const before = marker.at > written ? text.slice(written, marker.at) : '';
      written = Math.max(written, marker.at);
      // The marker's effect is recorded when the screen has parsed exactly the text before it.
      this.screen.write(before, () => {
        if (before.length > 0) this.promptMark = undefined;
        if (marker.kind === 'D') {
          this.lastStatus = { status: marker.status, dispatch };
          this.promptMark = undefined;
        } else {
          this.promptMark = { dispatch, cursor: this.screen.absoluteCursor() };
        }
      });
    }
    this.screen.write(written < text.length ? text.slice(written) : '', () => {
      this.pendingParse -= text.length;
      if (this.releaseParse && this.pendingParse <= MAX_PENDING_PARSE / 2) {
        const release = this.releaseParse;
        this.releaseParse = undefined;
        release();
      }
      // Published once the first prompt is drawn, so the first operation starts right after it.
      if (this.bootWaiter && sawPrompt) {
        this.bootWaiter.resolve();
        this.bootWaiter = undefined;
      }
      if (text.length > 0) {
        this.lastOutputAt = performance.now();
        this.scheduleCompaction();
      }
      if (this.promptMark) this.schedulePromptCheck();
      else this.schedulePoll(QUIET_CHECK_MS);
    });
  }

  // ------------------------------------------------------------------ completion evidence

  private schedulePromptCheck(): void {
    if (this.promptTimer || !this.observer || this.observer.interest() === 'none') return;
    this.promptTimer = setTimeout(() => {
      this.promptTimer = undefined;
      void this.checkPrompt();
    }, PROMPT_SETTLE_MS);
  }

  /** Returns true when a prompt was reported. */
  private async checkPrompt(): Promise<boolean> {
    const mark = this.promptMark;
    const observer = this.observer;
    if (!mark || !observer || observer.interest() === 'none' || this.processStatus.kind !== 'running') return false;
    const info = await this.handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
    if (this.promptMark !== mark) return false; // more output arrived meanwhile
    const shellInFront = info !== undefined && info.processGroupId === this.pid;
    const waitsKnown = this.handle.inputWaitDetection === true;
    const shellWaiting = shellInFront && (!waitsKnown || (info.inputWaiting && info.inputCall !== 'read'));
    if (!shellWaiting) {
      // A forged marker, or bash not yet back in its line editor: the poll looks again.
      this.schedulePoll(this.config.pollIntervalMs);
      return false;
    }
    // Output still being parsed would move the cursor: look once everything read so far is parsed.
    const now = await this.atBoundary(() => this.screen.absoluteCursor());
    if (this.promptMark !== mark) return false;
    if (now.x !== mark.cursor.x || now.line !== mark.cursor.line || now.alternate) {
      // Something was drawn after the prompt (typed-ahead input): this prompt is no longer pristine.
      this.promptMark = undefined;
      this.schedulePoll(this.config.pollIntervalMs);
      return false;
    }
    const status = this.lastStatus;
    observer.prompt(mark.dispatch, { exitCode: status && status.dispatch === mark.dispatch ? status.status : undefined });
    return true;
  }

  private schedulePoll(delay: number): void {
    if (this.pollTimer || this.disposed || !this.observer || this.observer.interest() === 'none') return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      void this.poll();
    }, delay);
  }

  private async poll(): Promise<void> {
    const observer = this.observer;
    if (this.inspecting || !observer || this.disposed || this.processStatus.kind !== 'running') return;
    if (observer.interest() === 'none') return;
    this.inspecting = true;
    try {
      if (this.promptMark && (await this.checkPrompt())) return;
      const dispatch = observer.dispatch();
      if (dispatch < 0) {
        // A write is in flight: what the kernel shows now may predate it.
        this.pollDelay = 2;
        return;
      }
      const outputBefore = this.sequenceNumber;
      // A wait already reported for this dispatch, with no output since: nothing new to learn.
      if (this.reportedWait && this.reportedWait.dispatch === dispatch && this.reportedWait.sequence === outputBefore) return;
      // A program that is printing is not waiting for input: look again once output pauses.
      const sinceOutput = performance.now() - this.lastOutputAt;
      if (sinceOutput < QUIET_CHECK_MS) {
        this.pollDelay = Math.max(1, QUIET_CHECK_MS - sinceOutput);
        return;
      }
      const sinceWrite = performance.now() - this.lastWriteAt;
      if (sinceWrite < WRITE_SETTLE_MS) {
        this.pollDelay = Math.max(1, WRITE_SETTLE_MS - sinceWrite);
        return;
      }
      // The first sighting skips the terminal flags (a process spawn); the confirming one reads them.
      const info = await this.handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
      if (!info) return;
      if (this.isInputWait(info)) {
        // Let the program's own prompt text arrive and be parsed before the result is taken, and make
        // sure the wait is still there (not a reader that our input is about to wake).
        await new Promise((resolve) => setTimeout(resolve, INPUT_SETTLE_MS));
        await this.atBoundary(() => undefined);
        const again = await this.handle.inspectForeground().catch(() => undefined);
        if (
          again &&
          this.isInputWait(again) &&
          again.processGroupId === info.processGroupId &&
          again.inputCall === info.inputCall &&
          this.sequenceNumber === outputBefore &&
          observer.dispatch() === dispatch &&
          !this.promptMark
        ) {
          this.reportedWait = { dispatch, sequence: outputBefore };
          observer.inputWait(dispatch, {
            processGroupId: again.processGroupId,
            command: again.command,
            secret: again.secret === true,
            shell: info.processGroupId === this.pid,
          });
        }
        return;
      }
      // Fallback when PS1 lost its prompt-drawn marker (a user's own PS1): the exit-status marker came
      // after the latest write, bash is back in its line editor, and the terminal has been quiet.
      const status = this.lastStatus;
      if (
        !this.promptMark &&
        status?.dispatch === dispatch &&
        info.processGroupId === this.pid &&
        info.inputWaiting &&
        info.inputCall === 'poll' &&
        performance.now() - this.lastOutputAt > 2 * this.config.pollIntervalMs
      ) {
        observer.prompt(dispatch, { exitCode: status.status });
      }
    } finally {
      this.inspecting = false;
      const delay = this.pollDelay ?? this.config.pollIntervalMs;
      this.pollDelay = undefined;
      this.schedulePoll(delay);
    }
  }

  private isInputWait(info: ForegroundInfo): boolean {
    if (!info.inputWaiting) return false;
    if (info.processGroupId !== this.pid) return true;
    // bash itself: a blocking read() is its `read` builtin; its line editor polls at the prompt.
    if (info.inputCall === 'read') return true;
    if (info.inputCall === 'poll') return false;
    // A provider that cannot tell the two apart: no prompt marker and a quiet terminal for two polls.
    return performance.now() - this.lastOutputAt > 2 * this.config.pollIntervalMs;
  }

  // ------------------------------------------------------------------ reading

  /** A snapshot as of everything read so far; `history: false` for the current screen alone,
   *  `maxHistoryLines` for the newest rows of history alone. */
  snapshot(options: { history?: boolean; maxHistoryLines?: number } = {}): Promise<ScreenSnapshot & { generation: number }> {
    // Chunks read so far are queued before the boundary, later ones after it.
    const sequence = this.sequenceNumber;
    return this.atBoundary(() => ({ ...this.screen.snapshot(sequence, options), generation: this.generation }));
  }

  /** Viewport, cursor and sequence as of the last parsed chunk. */
  view(): Promise<{ sequence: number; viewport: string; cursor: Cursor; alternate: boolean }> {
    const sequence = this.sequenceNumber;
    return this.atBoundary(() => ({
      sequence,
      viewport: this.screen.viewportText(),
      cursor: this.screen.cursor(),
      alternate: this.screen.alternate,
    }));
  }

  readPage(offset: number, count: number, maxBytes: number): ReturnType<Screen['readPage']> extends infer R ? Promise<R> : never {
    return this.atBoundary(() => this.screen.readPage(offset, count, maxBytes)) as never;
  }

  beginCapture(): Promise<CaptureHandle> {
    return this.atBoundary(() => this.screen.beginCapture());
  }

  readCapture(capture: CaptureHandle): Promise<ReturnType<CaptureHandle['read']>> {
    return this.atBoundary(() => capture.read());
  }

  /** Move old history rows into the compact archive now (normally done after output is quiet). */
  async compactNow(): Promise<void> {
    // In steps of COMPACT_STEP_ROWS, yielding between them, so other terminals' keystrokes are not delayed.
    while (!this.disposed && (await this.atBoundary(() => this.screen.compact(COMPACT_STEP_ROWS)))) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** History rows inside the emulator itself, not yet archived (tests and diagnostics). */
  get emulatorHistoryRows(): number {
    return this.screen.emulatorHistory;
  }

  /** Full text of the screen's normal buffer (tests and diagnostics). */
  allText(): Promise<string> {
    return this.atBoundary(() => this.screen.allText());
  }

  // ------------------------------------------------------------------ acting

  async write(data: string): Promise<void> {
    if (this.processStatus.kind !== 'running') throw new Error('terminal is exited');
    // A write changes what the shell will do: evidence gathered before it no longer counts.
    this.promptMark = undefined;
    this.lastWriteAt = performance.now();
    await Promise.resolve(this.handle.write(data));
    this.lastWriteAt = performance.now();
    this.kick();
  }

  /** The process group in front of the terminal now (an inspection without the terminal flags, which
   *  would cost a process spawn). */
  async foregroundGroup(): Promise<number | undefined> {
    return (await this.handle.inspectForeground({ terminalFlags: false }).catch(() => undefined))?.processGroupId;
  }

  signalForeground(signal: ForegroundSignal): Promise<number> {
    return this.handle.signalForeground(signal);
  }

  private async watchExit(): Promise<void> {
    const exit: PtyExit = await this.handle.done.catch(() => ({ exitCode: null, signal: 'unknown' }));
    // The output has ended; let the screen parse the last of it before the exit is reported.
    await this.pumped;
    await this.atBoundary(() => undefined);
    this.processStatus = { kind: 'exited', exitCode: exit.exitCode, signal: exit.signal };
    this.clearTimers();
    this.bootWaiter?.reject(new StartupError(`the shell exited before its first prompt (exit code ${exit.exitCode}, signal ${exit.signal})`));
    this.emit('exit', this.processStatus);
  }

  /** End the process tree; resolves once it is gone and its output drained. */
  async terminate(): Promise<void> {
    this.disposed = true;
    this.clearTimers();
    this.releaseParse?.();
    await this.handle.terminate();
    await within(this.done, 1000);
  }

  /** Release the emulator; call after terminate. */
  dispose(): void {
    this.disposed = true;
    this.clearTimers();
    this.screen.dispose();
    this.removeAllListeners('output');
  }

  private clearTimers(): void {
    if (this.promptTimer) clearTimeout(this.promptTimer);
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.compactTimer) clearTimeout(this.compactTimer);
    if (this.carryTimer) clearTimeout(this.carryTimer);
    this.compactTimer = undefined;
    this.carryTimer = undefined;
    this.promptTimer = undefined;
    this.pollTimer = undefined;
  }
}
