/**
 * One terminal generation: a PTY running bash, its shell integration, and the screen that mirrors it.
 *
 * Everything that touches the screen runs on one serial chain (ingest of each output chunk, snapshots,
 * captures, reads), so each of them sees a whole number of chunks. Output is read as fast as the screen
 * parses it; while a chunk is parsed the PTY stream buffers and, past its high-water mark, pauses the
 * PTY (back-pressure all the way to the program).
 *
 * It gathers the completion evidence (shell-integration marks as the screen parses them, the kernel's
 * facts about who reads the terminal) and asks evidence.ts for a verdict; a verdict is reported once a
 * second look agrees. Facts are stamped with the dispatch that was current when their evidence arrived:
 * - prompt: bash is back at its own prompt (a mark that counts, or, without marks, the kernel's word that
 *   bash is idle in its line editor and the terminal is quiet);
 * - stdin_read: a process holding the terminal is blocked reading it and it is not bash at its prompt.
 *
 * Why one file past 500 lines: the marks, the polls and the screen share one serial order (a mark counts
 * where the screen parsed it). The gathering of evidence is the part to move out into a room of its own,
 * once the evidence fixes under way have landed (moving it under them would hide their diffs).
 */
import { EventEmitter } from 'node:events';
import type { ForegroundInfo, ForegroundSignal, PtyExit, PtyHandle, PtyProvider } from '../pty/contract.ts';
import { type Cursor, type CaptureHandle, type CaptureResult, Screen, type ScreenPage, type ScreenSnapshot } from '../screen/screen.ts';
import { within } from '../time.ts';
import { MarkerFilter, type ShellMarker, prepareShellLaunch } from '../shell/integration.ts';
import { prepareRestore, runsBash } from '../shell/restore.ts';
import { type Observation, type Verdict, type WaitFacts, judge, sameVerdict } from './evidence.ts';
import type { TerminalConfig } from '../config.ts';

export type ProcessStatus = { kind: 'running' } | { kind: 'exited'; exitCode: number | null; signal: string | null };

/** A program waits for input (see evidence.ts for each field). */
export type InputWait = WaitFacts;

export interface PromptFact {
  /** Exit status of the last command, when the shell reported one since the dispatch. */
  exitCode: number | undefined;
  /** 'marker': the shell's own prompt mark; 'kernel': bash idle in its line editor, no mark (no exit code). */
  evidence: 'marker' | 'kernel';
  /** Where the prompt began on the screen: the command's output ends there. */
  start: { line: number; x: number } | undefined;
}

/** What the generation reports to, and asks of, the owner's queue. */
export interface GenerationObserver {
  /** The current dispatch number (stamps evidence). */
  dispatch(): number;
  /** What the active operation can be completed by; 'none' stops polling. */
  interest(): 'none' | 'prompt' | 'prompt-and-input';
  /** The engine may type into the terminal itself now (no person is typing into it). */
  engineMayType(): boolean;
  prompt(dispatch: number, fact: PromptFact): void;
  inputWait(dispatch: number, wait: InputWait): void;
}

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

const PROMPT_SETTLE_MS = 2;
/** Between a verdict and the look that confirms it: the program's own prompt text arrives and is parsed. */
const CONFIRM_SETTLE_MS = 4;
const QUIET_CHECK_MS = 8;
/** Looks for the first prompt's line-editor depth: bash reaches its editor within a few of them. */
const LEARN_STACK_ATTEMPTS = 20;
const LEARN_STACK_RETRY_MS = 10;

/** bash itself asleep in its line editor: a wait without timeout that is not a read() (its `read`
 *  builtins block in read() or wait with a timeout). */
function isLineEditor(info: ForegroundInfo, shellPid: number): boolean {
  return (
    info.inputWaiting &&
    (info.inputProcessId ?? shellPid) === shellPid &&
    info.processGroupId === shellPid &&
    info.inputCall !== 'read' &&
    info.inputTimed !== true
  );
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
  private readonly nonce: string;
  private readonly config: TerminalConfig;
  private observer: GenerationObserver | undefined;
  private sequenceNumber = 0;
  private booted = false;
  private bootWaiter: { resolve(): void; reject(error: Error): void } | undefined;
  private processStatus: ProcessStatus = { kind: 'running' };
  private disposed = false;
  // prompt evidence (see ShellMarks in evidence.ts)
  private lastStatus: { status: number; dispatch: number } | undefined;
  private promptMark: { dispatch: number; cursor: ReturnType<Screen['absoluteCursor']> } | undefined;
  /** Where the current prompt began: at its exit-status mark, else at its prompt mark's line. */
  private promptStart: { line: number; x: number } | undefined;
  /** The command number of the last prompt mark that counted (a replay repeats it). */
  private countedCommand = -1;
  /** An exit-status mark came after the last prompt mark that counted (an empty line keeps the number). */
  private freshStatus = false;
  private commandRunning = false;
  /** A CR or LF was written since the last prompt was reported (see evidence.ts). */
  private lineSubmitted = false;
  /** The last prompt reported, as drawn on its row (PS1 rendered). */
  private lastPromptText: string | undefined;
  /** The stack depth of bash's line editor at a prompt reported in this program image (see evidence.ts). */
  private promptStack: string | undefined;
  /** The shell's program image when last seen reading: a new one means it exec'd. */
  private shellImage: string | undefined;
  /** The shell exec'd since it started (its first image had the hook; later ones need the restore). */
  private imageChanged = false;
  /** The image the restore was tried in (once per image), and the operation it was typed in. */
  private restoreTried: { image: string; dispatch: number } | undefined;
  /** The reader seen at the last look, and since when it has been seen waiting without a break. */
  private seenWait: { pid: number | undefined; call: string | undefined; since: number } | undefined;
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
    this.nonce = nonce;
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
        this.recordMarker(marker, dispatch);
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
        // The first operation starts once the line editor's depth is known too (a few ms).
        const waiter = this.bootWaiter;
        this.bootWaiter = undefined;
        void this.learnPromptStack().finally(() => waiter.resolve());
      }
      if (text.length > 0) {
        this.lastOutputAt = performance.now();
        this.scheduleCompaction();
      }
      if (this.promptMark) this.schedulePromptCheck();
      else this.schedulePoll(QUIET_CHECK_MS);
    });
  }

  private recordMarker(marker: ShellMarker, dispatch: number): void {
    const cursor = this.screen.absoluteCursor();
    if (marker.kind === 'D') {
      this.lastStatus = { status: marker.status, dispatch };
      this.freshStatus = true;
      this.promptMark = undefined;
      this.promptStart = cursor.alternate ? undefined : { line: cursor.line, x: cursor.x };
      return;
    }
    if (marker.kind === 'C') {
      this.commandRunning = true;
      this.promptMark = undefined;
      return;
    }
    // A prompt mark counts once: a new command number, or the first after a fresh exit-status mark.
    if (marker.command <= this.countedCommand && !this.freshStatus) return;
    this.countedCommand = Math.max(this.countedCommand, marker.command);
    this.freshStatus = false;
    this.commandRunning = false;
    if (!this.promptStart || this.promptStart.line > cursor.line) this.promptStart = { line: cursor.line, x: 0 };
    this.promptMark = { dispatch, cursor };
  }

  // ------------------------------------------------------------------ completion evidence

  private schedulePromptCheck(): void {
    if (this.promptTimer || !this.observer || this.observer.interest() === 'none') return;
    this.promptTimer = setTimeout(() => {
      this.promptTimer = undefined;
      void this.checkPrompt();
    }, PROMPT_SETTLE_MS);
  }

  /** The fast path: a prompt mark was just parsed. Returns true when a prompt was reported. */
  private async checkPrompt(): Promise<boolean> {
    const mark = this.promptMark;
    const observer = this.observer;
    if (!mark || !observer || observer.interest() === 'none' || this.processStatus.kind !== 'running') return false;
    const info = await this.handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
    if (this.promptMark !== mark) return false; // more output arrived meanwhile
    this.noteImage(info);
    // Where waits cannot be seen (macOS), bash in front is all the kernel says.
    const waitsKnown = this.handle.inputWaitDetection === true;
    const shellWaiting = info !== undefined && (waitsKnown ? isLineEditor(info, this.pid) : info.processGroupId === this.pid);
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
    this.reportPrompt(observer, mark.dispatch, 'marker', info);
    return true;
  }

  /**
   * At the first prompt, the depth at which bash's line editor waits: without it, the first command's
   * line editor would be told from `read -e` only by marks, whose output may still be on its way.
   */
  private async learnPromptStack(): Promise<void> {
    if (this.handle.inputWaitDetection !== true) return;
    for (let attempt = 0; attempt < LEARN_STACK_ATTEMPTS && this.promptStack === undefined && !this.disposed; attempt++) {
      const info = await this.handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
      this.noteImage(info);
      if (this.lastWriteAt > 0) return; // input arrived: the line editor may be elsewhere now
      if (info?.inputStack !== undefined && isLineEditor(info, this.pid)) {
        this.promptStack = info.inputStack;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, LEARN_STACK_RETRY_MS));
    }
  }

  /** Called with everything read so far parsed (the cursor is where the prompt left it). */
  private reportPrompt(
    observer: GenerationObserver,
    dispatch: number,
    evidence: 'marker' | 'kernel',
    info: ForegroundInfo | undefined,
  ): void {
    if (info?.inputStack !== undefined && isLineEditor(info, this.pid)) this.promptStack = info.inputStack;
    this.lineSubmitted = false;
    const status = this.lastStatus;
    let start = this.promptStart;
    const cursor = this.screen.absoluteCursor();
    const drawn = cursor.alternate ? undefined : this.screen.cursorRowText();
    if (!start && evidence === 'kernel' && drawn !== undefined) {
      // No mark says where the prompt began. A prompt drawn like the last one (a fixed PS1) starts where
      // that text starts, after any output without a final newline; otherwise at the row's start.
      const known = this.lastPromptText;
      start = { line: cursor.line, x: known && drawn.endsWith(known) ? drawn.length - known.length : 0 };
    }
    if (start && drawn !== undefined && start.line === cursor.line) this.lastPromptText = drawn.slice(start.x) || undefined;
    // The first prompt after a restore follows the restore line, whose status says nothing of the command.
    const restored = this.restoreTried?.dispatch === dispatch;
    const exitCode = status && status.dispatch === dispatch && !restored ? status.status : undefined;
    observer.prompt(dispatch, { exitCode, evidence: restored ? 'kernel' : evidence, start });
  }

  /**
   * Types the restore line (see shell/restore.ts) when bash exec'd into a new bash, once per image, while
   * no person is typing. True when it was typed: the marked prompt that follows ends the operation.
   */
  private async restoreIntegration(observer: GenerationObserver, dispatch: number): Promise<boolean> {
    const image = this.shellImage;
    if (!this.imageChanged || image === undefined || this.restoreTried?.image === image) return false;
    if (!observer.engineMayType() || !(await runsBash(this.pid))) return false;
    this.restoreTried = { image, dispatch };
    try {
      const line = await prepareRestore(this.nonce);
      if (observer.dispatch() !== dispatch || this.shellImage !== image) return false;
      await this.write(line);
      return true;
    } catch {
      return false;
    }
  }

  /** A new program image in the shell process (it exec'd): the old image's marks say nothing now. */
  private noteImage(info: ForegroundInfo | undefined): void {
    const image = info?.shellImage;
    if (image === undefined) return;
    if (this.shellImage !== undefined && this.shellImage !== image) {
      this.commandRunning = false;
      this.promptMark = undefined;
      this.freshStatus = false;
      this.promptStack = undefined;
      this.imageChanged = true;
    }
    this.shellImage = image;
  }

  private schedulePoll(delay: number): void {
    if (this.pollTimer || this.disposed || !this.observer || this.observer.interest() === 'none') return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = undefined;
      void this.poll();
    }, delay);
  }

  /** How long the reader in `info` has been seen waiting, look after look, in the same kind of call. */
  private noteWait(info: ForegroundInfo | undefined, now: number): number {
    if (!info?.inputWaiting) {
      this.seenWait = undefined;
      return 0;
    }
    const seen = this.seenWait;
    if (seen && seen.pid === info.inputProcessId && seen.call === info.inputCall) return now - seen.since;
    this.seenWait = { pid: info.inputProcessId, call: info.inputCall, since: now };
    return 0;
  }

  private observe(info: ForegroundInfo | undefined): Verdict {
    const now = performance.now();
    const observation: Observation = {
      shellPid: this.pid,
      waitsKnown: this.handle.inputWaitDetection === true,
      front: info,
      marks: {
        prompt: this.promptMark !== undefined,
        commandRunning: this.commandRunning,
        promptStack: this.promptStack,
        lineSubmitted: this.lineSubmitted,
      },
      sinceWriteMs: now - this.lastWriteAt,
      quietMs: now - this.lastOutputAt,
      waitSeenMs: this.noteWait(info, now),
    };
    return judge(observation);
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
      const sinceOutput = performance.now() - this.lastOutputAt;
      if (sinceOutput < QUIET_CHECK_MS) {
        this.pollDelay = Math.max(1, QUIET_CHECK_MS - sinceOutput);
        return;
      }
      // The first look skips the terminal flags (a process spawn); the confirming one reads them.
      const info = await this.handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
      this.noteImage(info);
      const verdict = this.observe(info);
      if (verdict.kind === 'undecided') {
        if (verdict.retryMs !== undefined) this.pollDelay = Math.max(1, Math.min(this.config.pollIntervalMs, verdict.retryMs));
        return;
      }
      // Let the program's own prompt text arrive and be parsed, then look again: the same verdict, no
      // output in between and the same dispatch, or nothing is reported.
      await new Promise((resolve) => setTimeout(resolve, CONFIRM_SETTLE_MS));
      await this.atBoundary(() => undefined);
      const again = await this.handle.inspectForeground({ terminalFlags: verdict.kind === 'input' }).catch(() => undefined);
      this.noteImage(again);
      const confirmed = this.observe(again);
      if (!sameVerdict(verdict, confirmed) || this.sequenceNumber !== outputBefore || observer.dispatch() !== dispatch) return;
      if (confirmed.kind === 'prompt') {
        if (confirmed.evidence === 'marker' && !this.promptMark) return;
        // A new bash in this process: put the hook back, and report the prompt it draws then.
        if (confirmed.evidence === 'kernel' && (await this.restoreIntegration(observer, dispatch))) return;
        this.reportPrompt(observer, dispatch, confirmed.evidence, again);
        return;
      }
      if (confirmed.kind === 'input') {
        this.reportedWait = { dispatch, sequence: outputBefore };
        observer.inputWait(dispatch, confirmed.wait);
      }
    } finally {
      this.inspecting = false;
      const delay = this.pollDelay ?? this.config.pollIntervalMs;
      this.pollDelay = undefined;
      this.schedulePoll(delay);
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
    return this.atBoundary(() => this.screen.beginCapture());
  }

  /** An operation's output (up to `end`, where its prompt began) and the view it ended on, at one boundary. */
  readCapture(capture: CaptureHandle, end?: { line: number; x: number }): Promise<{ view: GenerationView; capture: CaptureResult }> {
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
    // A write changes what the shell will do: evidence gathered before it no longer counts.
    this.promptMark = undefined;
    this.promptStart = undefined;
    this.seenWait = undefined;
    // Enter submits a line; Ctrl-C at the prompt drops it and bash draws the prompt again.
    if (/[\r\n\x03]/.test(data)) this.lineSubmitted = true;
    this.lastWriteAt = performance.now();
    await Promise.resolve(this.handle.write(data));
    this.lastWriteAt = performance.now();
    this.kick();
  }

  /** The process group in front of the terminal now (an inspection without the terminal flags, which
   *  would cost a process spawn). */
  async foregroundGroup(): Promise<number | undefined> {
    return (await this.handle.inspectForeground({ terminalFlags: false, readers: false }).catch(() => undefined))?.processGroupId;
  }

  /**
   * SIGINT goes in as a person's Ctrl-C where the terminal allows it: the line discipline then also drops
   * input typed ahead and not yet read (the rest of a multi-line send, a command line bash had not read
   * yet), which a kill would leave to run after the prompt came back, with no operation watching.
   */
  async signalForeground(signal: ForegroundSignal): Promise<number> {
    if (signal === 'SIGINT' && this.handle.interruptCharacter) {
      const intr = await this.handle.interruptCharacter().catch(() => undefined);
      const group = intr === undefined ? undefined : await this.foregroundGroup();
      if (intr !== undefined && group !== undefined && this.processStatus.kind === 'running') {
        await this.write(intr);
        return group;
      }
    }
    return this.killForeground(signal);
  }

  /** A kill of the group in front as it is at that moment, never typed (for following new groups fast:
   *  reading the terminal's flags costs a process spawn, and typed input is already dropped by then). */
  killForeground(signal: ForegroundSignal): Promise<number> {
    return this.handle.signalForeground(signal);
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
