/**
 * The completion watch of one generation: it gathers the evidence that an operation is done (the shell's
 * marks as the screen parses them, looks at the kernel through the PTY handle), asks evidence.ts for a
 * verdict and reports it to the observer once a second look agrees. Facts are stamped with the dispatch
 * current when their evidence arrived: a prompt (bash back at its own prompt, by a mark that counts or the
 * kernel's word) or an input wait (a process holding the terminal blocked reading it, not bash's prompt).
 *
 * It has a room of its own because its state (marks, looks, poll timers) is apart from the screen's; the
 * generation feeds it (marks at the point the screen parsed them, writes, output) and lends it the serial
 * screen chain (`atBoundary`) and the observer, so a mark still counts where the screen parsed it. Where
 * the marks put the prompt on the screen, and so where the output ends, is prompt-places.ts's.
 */
import type { ForegroundInfo, PtyHandle } from '../pty/contract.ts';
import type { OutputEnd, Screen, ScreenPosition } from '../screen/screen.ts';
import { PromptPlaces } from './prompt-places.ts';
import type { ShellMarker } from '../shell/integration.ts';
import { prepareRestore, runsBash } from '../shell/restore.ts';
import { type InputVerdict, type ThroughOutputHost, WaitThroughOutput } from './wait-through-output.ts';
import { TypedAheadLedger } from './typed-ahead.ts';
import {
  INPUT_DELIVERY_MS,
  type Observation,
  type ShellProgram,
  type SiblingSample,
  type Verdict,
  type WaitFacts,
  WRITE_SETTLE_MS,
  judge,
  lateStatusWaitMs,
  sameVerdict,
  siblingsWorking,
} from './evidence.ts';

export interface PromptFact {
  /** Exit status of the last command, when the shell reported one since the dispatch. */
  exitCode: number | undefined;
  /** 'marker': the shell's own prompt mark; 'kernel': bash idle in its line editor, no mark (no exit code). */
  evidence: 'marker' | 'kernel';
  /** Where the prompt began on the screen: the command's output ends there. */
  start: OutputEnd | undefined;
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
  inputWait(dispatch: number, wait: WaitFacts): void;
}

/** What the watch needs of its generation (charsRead and readingPaused: see ThroughOutputHost); all of it
 *  stays on the generation's serial chain. */
export interface WatchHost extends ThroughOutputHost {
  readonly pid: number;
  readonly handle: PtyHandle;
  readonly screen: Pick<Screen, 'absoluteCursor' | 'cursorRowText' | 'position' | 'lineTextFrom' | 'rowUnderCursor'>;
  readonly nonce: string;
  readonly pollIntervalMs: number;
  observer(): GenerationObserver | undefined;
  /** The generation was terminated or disposed. */
  disposed(): boolean;
  /** The shell process has not exited. */
  running(): boolean;
  /** The number of the last output chunk read. */
  sequence(): number;
  /** Run `task` once everything read so far is parsed. */
  atBoundary<T>(task: () => T): Promise<T>;
  /** Type into the terminal (the restore line), as any write. */
  write(data: string): Promise<void>;
}

/** After a prompt mark, bash is asleep in its line editor within about a millisecond (it has just drawn
 *  the prompt). Looks for that sleep come this far apart, and this many of them, before the poll's slower
 *  pace takes over. */
const PROMPT_RETRY_MS = 1;
const PROMPT_LOOKS = 8;
/** Between a verdict and the look that confirms it: the program's own prompt text arrives and is parsed. */
const CONFIRM_SETTLE_MS = 4;
const QUIET_CHECK_MS = 8;
/** Looks for bash at its prompt after a mark that output has since moved past come at most this often:
 *  while a background job prints, the poll comes round every few milliseconds. */
const AFTER_MARK_LOOK_MS = 8;
/** Looks for the first prompt's line-editor depth: bash reaches its editor within a few of them. */
const LEARN_STACK_ATTEMPTS = 20;
const LEARN_STACK_RETRY_MS = 10;
/** While lines typed ahead are still owed to the shell, looks for them come this often. */
const TYPED_AHEAD_LOOK_MS = 5;

/** Enter on a line of spaces at most, or a comment: bash runs nothing. (With `interactive_comments` off a
 *  comment is a command, whose start mark says so.) */
const BLANK_LINE = /^ *(#[^\r\n]*)?[\r\n]$/;

/** Where the last CR, LF or Ctrl-C of `data` is (-1: none): each ends the line being edited, submitted or
 *  dropped; text after the last one is a line still open. */
function lastLineEnd(data: string): number {
  return Math.max(data.lastIndexOf('\r'), data.lastIndexOf('\n'), data.lastIndexOf('\x03'));
}

/** bash itself, in front, asleep reading the terminal: at its prompt, in its line editor, or in a `read`. */
function isShellReading(info: ForegroundInfo, shellPid: number): boolean {
  return info.inputWaiting && (info.inputProcessId ?? shellPid) === shellPid && info.processGroupId === shellPid;
}

/** bash itself asleep in its line editor: a wait without timeout that is not a read() (its `read`
 *  builtins block in read() or wait with a timeout). Without line editing (`set +o emacs +o vi`) bash
 *  reads its command lines with read() too; only a fresh prompt mark tells that wait from a `read`. */
function isLineEditor(info: ForegroundInfo, shellPid: number): boolean {
  return isShellReading(info, shellPid) && info.inputCall !== 'read' && info.inputTimed !== true;
}

/** The poll's state: a look at the kernel is in flight or not, and when the next one is due. */
type PollPhase = { kind: 'idle' } | { kind: 'inspecting'; nextDelayMs: number | undefined };

export class CompletionWatch {
  private readonly host: WatchHost;
  // prompt evidence (see ShellMarks in evidence.ts)
  private lastStatus: { status: number; dispatch: number } | undefined;
  /** The status of a command line that had already ended (its prompt drawn) when a signal went in: the
   *  signal hit bash at its prompt, and the status bash gives that (130) is not the command's. */
  private statusBeforeSignal: { status: number; dispatch: number } | undefined;
  /** The dispatch the last prompt mark that counted was parsed in. */
  private countedPromptDispatch: number | undefined;
  private promptMark: { dispatch: number; cursor: ReturnType<Screen['absoluteCursor']> } | undefined;
  /** The last prompt mark that counted since the last write, still held once output moved past it (a
   *  background job printing, text typed ahead): see checkPromptAfterMark. */
  private promptSeen: { dispatch: number } | undefined;
  private lastAfterMarkLook = 0;
  private readonly throughOutput: WaitThroughOutput;
  /** Where the prompt and the line typed at it stand on the screen. */
  private readonly places: PromptPlaces;
  /** The command number of the last prompt mark that counted (a replay repeats it). */
  private countedCommand = -1;
  /** An exit-status mark came after the last prompt mark that counted (an empty line keeps the number). */
  private freshStatus = false;
  private commandRunning = false;
  /** The last write was Enter on an empty line at the idle prompt (blanks or a comment, nothing held typed): bash
   *  runs nothing and keeps the last command's `$?`, which is no status of this line. A command line
   *  starting (C) says otherwise. */
  private blankLine = false;
  /** A command line started (C) and no exit-status mark came since. */
  private statusAwaited = false;
  /** The last counted prompt mark ended a command line (C) that had no exit-status mark: see ShellMarks. */
  private statusMissing = false;
  /** A CR or LF was written since the last prompt was reported (see evidence.ts). */
  private lineSubmitted = false;
  /** A line was submitted after the last mark: no command started (C) and no status or prompt since. */
  private lineUnstarted = false;
  /** bash marks its prompts: a mark came since its image last changed and since a prompt was found without
   *  one (the hook unset). Only then does a line with no mark since it say anything (see continuing). */
  private marksInImage = false;
  /** Text was written after the last CR, LF or Ctrl-C: the line bash edits holds input not submitted. */
  private lineOpen = false;
  /** The last prompt mark was bash drawing its prompt again for the same command, not a new prompt: a line
   *  put back to edit (`histverify`, a failed history expansion), a redraw (Ctrl-L), a completion list.
   *  What bash drew after it is its line (see lineHeld). */
  private redrawn = false;
  /** The stack depth of bash's line editor at a prompt reported in this program image (see evidence.ts). */
  private promptStack: string | undefined;
  /** The shell's program image when last seen reading: a new one means it exec'd. */
  private shellImage: string | undefined;
  /** What the shell's process runs in its current image (evidence.ts): bash until it exec'd. */
  private shellProgram: ShellProgram = 'bash';
  /** The shell exec'd since it started (its first image had the hook; later ones need the restore). */
  private imageChanged = false;
  /** The image the restore was tried in (once per image), and the operation it was typed in. */
  private restoreTried: { image: string; dispatch: number } | undefined;
  /** The reader seen at the last look, in which wait (the same call at the same depth: bash's `read -t` and
   *  its line editor are both a select; an event loop's timeout may change between its waits), and since
   *  when it has been seen in it. */
  private seenWait: { pid: number | undefined; call: string | undefined; stack: string | undefined; since: number } | undefined;
  /** The last sample of the reader's siblings and their group (kept across writes: the first look after
   *  one compares with it), and when they were last seen working since the last write. */
  private siblings: (SiblingSample & { processGroupId: number }) | undefined;
  private siblingsWorkedAt: number | undefined;
  /** Cancels the prompt check that is due (at once after a parse, or a retry). */
  private cancelPromptCheck: (() => void) | undefined;
  /** Looks at the kernel made for the current prompt mark. */
  private promptLooks = 0;
  // input-wait polling
  private pollTimer: NodeJS.Timeout | undefined;
  private pollDueAt = 0;
  private phase: PollPhase = { kind: 'idle' };
  private reportedWait: { dispatch: number; sequence: number } | undefined;
  private lastOutputAt = 0;
  private lastWriteAt = 0;
  /** Writes and signals so far: a check that began before one must not report what it saw (see
   *  unchangedSince). */
  private interventions = 0;
  private readonly typedAhead: TypedAheadLedger;

  constructor(host: WatchHost) {
    this.host = host;
    this.places = new PromptPlaces(host.screen);
    this.typedAhead = new TypedAheadLedger(() => host.handle.bytesRead?.());
    this.throughOutput = new WaitThroughOutput(host, (info) => this.throughOutputVerdict(info));
  }

  // ------------------------------------------------------------------ fed by the generation

  /** The operation changed (granted, written, settled): re-evaluate now. The host checks it runs. */
  kick(): void {
    if (this.promptMark) this.schedulePromptCheck();
    this.schedulePoll(QUIET_CHECK_MS);
  }

  /** A shell mark, called where the screen has parsed exactly the text before it (`drawn`: some was). */
  mark(marker: ShellMarker, dispatch: number, drawn: boolean): void {
    if (marker.kind === 'A') {
      this.places.startMark();
      return;
    }
    if (drawn) this.promptMark = undefined;
    this.lineUnstarted = false;
    this.marksInImage = true;
    const cursor = this.host.screen.absoluteCursor();
    if (marker.kind === 'D') {
      // Printed, as an echo is: it shows bash took the line even where its echo and prompt go elsewhere
      // (`exec 2>file` sends readline's drawing there, and only stdout's marks reach the terminal).
      this.lastOutputAt = performance.now();
      this.lastStatus = { status: marker.status, dispatch };
      this.places.statusMark(this.statusMissing);
      this.freshStatus = true;
      this.statusAwaited = false;
      this.statusMissing = false;
      this.promptMark = undefined;
      this.promptSeen = undefined;
      return;
    }
    if (marker.kind === 'C') {
      this.blankLine = false;
      this.places.commandStarted();
      this.commandRunning = true;
      this.statusAwaited = true;
      this.promptMark = undefined;
      this.promptSeen = undefined;
      return;
    }
    // A prompt mark counts once: a new command number, or the first after a fresh exit-status mark.
    if (marker.command <= this.countedCommand && !this.freshStatus) {
      this.redrawn = !cursor.alternate;
      this.places.redrawn(cursor);
      return;
    }
    this.redrawn = false;
    this.countedCommand = Math.max(this.countedCommand, marker.command);
    this.statusMissing = this.statusAwaited;
    this.statusAwaited = false;
    this.freshStatus = false;
    this.commandRunning = false;
    this.places.counted(cursor, this.statusMissing);
    this.promptMark = { dispatch, cursor };
    this.countedPromptDispatch = dispatch;
    this.promptSeen = { dispatch };
    this.promptLooks = 0;
  }

  /** A chunk is parsed (`output`: it had text, not only marks). */
  parsed(output: boolean): void {
    if (output) this.lastOutputAt = performance.now();
    if (this.promptMark) this.schedulePromptCheck();
    else this.schedulePoll(QUIET_CHECK_MS);
  }

  /** A write is about to go in: it changes what the shell will do, evidence before it no longer counts. */
  writing(data: string): void {
    this.interventions += 1;
    this.promptMark = undefined;
    this.promptSeen = undefined;
    this.throughOutput.forget();
    this.places.written();
    this.seenWait = undefined;
    this.siblingsWorkedAt = undefined;
    this.blankLine = BLANK_LINE.test(data) && !this.commandRunning && !this.lineHeld();
    // Enter submits a line; Ctrl-C at the prompt drops it and bash draws the prompt again.
    const lineEnd = lastLineEnd(data);
    if (lineEnd >= 0) {
      this.lineSubmitted = true;
      this.lineUnstarted = true;
      this.redrawn = false;
    }
    if (lineEnd < data.length - 1) this.lineOpen = true;
    else if (lineEnd >= 0) this.lineOpen = false;
    this.lastWriteAt = performance.now();
    this.typedAhead.writing(data, this.lastWriteAt);
  }

  /** A signal goes to the program in front (typed or a kill): what was seen before it, a wait the
   *  program may be ending, no longer counts, and waits are judged as just after a write. */
  signalled(): void {
    const status = this.lastStatus;
    // Its line is over when a prompt counted after its status and no command started since.
    if (status && !this.freshStatus && !this.commandRunning && this.countedPromptDispatch === status.dispatch) {
      this.statusBeforeSignal = status;
    }
    // bash at its prompt draws a fresh one when signalled (SIGINT), so the prompt seen before counts no more.
    this.interventions += 1;
    this.promptMark = undefined;
    this.promptSeen = undefined;
    this.seenWait = undefined;
    this.reportedWait = undefined;
    this.siblingsWorkedAt = undefined;
    this.throughOutput.forget();
    this.lastWriteAt = performance.now();
  }

  /** Where the line bash holds unsubmitted begins (the end of the prompt it was typed at), if one is open. */
  openLineStart(): ScreenPosition | undefined {
    return this.lineHeld() ? this.places.end : undefined;
  }

  /**
   * bash's line editor holds text nobody submitted: typed by a send without Enter, or drawn by bash after a
   * prompt it redrew (a history line put back to edit). bash shows its line after its prompt, so after a
   * redraw the screen says whether it holds anything (a redraw of an empty line, Ctrl-L, holds nothing).
   * A person's typed text counts as held even once erased: a person typing at the prompt is not done.
   */
  private lineHeld(): boolean {
    if (this.lineOpen) return !this.lineErased();
    if (!this.redrawn) return false;
    return (this.host.screen.lineTextFrom(this.places.end)?.trim() ?? '') !== '';
  }

  /**
   * The engine typed a line without submitting it and it is erased again (Ctrl-U, backspaces, Ctrl-A
   * Ctrl-K): bash shows nothing after the prompt it was typed at and the cursor stands where that prompt
   * ended, so nothing waits to be run. Not while a person holds the terminal (they are typing).
   */
  private lineErased(): boolean {
    const end = this.places.end;
    if (!this.lineOpen || !end || !this.host.observer()?.engineMayType()) return false;
    const { screen } = this.host;
    const cursor = screen.absoluteCursor();
    if (cursor.alternate || cursor.line !== end.line || cursor.x !== end.x) return false;
    return screen.lineTextFrom(end)?.trim() === '';
  }

  /** No write nor signal went in since `epoch`: looks taken before one say nothing of the terminal now
   *  (a recovery's SIGINT typed while a check of the prompt before it was still on its way). */
  private unchangedSince(epoch: number): boolean {
    return this.interventions === epoch;
  }

  /** A new operation that wrote nothing (a send of no text): waits are timed from now. */
  rewatch(): void {
    this.seenWait = undefined;
  }

  /** The write went in; or the emulator answered a terminal query (DA, CPR), which a program asleep now may
   *  still be waiting for: waits are judged as just after a write either way. No evidence is dropped. */
  written(): void {
    this.lastWriteAt = performance.now();
  }

  stop(): void {
    this.cancelPromptCheck?.();
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.cancelPromptCheck = undefined;
    this.pollTimer = undefined;
  }

  /**
   * At the first prompt, the depth at which bash's line editor waits: without it, the first command's
   * line editor would be told from `read -e` only by marks, whose output may still be on its way.
   */
  async learnPromptStack(): Promise<void> {
    const { handle } = this.host;
    if (handle.inputWaitDetection !== true) return;
    for (let attempt = 0; attempt < LEARN_STACK_ATTEMPTS && this.promptStack === undefined && !this.host.disposed(); attempt++) {
      const info = await handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
      this.noteImage(info);
      if (this.lastWriteAt > 0) return; // input arrived: the line editor may be elsewhere now
      if (info?.inputStack !== undefined && isLineEditor(info, this.host.pid)) {
        this.promptStack = info.inputStack;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, LEARN_STACK_RETRY_MS));
    }
  }

  // ------------------------------------------------------------------ the prompt mark's fast path

  /** Check the prompt once the current parse run is over, or `retryMs` later. */
  private schedulePromptCheck(retryMs?: number): void {
    const observer = this.host.observer();
    if (this.cancelPromptCheck || !observer || observer.interest() === 'none') return;
    const run = () => {
      this.cancelPromptCheck = undefined;
      void this.checkPrompt();
    };
    if (retryMs === undefined) {
      const immediate = setImmediate(run);
      this.cancelPromptCheck = () => clearImmediate(immediate);
    } else {
      const timer = setTimeout(run, retryMs);
      this.cancelPromptCheck = () => clearTimeout(timer);
    }
  }

  /** The fast path: a prompt mark was just parsed. Returns true when a prompt was reported. */
  private async checkPrompt(): Promise<boolean> {
    const { handle, pid } = this.host;
    const mark = this.promptMark;
    const observer = this.host.observer();
    const epoch = this.interventions;
    if (!mark || !observer || observer.interest() === 'none' || !this.host.running()) return false;
    // A late status mark would take this prompt's place: look at the kernel once it had its time.
    const late = lateStatusWaitMs(this.statusMissing, performance.now() - this.lastOutputAt);
    if (late > 0) {
      this.schedulePromptCheck(late);
      return false;
    }
    const info = await handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
    if (this.promptMark !== mark) return false; // more output arrived meanwhile
    this.noteImage(info);
    // Where waits cannot be seen (macOS), bash in front is all the kernel says.
    const waitsKnown = handle.inputWaitDetection === true;
    // The mark is fresh (the cursor still stands where it left it): whatever call bash sleeps in, it is
    // the prompt's, the line editor's or, without line editing, a plain read of the next command line.
    const shellWaiting = info !== undefined && (waitsKnown ? isShellReading(info, pid) : info.processGroupId === pid);
    if (!shellWaiting) {
      // bash not yet asleep in its line editor: look again soon; after that (a forged mark, a prompt
      // that reads something first) the poll looks at its own pace.
      this.promptLooks += 1;
      if (this.promptLooks < PROMPT_LOOKS) this.schedulePromptCheck(PROMPT_RETRY_MS);
      else this.schedulePoll(this.host.pollIntervalMs);
      return false;
    }
    // Output still being parsed would move the cursor: look once everything read so far is parsed.
    const now = await this.host.atBoundary(() => this.host.screen.absoluteCursor());
    if (this.promptMark !== mark) return false;
    if (now.x !== mark.cursor.x || now.line !== mark.cursor.line || now.alternate) {
      // Something was drawn after the prompt (typed-ahead input, a background job): this prompt is no
      // longer pristine; the poll may still find bash at it (checkPromptAfterMark).
      this.promptMark = undefined;
      this.schedulePoll(this.host.pollIntervalMs);
      return false;
    }
    if (!(await this.typedAheadSettled()) || !this.unchangedSince(epoch)) return false;
    this.reportPrompt(observer, mark.dispatch, 'marker', info);
    return true;
  }

  /**
   * A prompt mark counted after the last write, and output has moved past it since: a background job
   * printing (which may never go quiet), or text typed ahead. The line has ended when bash sleeps in its
   * line editor at the depth of its prompt (not a `read -e` inside a command, which is deeper), and a
   * second look agrees: bash reads no line there while a command of that line still runs, and only a
   * process outside the foreground can be printing. Output in between does not matter, as it would for a
   * wait. Returns true when a prompt was reported.
   */
  private async checkPromptAfterMark(observer: GenerationObserver, dispatch: number): Promise<boolean> {
    const { handle, pid } = this.host;
    const seen = this.promptSeen;
    const stack = this.promptStack;
    const now = performance.now();
    const epoch = this.interventions;
    // A line typed after the prompt and not submitted: bash waits for the rest of it (evidence.ts).
    if (this.lineHeld() || !seen || stack === undefined) return false;
    if (now - this.lastWriteAt < WRITE_SETTLE_MS || now - this.lastAfterMarkLook < AFTER_MARK_LOOK_MS) return false;
    if (lateStatusWaitMs(this.statusMissing, now - this.lastOutputAt) > 0) return false;
    this.lastAfterMarkLook = now;
    const atPrompt = (info: ForegroundInfo | undefined) => {
      this.noteImage(info);
      return info !== undefined && isLineEditor(info, pid) && info.inputStack === stack && this.promptStack === stack;
    };
    if (!atPrompt(await handle.inspectForeground({ terminalFlags: false }).catch(() => undefined))) return false;
    const again = await this.lookAgain(false);
    if (!atPrompt(again) || this.promptSeen !== seen || this.promptMark || observer.dispatch() !== dispatch) return false;
    if (!(await this.typedAheadSettled()) || !this.unchangedSince(epoch)) return false;
    this.reportPrompt(observer, dispatch, 'marker', again);
    return true;
  }

  /**
   * bash is idle at its own top-level prompt now: asleep in its line editor at the depth of its prompt
   * (learnt at a reported prompt), or, before that depth is known, with the last prompt mark that counted
   * still standing (no write nor output since). A send that types nothing asks this to return at once.
   */
  async atPrompt(): Promise<boolean> {
    const { handle, pid } = this.host;
    // A line typed and not submitted: bash waits for the rest of it, which the poll reports.
    if (handle.inputWaitDetection !== true || this.lineHeld()) return false;
    const mark = this.promptMark;
    const info = await handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
    this.noteImage(info);
    if (info === undefined || !isShellReading(info, pid)) return false;
    if (isLineEditor(info, pid) && this.promptStack !== undefined && info.inputStack !== undefined)
      return info.inputStack === this.promptStack;
    // Before the depth is known, or without line editing: the prompt's mark still stands.
    return mark !== undefined && this.promptMark === mark;
  }

  /** bash itself asleep in its line editor now (readline: its prompt, a continuation line, `read -e`). */
  async lineEditorInFront(): Promise<boolean> {
    const info = await this.host.handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
    this.noteImage(info);
    return info !== undefined && isLineEditor(info, this.host.pid);
  }

  /** The confirming look: the program's own prompt text arrives and is parsed first. */
  private async lookAgain(terminalFlags: boolean): Promise<ForegroundInfo | undefined> {
    await new Promise((resolve) => setTimeout(resolve, CONFIRM_SETTLE_MS));
    await this.host.atBoundary(() => undefined);
    return this.host.handle.inspectForeground({ terminalFlags }).catch(() => undefined);
  }

  /**
   * Lines typed ahead hold back a prompt, or bash's own read, until bash has read them (typed-ahead.ts).
   * Once it has, it may have read the last of them after drawing the prompt being judged, and what it
   * printed since may still be unread. bash asleep reading the terminal now has printed all it will
   * before that sleep; a look after the output has had its turn settles it: no new output, nothing stale.
   */
  private async typedAheadSettled(): Promise<boolean> {
    const verdict = this.typedAhead.look(performance.now());
    if (verdict === 'clear') return true;
    if (verdict === 'read') {
      const { handle, pid } = this.host;
      const sequence = this.host.sequence();
      const info = await handle.inspectForeground({ terminalFlags: false }).catch(() => undefined);
      this.noteImage(info);
      if (info !== undefined && isShellReading(info, pid)) {
        await new Promise((resolve) => setTimeout(resolve, CONFIRM_SETTLE_MS));
        await this.host.atBoundary(() => undefined);
        // Reading held back behind a parse that lags: the rest may still wait in the terminal.
        if (this.host.sequence() === sequence && !this.host.readingPaused()) {
          this.typedAhead.confirmed();
          return true;
        }
      }
    }
    this.schedulePoll(TYPED_AHEAD_LOOK_MS);
    return false;
  }

  /** Called with everything read so far parsed (the cursor is where the prompt left it). */
  private reportPrompt(
    observer: GenerationObserver,
    dispatch: number,
    evidence: 'marker' | 'kernel',
    info: ForegroundInfo | undefined,
  ): void {
    if (info?.inputStack !== undefined && isLineEditor(info, this.host.pid)) this.promptStack = info.inputStack;
    // A prompt is reported with nothing typed on its line (its mark's cursor stands, or lineOpen was false),
    // unless a newer write overtook the report (a check begun before it, ending after): that write's line,
    // submitted or open, is for the next verdict to judge.
    if (observer.dispatch() === dispatch) {
      this.lineSubmitted = false;
      this.lineOpen = false;
      this.redrawn = false;
    }
    this.promptSeen = undefined;
    // A prompt bash drew without its mark: the hook is gone from this image until marks come back.
    if (evidence === 'kernel') this.marksInImage = false;
    // A signal that hit the prompt of a command line already over: that command's status is the one.
    const status = this.statusBeforeSignal?.dispatch === dispatch ? this.statusBeforeSignal : this.lastStatus;
    // The first prompt after a restore follows the restore line, whose status says nothing of the command.
    const restored = this.restoreTried?.dispatch === dispatch;
    const exitCode = status && status.dispatch === dispatch && !restored && !this.blankLine ? status.status : undefined;
    observer.prompt(dispatch, { exitCode, evidence: restored ? 'kernel' : evidence, start: this.places.outputEnd(evidence) });
  }

  /**
   * Types the restore line (see shell/restore.ts) when bash exec'd into a new bash, once per image, while
   * no person is typing. True when it was typed: the marked prompt that follows ends the operation.
   */
  private async restoreIntegration(observer: GenerationObserver, dispatch: number): Promise<boolean> {
    const image = this.shellImage;
    if (!this.imageChanged || image === undefined || this.restoreTried?.image === image) return false;
    if (!observer.engineMayType() || this.shellProgram !== 'bash') return false;
    this.restoreTried = { image, dispatch };
    try {
      const line = await prepareRestore(this.host.nonce);
      if (observer.dispatch() !== dispatch || this.shellImage !== image) return false;
      await this.host.write(line);
      return true;
    } catch {
      return false;
    }
  }

  // ------------------------------------------------------------------ the kernel's looks

  /** A new program image in the shell process (it exec'd): the old image's marks say nothing now. */
  private noteImage(info: ForegroundInfo | undefined): void {
    const image = info?.shellImage;
    if (image === undefined) return;
    if (this.shellImage !== undefined && this.shellImage !== image) {
      this.commandRunning = false;
      this.statusAwaited = false;
      this.statusMissing = false;
      this.promptMark = undefined;
      this.promptSeen = undefined;
      this.freshStatus = false;
      this.promptStack = undefined;
      this.imageChanged = true;
      this.marksInImage = false;
      // `exec bash` or `exec python3`: which decides whether its line editor can be a prompt.
      this.shellProgram = runsBash(this.host.pid) ? 'bash' : 'other';
    }
    this.shellImage = image;
  }

  /** A look in `delay` ms, or sooner if one is due sooner: new output can only bring a look forward. */
  private schedulePoll(delay: number): void {
    const observer = this.host.observer();
    if (this.host.disposed() || !observer || observer.interest() === 'none') return;
    const due = performance.now() + delay;
    if (this.pollTimer) {
      if (this.pollDueAt <= due) return;
      clearTimeout(this.pollTimer);
    }
    this.pollDueAt = due;
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
    const wait = { pid: info.inputProcessId, call: info.inputCall, stack: info.inputStack };
    if (seen && seen.pid === wait.pid && seen.call === wait.call && seen.stack === wait.stack) {
      return now - seen.since;
    }
    this.seenWait = { ...wait, since: now };
    return 0;
  }

  /** How long ago the reader's siblings were last seen working since the last write (see evidence.ts). */
  private noteSiblings(info: ForegroundInfo | undefined, now: number): number | undefined {
    const siblings = info?.inputSiblings;
    if (info && siblings) {
      const before = this.siblings?.processGroupId === info.processGroupId ? this.siblings : undefined;
      if (siblingsWorking(before, siblings, now)) this.siblingsWorkedAt = now;
      this.siblings = { processGroupId: info.processGroupId, cpuNs: siblings.cpuNs, at: now };
    }
    return this.siblingsWorkedAt === undefined ? undefined : now - this.siblingsWorkedAt;
  }

  /**
   * A wait while output never goes quiet (see wait-through-output.ts), asked for once the operation takes
   * input waits, no prompt mark is pending and the last write had time to reach its reader. Returns true
   * when a wait was reported.
   */
  private async waitThroughOutput(observer: GenerationObserver, dispatch: number): Promise<boolean> {
    if (observer.interest() !== 'prompt-and-input' || this.promptMark) return false;
    // Input just written may still be on its way to a reader that sleeps as if nothing came.
    if (performance.now() - this.lastWriteAt < INPUT_DELIVERY_MS) return false;
    const epoch = this.interventions;
    const wait = await this.throughOutput.step(dispatch, () => observer.dispatch() === dispatch && !this.promptMark);
    if (!wait || !this.unchangedSince(epoch)) return false;
    this.reportedWait = { dispatch, sequence: this.host.sequence() };
    observer.inputWait(dispatch, wait.wait);
    return true;
  }

  /** The verdict on a look taken through output: an input wait, or undefined. Relays and readers outside
   *  the group have no fingerprint (their inner programs print through processes outside it), nor does
   *  bash's line editor at its prompt's depth count (the prompt rules decide it). */
  private throughOutputVerdict(info: ForegroundInfo | undefined): InputVerdict | undefined {
    this.noteImage(info);
    if (info?.stillness === undefined || info.inner !== undefined || info.inputOutside) return undefined;
    const shellEditor = info.inputProcessId === this.host.pid && info.inputCall === 'poll' && info.inputTimed !== true;
    const deeper = this.promptStack !== undefined && info.inputStack !== undefined && info.inputStack !== this.promptStack;
    if (shellEditor && !deeper) return undefined;
    const verdict = this.observe(info, { throughOutput: true });
    return verdict.kind === 'input' ? verdict : undefined;
  }

  private observe(info: ForegroundInfo | undefined, look: { throughOutput?: boolean } = {}): Verdict {
    const now = performance.now();
    const observation: Observation = {
      shellPid: this.host.pid,
      shellProgram: this.shellProgram,
      waitsKnown: this.host.handle.inputWaitDetection === true,
      front: info,
      marks: {
        prompt: this.promptMark !== undefined,
        commandRunning: this.commandRunning,
        statusMissing: this.statusMissing,
        promptStack: this.promptStack,
        lineSubmitted: this.lineSubmitted,
        lineOpen: this.lineHeld(),
        lineErased: this.lineErased(),
        continuing: this.lineUnstarted && this.marksInImage,
      },
      sinceWriteMs: now - this.lastWriteAt,
      // Through output, the group's stillness stands for quiet (wait-through-output.ts).
      quietMs: look.throughOutput ? Number.POSITIVE_INFINITY : now - this.lastOutputAt,
      waitSeenMs: this.noteWait(info, now),
    };
    const siblingsQuietMs = this.noteSiblings(info, now);
    if (siblingsQuietMs !== undefined) observation.siblingsQuietMs = siblingsQuietMs;
    return judge(observation);
  }

  private async poll(): Promise<void> {
    const observer = this.host.observer();
    if (this.phase.kind === 'inspecting' || !observer || this.host.disposed() || !this.host.running()) return;
    if (observer.interest() === 'none') return;
    const phase: PollPhase & { kind: 'inspecting' } = { kind: 'inspecting', nextDelayMs: undefined };
    this.phase = phase;
    try {
      if (this.promptMark && (await this.checkPrompt())) return;
      const dispatch = observer.dispatch();
      if (dispatch < 0) {
        // A write is in flight: what the kernel shows now may predate it.
        phase.nextDelayMs = 2;
        return;
      }
      if (!this.promptMark && this.promptSeen?.dispatch === dispatch && (await this.checkPromptAfterMark(observer, dispatch))) return;
      const outputBefore = this.host.sequence();
      // A wait already reported for this dispatch, with no output since: nothing new to learn.
      if (this.reportedWait && this.reportedWait.dispatch === dispatch && this.reportedWait.sequence === outputBefore) return;
      const sinceOutput = performance.now() - this.lastOutputAt;
      if (sinceOutput < QUIET_CHECK_MS) {
        if (await this.waitThroughOutput(observer, dispatch)) return;
        phase.nextDelayMs = Math.max(1, QUIET_CHECK_MS - sinceOutput);
        return;
      }
      const { handle } = this.host;
      const epoch = this.interventions;
      // The first look only starts reading the terminal flags (a process spawn); the confirming one
      // takes them, without a new spawn when the reader slept in between.
      const info = await handle.inspectForeground({ terminalFlags: 'ahead' }).catch(() => undefined);
      this.noteImage(info);
      if (info?.shellStopped && handle.continueShell) {
        // Nothing above the shell can continue it (no parent shell runs `fg`): the terminal would stay
        // frozen, and the queue blocked until a reset threw the shell's state away.
        handle.continueShell();
        phase.nextDelayMs = QUIET_CHECK_MS;
        return;
      }
      const verdict = this.observe(info);
      if (verdict.kind === 'undecided') {
        if (verdict.retryMs !== undefined) phase.nextDelayMs = Math.max(1, Math.min(this.host.pollIntervalMs, verdict.retryMs));
        return;
      }
      // The same verdict, no output in between and the same dispatch, or nothing is reported.
      const again = await this.lookAgain(verdict.kind === 'input');
      this.noteImage(again);
      const confirmed = this.observe(again);
      if (!sameVerdict(verdict, confirmed) || this.host.sequence() !== outputBefore || observer.dispatch() !== dispatch) return;
      if (confirmed.kind === 'prompt') {
        if (confirmed.evidence === 'marker' && !this.promptMark && !this.lineErased()) return;
        // A new bash in this process: put the hook back, and report the prompt it draws then.
        if (confirmed.evidence === 'kernel' && (await this.restoreIntegration(observer, dispatch))) return;
        if (!(await this.typedAheadSettled()) || !this.unchangedSince(epoch)) return;
        this.reportPrompt(observer, dispatch, confirmed.evidence, again);
        return;
      }
      if (confirmed.kind === 'input') {
        // bash's own `read` takes lines typed ahead from the same count; another reader's reads are not
        // in it until it ends, and the timing rules in evidence.ts stand for them.
        if (confirmed.wait.shell && !(await this.typedAheadSettled())) return;
        if (!this.unchangedSince(epoch)) return;
        this.reportedWait = { dispatch, sequence: outputBefore };
        observer.inputWait(dispatch, confirmed.wait);
      }
    } finally {
      this.phase = { kind: 'idle' };
      this.schedulePoll(phase.nextDelayMs ?? this.host.pollIntervalMs);
    }
  }
}
