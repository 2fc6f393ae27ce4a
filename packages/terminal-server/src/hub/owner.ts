/**
 * One owner's terminal across generations: the owner-level FIFO queue, the current generation, and the
 * mutations that go through the queue (model send, signal, reset, human leases). Reset is an operation of
 * the queue like any other, so it is a barrier by construction: what was accepted before it runs on the
 * old shell, what was accepted after it runs on the new one.
 *
 * Each operation carries its Work through the queue: its input in, what its grant leaves (the capture,
 * the signalled group) out for its result. A person's lease is human-session.ts; how an interrupt gets
 * the prompt back is interrupt.ts.
 */
import { EventEmitter } from 'node:events';
import { TerminalError } from '../errors.ts';
import { type ForegroundSignal, ForegroundSignalError, type PtyProvider } from '../pty/contract.ts';
import type { TerminalConfig } from '../config.ts';
import { OperationQueue } from '../queue/queue.ts';
import { interruptForeground } from './interrupt.ts';
import { checkHumanBytes, type HumanSession, type HumanSettled, type HumanWork, openHumanSession } from './human-session.ts';
import {
  GrantRefused,
  type HumanLease,
  type OperationKind,
  type OperationResult,
  type OperationView,
  QUEUE_MESSAGES,
  QueueError,
  type QueueStatus,
  type SettleNow,
} from '../queue/operation.ts';
import { type Clock, systemClock } from '../time.ts';
import type { CaptureHandle } from '../screen/capture.ts';
import type { ScreenPage } from '../screen/screen.ts';
import { utf8Length } from '../utf8.ts';
import { refusedLine } from '../terminal/canonical-line.ts';
import { literalTabs } from '../terminal/literal-tabs.ts';
import {
  type GenerationObserver,
  type GenerationView,
  type InputWait,
  type ProcessStatus,
  type PromptFact,
  TerminalGeneration,
  type OutputEvent,
} from '../terminal/generation.ts';

export interface OwnerState {
  generation: number;
  sequence: number;
  status: ProcessStatus;
  queueStatus: QueueStatus;
  holder: OperationKind | null;
  /** Accepted operations behind the active one. */
  pendingCount: number;
  /** Kinds waiting behind the holder, in order (shows a model operation queued behind a human). */
  pendingKinds: OperationKind[];
  /** The model send a browser may take over, as a string id, or null. */
  takeoverId: string | null;
  /** The program currently waiting for input, while an operation holds the terminal. */
  inputWait: InputWait | null;
}

export interface OwnerEvents {
  output: [OutputEvent];
  state: [OwnerState];
  /** A new generation replaced the old one (browsers must re-attach). */
  reset: [{ generation: number }];
  /** The owner is gone for good. */
  disposed: [];
  /** A human interaction (idle input or takeover) is over: the agent should read the terminal. */
  'human-settled': [HumanSettled];
}

export interface OwnerOptions {
  ownerId: string;
  config: TerminalConfig;
  provider: PtyProvider;
  cwd: string;
  baseEnv?: NodeJS.ProcessEnv;
  clock?: Clock;
  wrapArgv?: (argv: string[]) => string[] | Promise<string[]>;
  /** Called before each spawn; throws when no process may be started now (capacity). */
  beforeSpawn?: () => void;
}

/** Where an operation's output starts, on the generation it was granted on. */
interface Capture {
  handle: CaptureHandle;
  generation: TerminalGeneration;
}

/** A model send: its input, and where its output starts once granted. */
interface SendWork {
  kind: 'model-send';
  input: string;
  capture?: Capture;
  /** The full-screen program's screen when the deadline passed (see interruptForeground). */
  screenAtDeadline?: { lines: string[]; rowsBefore: number };
}
interface SignalWork {
  kind: 'signal';
  signal: ForegroundSignal;
  capture?: Capture;
  /** The group the signal went to. */
  processGroupId?: number;
}
/** What an operation carries through the queue: its input in, what its grant leaves for its result out. */
type Work = SendWork | SignalWork | HumanWork | { kind: 'reset' };

/** The screen and the owner's state as of one output sequence. */
export interface OwnerView {
  state: OwnerState;
  viewport: string;
  cursor: { x: number; y: number };
  rows: number;
  cols: number;
}

export interface CapturedOutcome {
  result: OperationResult;
  output: string;
  outputTruncated: boolean;
  processGroupId: number | null;
  exitCode: number | undefined;
  promptEvidence: PromptFact['evidence'] | undefined;
  inputWait: InputWait | undefined;
  /** The screen the operation ended on, read at the same boundary as `output`. */
  view: OwnerView;
}

export class OwnerTerminal extends EventEmitter<OwnerEvents> {
  readonly ownerId: string;
  private readonly options: OwnerOptions;
  private readonly config: TerminalConfig;
  private readonly queue: OperationQueue<Work>;
  private current: TerminalGeneration | undefined;
  private creating: Promise<TerminalGeneration> | undefined;
  private generationNumber = 0;
  private disposed = false;
  private stateScheduled = false;
  private currentInputWait: InputWait | null = null;
  private spawnAbort = new AbortController();

  constructor(options: OwnerOptions) {
    super();
    this.options = options;
    this.ownerId = options.ownerId;
    this.config = options.config;
    this.queue = new OperationQueue<Work>({
      maxQueuedOperations: options.config.maxQueuedOperations,
      operationTimeoutMs: options.config.operationTimeoutMs,
      interruptTimeoutMs: options.config.interruptTimeoutMs,
      clock: options.clock ?? systemClock,
      hooks: {
        grant: (op) => this.grant(op),
        interrupt: (op) => this.interruptForeground(op),
        changed: () => this.changed(),
      },
    });
  }

  // ------------------------------------------------------------------ lifecycle

  get generation(): TerminalGeneration | undefined {
    return this.current;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  /** True while a process is alive or being created (counts against maxSessions). */
  get live(): boolean {
    if (this.disposed) return false;
    if (this.creating) return true;
    return this.current?.status.kind === 'running';
  }

  /** The current generation, created on first use; concurrent callers share one creation. */
  ensure(): Promise<TerminalGeneration> {
    if (this.disposed) return Promise.reject(new TerminalError('disposed', QUEUE_MESSAGES.disposed));
    if (this.current) return Promise.resolve(this.current);
    this.creating ??= this.createGeneration().finally(() => {
      this.creating = undefined;
    });
    return this.creating;
  }

  private async createGeneration(): Promise<TerminalGeneration> {
    this.options.beforeSpawn?.();
    const number = this.generationNumber + 1;
    const generation = await TerminalGeneration.start({
      generation: number,
      config: this.config,
      provider: this.options.provider,
      cwd: this.options.cwd,
      signal: this.spawnAbort.signal,
      ...(this.options.baseEnv ? { baseEnv: this.options.baseEnv } : {}),
      ...(this.options.wrapArgv ? { wrapArgv: this.options.wrapArgv } : {}),
    });
    if (this.disposed) {
      await generation.terminate().catch(() => undefined);
      generation.dispose();
      throw new TerminalError('disposed', QUEUE_MESSAGES.disposed);
    }
    this.generationNumber = number;
    this.current = generation;
    this.currentInputWait = null;
    generation.on('output', (event) => this.emit('output', event));
    generation.once('exit', () => {
      if (this.current !== generation) return;
      this.queue.exited();
      this.changed();
    });
    generation.setObserver(this.observerFor(generation));
    this.changed();
    return generation;
  }

  private observerFor(generation: TerminalGeneration): GenerationObserver {
    return {
      dispatch: () => this.queue.stableDispatch,
      interest: () => {
        const holder = this.queue.holder;
        if (this.current !== generation || !holder || holder.kind === 'reset') return 'none';
        return 'prompt-and-input';
      },
      engineMayType: () => {
        const kind = this.queue.holder?.kind;
        return this.current === generation && (kind === 'model-send' || kind === 'signal');
      },
      prompt: (dispatch: number, fact: PromptFact) => {
        if (this.current !== generation) return;
        if (this.queue.observe('prompt', dispatch, fact)) this.setInputWait(null);
      },
      inputWait: (dispatch: number, wait: InputWait) => {
        if (this.current !== generation) return;
        const holder = this.queue.holder;
        if (!holder) return;
        if (holder.kind === 'human') {
          // A person typing at the prompt: the line is still being edited, not taken by a program, so it
          // keeps counting against the allowance, and no program is shown waiting.
          if (wait.unsubmitted) return;
          // The program consumed what the human typed: the human's input allowance starts over.
          if (holder.payload.kind === 'human' && dispatch === holder.dispatch) holder.payload.inputBytes = 0;
          this.setInputWait(wait);
          // A wait never ends a person's lease, except one abandoned and recovering (the queue decides).
          this.queue.observe('stdin_read', dispatch, wait);
          return;
        }
        this.setInputWait(wait);
        this.queue.observe('stdin_read', dispatch, wait);
      },
    };
  }

  private setInputWait(wait: InputWait | null): void {
    if (this.currentInputWait === wait) return;
    this.currentInputWait = wait;
    this.changed();
  }

  // ------------------------------------------------------------------ state

  state(): OwnerState {
    const holder = this.queue.holder;
    const takeover = this.queue.takeoverId;
    return {
      generation: this.generationNumber,
      sequence: this.current?.sequence ?? 0,
      status: this.current?.status ?? { kind: 'running' },
      queueStatus: this.queue.status,
      holder: holder?.kind ?? null,
      pendingCount: this.queue.pendingCount,
      pendingKinds: this.queue.pendingKinds,
      takeoverId: takeover === undefined ? null : String(takeover),
      inputWait: holder ? this.currentInputWait : null,
    };
  }

  private changed(): void {
    this.current?.kick();
    if (this.stateScheduled) return;
    this.stateScheduled = true;
    queueMicrotask(() => {
      this.stateScheduled = false;
      if (!this.disposed) this.emit('state', this.state());
    });
  }

  // ------------------------------------------------------------------ queue hooks

  private async grant(op: OperationView<Work>): Promise<void | SettleNow> {
    const work = op.payload;
    this.setInputWait(null);
    if (work.kind === 'reset') {
      await this.replaceGeneration();
      return;
    }
    const generation = this.current;
    if (!generation || generation.status.kind !== 'running') {
      throw new GrantRefused('exited', QUEUE_MESSAGES.exited);
    }
    if (work.kind === 'model-send') {
      work.capture = { handle: await generation.beginCapture(), generation };
      // Typing nothing waits for what runs; at an idle prompt nothing runs: say so at once.
      if (work.input === '' && (await generation.atPrompt())) return { settleNow: { waitReason: 'prompt' } };
      // A line too long for a canonical-mode reader would lose its tail in the kernel: type nothing.
      const overlong = await refusedLine(work.input, () => generation.readsCanonically());
      if (overlong !== undefined) throw new GrantRefused('line-too-long', overlong);
      const typed = work.input.includes('\t') && (await generation.lineEditorInFront()) ? literalTabs(work.input) : work.input;
      await generation.write(typed);
      return;
    }
    if (work.kind === 'signal') {
      work.capture = { handle: await generation.beginCapture(), generation };
      try {
        work.processGroupId = await generation.signalForeground(work.signal);
      } catch (error) {
        if (error instanceof ForegroundSignalError) throw new GrantRefused('signal-refused', error.message);
        throw error;
      }
      if (work.processGroupId === generation.pid) {
        // The shell itself was in front (an idle prompt): there is no program to wait for. Give a signal
        // that ends the shell a moment to do so, so that the result tells the truth.
        await new Promise((resolve) => setTimeout(resolve, 50));
        if ((generation.status as ProcessStatus).kind === 'exited') return { settleNow: { waitReason: 'session_exit' } };
        return { settleNow: { waitReason: 'prompt' } };
      }
      return;
    }
    // A human lease: idle begin carries its first input.
    if (work.firstInput) await generation.write(work.firstInput);
  }

  private async interruptForeground(op: OperationView<Work>): Promise<void> {
    const generation = this.current;
    if (!generation) throw new Error('terminal is exited');
    const stillHolding = () => this.current === generation && this.queue.holder?.id === op.id && generation.status.kind === 'running';
    // A full-screen program that never reads (`watch`) leaves its screen when the interrupt ends it: what
    // it showed at the deadline is its output, and the model would otherwise get none of it.
    const work = op.payload;
    if (work.kind === 'model-send' && work.capture?.generation === generation) {
      work.screenAtDeadline = await generation.fullScreen(work.capture.handle).catch(() => undefined);
    }
    await interruptForeground(generation, stillHolding);
  }

  private async replaceGeneration(): Promise<void> {
    const old = this.current;
    this.current = undefined;
    if (old) {
      old.setObserver(undefined);
      await old.terminate().catch(() => undefined);
      old.dispose();
    }
    await this.ensure();
    this.emit('reset', { generation: this.generationNumber });
  }

  // ------------------------------------------------------------------ model operations

  /** Queue a model send; resolves with the captured outcome. `timeoutMs` replaces operationTimeoutMs. */
  async send(input: string, abortSignal?: AbortSignal, timeoutMs?: number): Promise<CapturedOutcome> {
    if (utf8Length(input) > this.config.maxInputBytes) {
      throw new TerminalError(
        'input-too-large',
        `input is ${utf8Length(input)} bytes, over maxInputBytes (${this.config.maxInputBytes}): send it in smaller parts or write it to a file first`,
      );
    }
    await this.ensure();
    return this.runModelOperation({ kind: 'model-send', input }, abortSignal, timeoutMs);
  }

  async signal(signal: ForegroundSignal, abortSignal?: AbortSignal): Promise<CapturedOutcome> {
    // SIGKILL to the shell itself is refused at delivery, where the foreground is re-inspected (GrantRefused).
    await this.ensure();
    return this.runModelOperation({ kind: 'signal', signal }, abortSignal);
  }

  async reset(abortSignal?: AbortSignal): Promise<OperationResult> {
    if (this.disposed) throw new TerminalError('disposed', QUEUE_MESSAGES.disposed);
    // A creation under way finishes first, so the reset replaces it. With nothing created yet, the
    // first generation is the reset's own result (generation 1, not 2).
    if (this.current || this.creating) await this.ensure().catch(() => undefined);
    return this.queue.enqueue('reset', { kind: 'reset' }, abortSignal ? { signal: abortSignal } : {}).result;
  }

  private async runModelOperation(
    work: SendWork | SignalWork,
    abortSignal: AbortSignal | undefined,
    timeoutMs?: number,
  ): Promise<CapturedOutcome> {
    const handle = this.queue.enqueue(work.kind, work, { signal: abortSignal, timeoutMs });
    const result = await handle.result;
    const detail = result.detail as (PromptFact & Partial<InputWait>) | undefined;
    // At a prompt (a recovery's too) the output ends where the prompt began (text printed without a final
    // newline stays), and the command line's exit status is known: 130 after the SIGINT, or what the
    // command returned when it ended just as the deadline passed.
    const atPrompt = result.waitReason === 'prompt' || result.recoveredAt === 'prompt';
    const promptStart = atPrompt ? detail?.start : undefined;
    const left = work.kind === 'model-send' && result.waitReason === 'timeout' ? work.screenAtDeadline : undefined;
    const { output, outputTruncated, view } = await this.readOutcome(work.capture, atPrompt, promptStart, left);
    return {
      result,
      output,
      outputTruncated,
      processGroupId: work.kind === 'signal' ? (work.processGroupId ?? null) : null,
      exitCode: atPrompt && detail ? detail.exitCode : undefined,
      promptEvidence: atPrompt && detail ? detail.evidence : undefined,
      inputWait: result.waitReason === 'stdin_read' || result.recoveredAt === 'stdin_read' ? (result.detail as InputWait) : undefined,
      view,
    };
  }

  /**
   * A settled operation's output and the screen it ended on, read at one screen boundary, so the result's
   * `sequence` and `viewport` belong to its `output`. On a generation a reset replaced since, the view is
   * the new generation's.
   */
  private async readOutcome(
    capture: Capture | undefined,
    atPrompt: boolean,
    promptStart: PromptFact['start'],
    screenAtDeadline?: SendWork['screenAtDeadline'],
  ): Promise<{ output: string; outputTruncated: boolean; view: OwnerView }> {
    const generation = capture?.generation;
    const readable =
      capture !== undefined && generation !== undefined && (generation === this.current || generation.status.kind === 'exited');
    const read = readable ? await generation.readCapture(capture.handle, promptStart).catch(() => undefined) : undefined;
    const view = read && generation !== undefined && generation === this.current ? this.viewOf(generation, read.view) : await this.view();
    if (!read) return { output: '', outputTruncated: false, view };
    const lines = read.capture.lines;
    // Where the prompt began is unknown (no mark): its line is the fresh prompt, which says nothing.
    if (atPrompt && promptStart === undefined && lines.length > 0) lines.pop();
    // The full-screen program left its screen since the deadline: that screen goes where it was entered.
    if (screenAtDeadline && !read.view.alternate && !read.capture.evicted) {
      lines.splice(Math.min(screenAtDeadline.rowsBefore, lines.length), 0, ...screenAtDeadline.lines);
    }
    return { output: lines.join('\n'), outputTruncated: read.capture.evicted, view };
  }

  // ------------------------------------------------------------------ human leases

  /** Begin human input at an idle prompt, with its first input. */
  async beginHuman(firstInput: string): Promise<HumanSession> {
    checkHumanBytes(firstInput, 0, this.config.maxInputBytes);
    const generation = await this.ensure();
    if (generation.status.kind !== 'running') throw new QueueError('exited', QUEUE_MESSAGES.exited);
    // A person's paste into a program reading line by line: as a model's send, refused whole (see tools).
    const overlong = await refusedLine(firstInput, () => generation.readsCanonically());
    if (overlong !== undefined) throw new TerminalError('line-too-long', overlong);
    // Who is in front before the first key lands: a program still waiting since the model's send returned
    // (stdin_read), or whatever the kernel says holds the terminal.
    const waiting = this.currentInputWait !== null;
    const front = generation.foregroundGroup();
    const began = front.then((group): HumanSettled['began'] =>
      waiting || (group !== undefined && group !== generation.pid) ? 'program' : 'prompt',
    );
    const work: HumanWork = { kind: 'human', firstInput, inputBytes: utf8Length(firstInput) };
    const lease = this.queue.beginHuman(work);
    return this.humanSession(lease, work, began);
  }

  private humanSession(lease: HumanLease, work: HumanWork, began: Promise<HumanSettled['began']>): HumanSession {
    const generation = this.current;
    return openHumanSession(lease, work, began, {
      ownerId: this.ownerId,
      maxInputBytes: this.config.maxInputBytes,
      generation: generation?.generation ?? this.generationNumber,
      target: () => (this.current === generation ? generation : undefined),
      settled: (event) => this.emit('human-settled', event),
    });
  }

  /** Hand the running model send `id` to the human in place. */
  takeover(id: number): HumanSession {
    const work: HumanWork = { kind: 'human', firstInput: '', inputBytes: 0 };
    const lease = this.queue.takeover(id, work);
    return this.humanSession(lease, work, Promise.resolve('program'));
  }

  // ------------------------------------------------------------------ reading

  /** The current screen and state, as of the last output read. */
  async view(): Promise<OwnerView> {
    const generation = await this.ensure();
    return this.viewOf(generation, await generation.view());
  }

  /** A page of history with the view it belongs to, read at one screen boundary. */
  async readPage(offset: number, count: number, maxBytes: number): Promise<{ view: OwnerView; page: ScreenPage & { truncated: boolean } }> {
    const generation = await this.ensure();
    const { view, page } = await generation.readPage(offset, count, maxBytes);
    return { view: this.viewOf(generation, view), page };
  }

  private viewOf(generation: TerminalGeneration, view: GenerationView): OwnerView {
    return {
      state: { ...this.state(), sequence: view.sequence },
      viewport: view.viewport,
      cursor: view.cursor,
      rows: generation.rows,
      cols: generation.cols,
    };
  }

  // ------------------------------------------------------------------ disposal

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.spawnAbort.abort();
    this.queue.dispose();
    const generation = this.current;
    this.current = undefined;
    await this.creating?.catch(() => undefined);
    if (generation) {
      generation.setObserver(undefined);
      await generation.terminate().catch(() => undefined);
      generation.dispose();
    }
    this.emit('disposed');
    this.removeAllListeners();
  }
}
