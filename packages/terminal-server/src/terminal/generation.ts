/**
 * One terminal generation: a PTY running bash, its shell integration, and the screen that mirrors it.
 *
 * Everything that touches the screen runs on one serial chain (ingest of each output chunk, snapshots,
 * captures, reads), so each of them sees a whole number of chunks. Output is read as fast as the screen
 * parses it; while a chunk is parsed the PTY stream buffers and, past its high-water mark, pauses the
 * PTY (back-pressure all the way to the program). The completion evidence is gathered by its
 * CompletionWatch (completion-watch.ts), which this generation feeds with each mark where the screen
 * parsed it, with writes and with output.
 */
import { EventEmitter } from 'node:events';
import type { ForegroundSignal, PtyExit, PtyHandle, PtyProvider } from '../pty/contract.ts';
import type { CaptureHandle, CaptureResult } from '../screen/capture.ts';
import { type Cursor, type OutputEnd, Screen, type ScreenPage, type ScreenSnapshot } from '../screen/screen.ts';
import { within } from '../time.ts';
import { MarkerFilter, prepareShellLaunch } from '../shell/integration.ts';
import type { WaitFacts } from './evidence.ts';
import { CompletionWatch, type GenerationObserver } from './completion-watch.ts';
import type { TerminalConfig } from '../config.ts';

export type ProcessStatus = { kind: 'running' } | { kind: 'exited'; exitCode: number | null; signal: string | null };

/** A program waits for input (see evidence.ts for each field). */
export type InputWait = WaitFacts;

export type { GenerationObserver, PromptFact } from './completion-watch.ts';

/** The visible screen as of one output sequence. */
export interface GenerationView {
  sequence: number;
  viewport: string;
  cursor: Cursor;
  alternate: boolean;
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

/** Quiet time after which the screen moves old history rows into its compact archive. */
const COMPACT_IDLE_MS = 1500;
const COMPACT_STEP_ROWS = 500;
/** How long an unfinished escape sequence at the end of a chunk waits for its rest. */
const CARRY_FLUSH_MS = 20;
/** Characters handed to the emulator but not yet parsed, before the PTY stream is left unread. Small, as
 *  every snapshot (a view catching up with a flood) waits for what is queued, and a keystroke's echo in a
 *  flood is read only after everything before it; large enough to keep the parser busy (bench/REPORT.md). */
const MAX_PENDING_PARSE = 1 << 15;
/** The keys a person presses for these signals (Ctrl-C, Ctrl-Z), whatever the terminal's own settings: a
 *  relay in front passes them on as they are, to a terminal whose settings we may not see (ssh). */
const RELAY_KEYS: Partial<Record<ForegroundSignal, string>> = { SIGINT: '\x03', SIGTSTP: '\x1a' };

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
  /** Characters of output read since the start (marks left out). */
  private charsRead = 0;
  private booted = false;
  private bootWaiter: { resolve(): void; reject(error: Error): void } | undefined;
  private processStatus: ProcessStatus = { kind: 'running' };
  private disposed = false;
  private readonly watch: CompletionWatch;
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
      // these are the terminal's replies, not anybody's input. The program sleeps until one arrives, as it
      // would for input: the watch gives a reply the same time to arrive as a write.
      (reply) => {
        if (this.processStatus.kind !== 'running') return;
        this.watch.written();
        void Promise.resolve(this.handle.write(reply))
          .then(() => this.watch.written())
          .catch(() => undefined);
      },
    );
    this.done = new Promise((resolve) => this.once('exit', resolve));
    this.watch = new CompletionWatch({
      pid: this.pid,
      handle,
      screen: this.screen,
      nonce,
      pollIntervalMs: options.config.pollIntervalMs,
      observer: () => this.observer,
      disposed: () => this.disposed,
      running: () => this.processStatus.kind === 'running',
      sequence: () => this.sequenceNumber,
      charsRead: () => this.charsRead,
      readingPaused: () => this.releaseParse !== undefined,
      atBoundary: (task) => this.atBoundary(task),
      write: (data) => this.write(data),
    });
  }

  /** Spawn bash and resolve once its first controlled prompt is drawn. */
  static async start(options: GenerationStartOptions): Promise<TerminalGeneration> {
    const { config } = options;
    const launch = prepareShellLaunch({
      baseEnv: options.baseEnv ?? process.env,
      shellPath: config.shellPath,
      term: config.term,
      extraEnv: config.env,
    });
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
    this.watch.kick();
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
    // Output keeps coming: the same timer starts over (cheaper than a new one per chunk).
    if (this.compactTimer) {
      this.compactTimer.refresh();
      return;
    }
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
    if (text.length > 0) this.sequenceNumber += 1;
    this.charsRead += text.length;
    this.pendingParse += text.length;
    let written = 0;
    for (const marker of markers) {
      const before = marker.at > written ? text.slice(written, marker.at) : '';
      written = Math.max(written, marker.at);
      // The marker's effect is recorded when the screen has parsed exactly the text before it.
      this.screen.write(before, () => this.watch.mark(marker, dispatch, before.length > 0));
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
        // The first operation starts once the line editor's depth is known too (a few ms).
        const waiter = this.bootWaiter;
        this.bootWaiter = undefined;
        void this.watch.learnPromptStack().finally(() => waiter.resolve());
      }
      if (text.length > 0) this.scheduleCompaction();
      this.watch.parsed(text.length > 0);
    });
    if (text.length > 0) {
      // Views get output as it is read, not after the mirror parsed it (a keystroke's echo does not wait for
      // the parse queue). It goes out once the chunk is queued for parsing: a snapshot a listener asks for
      // here then names this chunk and is cut after it, so the two stay consistent.
      // (A marker read alone, after its prompt's text, marks nothing: that prompt then waits its turn.)
      const event: OutputEvent = { generation: this.generation, sequence: this.sequenceNumber, data: text };
      if (sawPrompt) event.prompt = true;
      this.emit('output', event);
    }
  }

  // ------------------------------------------------------------------ reading

  /** A snapshot as of everything read so far; `history: false` for the current screen alone,
   *  `maxHistoryLines` for the newest rows of history alone. */
  snapshot(options: { history?: boolean; maxHistoryLines?: number } = {}): Promise<ScreenSnapshot & { generation: number }> {
    // Chunks read so far are queued before the boundary, later ones after it.
    const sequence = this.sequenceNumber;
    return this.atBoundary(() => ({ ...this.screen.snapshot(sequence, options), generation: this.generation }));
  }

  /** Viewport, cursor and sequence as of the last chunk read. */
  view(): Promise<GenerationView> {
    const sequence = this.sequenceNumber;
    return this.atBoundary(() => this.viewAt(sequence));
  }

  /** A page of history and the view it belongs to, read at one screen boundary (`sequence` names both). */
  readPage(offset: number, count: number, maxBytes: number): Promise<{ view: GenerationView; page: ScreenPage & { truncated: boolean } }> {
    const sequence = this.sequenceNumber;
    return this.atBoundary(() => ({ view: this.viewAt(sequence), page: this.screen.readPage(offset, count, maxBytes) }));
  }

  beginCapture(): Promise<CaptureHandle> {
    // On a line typed and not yet submitted, the operation's command line is that whole line.
    return this.atBoundary(() => this.screen.beginCapture(this.watch.openLineStart()));
  }

  /** What a full-screen program shows now, for an operation that began at `capture` (see Screen.fullScreen). */
  fullScreen(capture: CaptureHandle): Promise<{ lines: string[]; rowsBefore: number } | undefined> {
    // On the normal screen nothing waits for the parse: an interrupt under a flood goes in at once.
    if (!this.screen.alternate) return Promise.resolve(undefined);
    return this.atBoundary(() => this.screen.fullScreen(capture));
  }

  /** An operation's output (up to `end`, where its prompt began) and the view it ended on, at one boundary. */
  readCapture(capture: CaptureHandle, end?: OutputEnd): Promise<{ view: GenerationView; capture: CaptureResult }> {
    const sequence = this.sequenceNumber;
    return this.atBoundary(() => ({ view: this.viewAt(sequence), capture: capture.read(end) }));
  }

  /** Call at a boundary where everything up to `sequence` is parsed. */
  private viewAt(sequence: number): GenerationView {
    return { sequence, viewport: this.screen.viewportText(), cursor: this.screen.cursor(), alternate: this.screen.alternate };
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
    if (data === '') {
      // Nothing reaches the program, so the evidence gathered so far still stands; only how long a wait
      // has been seen starts again, so that a busy reader gets its hold anew (evidence.ts).
      this.watch.rewatch();
      this.kick();
      return;
    }
    this.watch.writing(data);
    await Promise.resolve(this.handle.write(data));
    this.watch.written();
    this.kick();
  }

  /** The line discipline collects input line by line now (see canonical-line.ts); false when unknown. */
  async readsCanonically(): Promise<boolean> {
    return (await this.handle.terminalModes?.().catch(() => undefined))?.icanon === true;
  }

  /** bash itself reads the terminal in its line editor now: at its prompt, a continuation line, `read -e`. */
  lineEditorInFront(): Promise<boolean> {
    return this.watch.lineEditorInFront();
  }

  /** bash is idle at its own top-level prompt now (see CompletionWatch.atPrompt). */
  atPrompt(): Promise<boolean> {
    return this.watch.atPrompt();
  }

  /** The process group in front of the terminal now (an inspection without the terminal flags, which
   *  would cost a process spawn). */
  async foregroundGroup(): Promise<number | undefined> {
    return (await this.foregroundFront())?.group;
  }

  /** The same, with the command its leader runs now (undefined where the platform does not say). */
  async foregroundFront(): Promise<{ group: number; command: string | undefined } | undefined> {
    const info = await this.handle.inspectForeground({ terminalFlags: false, readers: false }).catch(() => undefined);
    return info && { group: info.processGroupId, command: info.command };
  }

  /**
   * SIGINT goes in as a person's Ctrl-C where the terminal allows it: the line discipline then also drops
   * input typed ahead and not yet read (the rest of a multi-line send, a command line bash had not read
   * yet), which a kill would leave to run after the prompt came back, with no operation watching. A relay
   * in front (tmux, screen, script, ssh) reads its input raw and passes it to a terminal of its own, where
   * the program it shows runs: SIGINT and SIGTSTP go in there as Ctrl-C and Ctrl-Z, as a person's keys
   * would. A kill would hit the relay itself: tmux's client ignores SIGINT, and ssh would hang up.
   */
  async signalForeground(signal: ForegroundSignal): Promise<number> {
    const typed = await this.typedSignal(signal);
    if (typed !== undefined && this.processStatus.kind === 'running') {
      await this.handle.discardUnreadInput?.().catch(() => undefined);
      this.watch.signalled();
      await this.write(typed.data);
      return typed.group;
    }
    return this.killForeground(signal);
  }

  /** What to type for `signal`, and the group in front that gets it; undefined: a kill it is. */
  private async typedSignal(signal: ForegroundSignal): Promise<{ data: string; group: number } | undefined> {
    const key = RELAY_KEYS[signal];
    if (key === undefined || !this.handle.terminalModes) return undefined;
    const modes = await this.handle.terminalModes().catch(() => undefined);
    if (modes === undefined) return undefined;
    if (modes.isig) {
      // The INTR character acts as a person's Ctrl-C where the line discipline takes it; SIGTSTP stays a
      // kill there (a typed SUSP would also drop the input typed ahead, which the stop keeps for later).
      if (signal !== 'SIGINT' || modes.intr === undefined) return undefined;
      const group = await this.foregroundGroup();
      return group === undefined ? undefined : { data: modes.intr, group };
    }
    // Input passes raw (an editor, a relay): only a relay passes the key on to what it shows.
    const front = await this.handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
    return front?.inner === undefined ? undefined : { data: key, group: front.processGroupId };
  }

  /** A kill of the group in front as it is at that moment, never typed (for following new groups fast:
   *  reading the terminal's flags costs a process spawn, and typed input is already dropped by then). */
  async killForeground(signal: ForegroundSignal): Promise<number> {
    // A look taken before the kill lands, and judged after it, must not say the program still waits.
    this.watch.signalled();
    try {
      return await this.handle.signalForeground(signal);
    } finally {
      this.watch.signalled();
    }
  }

  private async watchExit(): Promise<void> {
    const exit: PtyExit = await this.handle.done.catch(() => ({ exitCode: null, signal: 'unknown' }));
    // The output has ended; let the screen parse the last of it before the exit is reported.
    await this.pumped;
    await this.atBoundary(() => undefined);
    this.processStatus = { kind: 'exited', exitCode: exit.exitCode, signal: exit.signal };
    this.clearTimers();
    this.bootWaiter?.reject(
      new StartupError(`the shell exited before its first prompt (exit code ${exit.exitCode}, signal ${exit.signal})`),
    );
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
    this.watch.stop();
    if (this.compactTimer) clearTimeout(this.compactTimer);
    if (this.carryTimer) clearTimeout(this.carryTimer);
    this.compactTimer = undefined;
    this.carryTimer = undefined;
  }
}
