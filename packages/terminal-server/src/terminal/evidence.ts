/**
 * The rules that say whether the running operation is done: a pure function from what was observed
 * (shell-integration marks, the kernel's facts about who reads the terminal, how long output and input
 * have been quiet) to a verdict. The generation gathers the observations and confirms a verdict with a
 * second, identical one before it reports it; the README's "How we know" states the same rules.
 */
import type { ForegroundInfo, InputCall } from '../pty/contract.ts';

/** Input just written may not have reached its reader yet (the line discipline delivers it from a kernel
 *  worker): nothing seen sooner than this after a write is trusted. */
export const WRITE_SETTLE_MS = 15;
/** Input just written may still sit in the terminal's buffer (the kernel hands it to the line discipline
 *  from a worker that a loaded machine runs late), while its reader still sleeps as if nothing came. A
 *  wait counts once the program showed it took the input (it printed since the write), or this long after
 *  the write without output (a reader that takes input silently, such as `read -s`). */
export const INPUT_DELIVERY_MS = 250;
/** A program that printed this recently is not waiting for input yet: it may still be drawing its prompt. */
export const OUTPUT_QUIET_MS = 8;
/** Without a mark, bash idle in its line editor counts as its prompt only after this much quiet, so that
 *  the prompt's own drawing (PS1, PROMPT_COMMAND's output) is over. */
export const UNMARKED_PROMPT_QUIET_MS = 100;
/** A wait with a timeout shorter than this ends by itself (`read -t 0.3` for an optional key): it counts
 *  as waiting for input only once it was seen for longer than its timeout, which one wait cannot last, so
 *  the program keeps waiting again (a polling loop). */
export const SHORT_TIMED_WAIT_MS = 1000;
/** An epoll wait counts once seen this long: a program that stopped reading (node's REPL after .exit,
 *  finishing its history file before it exits) still has the terminal in its interest list. */
export const INTEREST_LIST_SEEN_MS = 60;
/** A relay whose inner terminal cannot be seen (ssh) counts as waiting only after this much quiet: a
 *  command running there in silence for longer is reported as a wait, marked uncertain. */
export const UNSEEN_RELAY_QUIET_MS = 1000;
/** Looks are this far apart at most; "seen for longer than its timeout" allows for one such gap. */
export const TIMED_WAIT_MARGIN_MS = 100;

/** Threads of a reader's group beside the reader (see `ForegroundInfo.inputSiblings`) that used this
 *  share of one CPU between two looks, or run at a look, are working: the program is busy beside its
 *  reader (a REPL compiling the line it read, a program computing while it watches for a key). */
export const SIBLINGS_BUSY_SHARE = 0.25;
/** A wait whose reader's siblings worked since the last write counts once they have been idle this long.
 *  jshell's evaluation pauses for up to about 90 ms with every thread asleep (a round trip to its
 *  execution agent) before it prints the answer; this is a few such pauses. */
export const SIBLINGS_QUIET_MS = 250;
/** A reader whose siblings keep working counts as waiting after this long anyway, marked busy: a REPL
 *  with a worker thread computing in the background does wait for its next line. */
export const BUSY_READER_HOLD_MS = 5000;

export interface ShellMarks {
  /** A prompt mark that counts (its number is new, or a fresh exit-status mark came first) is the last
   *  thing drawn, with the cursor where the mark left it. */
  prompt: boolean;
  /** A command line started (its PS0 mark) since the last prompt mark that counted, in this shell image:
   *  the shell's line editor is then a `read -e` inside that command, not the prompt. */
  commandRunning: boolean;
  /** The counted prompt mark (`prompt`) ended a command line that started (its PS0 mark) with no
   *  exit-status mark between: the hook's mark goes to stdout and the prompt to stderr, so with stdout
   *  sent through a pipe (`exec > >(tee log)`) the command's last output and its status come after the
   *  prompt (with stdout sent to a file the hook writes its mark to /dev/tty). */
  statusMissing: boolean;
  /** Where bash's stack stood when it waited at a prompt that counted, in this program image: its
   *  top-level line editor always waits at that depth, `read -e` deeper. */
  promptStack?: string;
  /** A line was submitted (a CR or LF written) or dropped (Ctrl-C) since the last prompt was reported.
   *  Without one, bash idle in its line editor is a person still typing at the prompt, not a prompt. */
  lineSubmitted: boolean;
  /** bash's line editor holds a line nobody has submitted yet: text written after the last line break (a send
   *  with submit false, a recalled history line) or drawn by bash after redrawing its prompt (a history
   *  line put back to edit), and not shown erased. */
  lineOpen: boolean;
  /** The line the engine typed without submitting is shown erased (Ctrl-U, backspaces): nothing after the
   *  prompt it was typed at, the cursor where that prompt ended. bash is back at that prompt. */
  lineErased: boolean;
  /** A line was submitted and, although bash marks its commands and prompts in this image, it has since
   *  neither started a command (PS0's mark) nor ended the line (an exit-status or prompt mark): it reads
   *  more of that command (PS2: an open `for`, a trailing backslash). */
  continuing: boolean;
}

/** What the shell process runs: bash (as started, or after `exec bash`), or another program it exec'd
 *  (`exec python3`). */
export type ShellProgram = 'bash' | 'other';

export interface Observation {
  shellPid: number;
  shellProgram: ShellProgram;
  /** The provider can see input waits (Linux); false on providers that only report the foreground. */
  waitsKnown: boolean;
  front: ForegroundInfo | undefined;
  marks: ShellMarks;
  sinceWriteMs: number;
  quietMs: number;
  /** How long the same reader has been seen waiting, look after look, in the same kind of call. */
  waitSeenMs: number;
  /** How long ago the reader's siblings were last seen working (see `siblingsWorking`), when they were
   *  since the last write; absent when they were not, or the reader has none. */
  siblingsQuietMs?: number;
}

/** A sample of a reader's siblings: their CPU time so far, and when it was read (ms, performance.now). */
export interface SiblingSample {
  cpuNs: number;
  at: number;
}

/**
 * Whether the siblings worked: one runs at this look, or since `before` they used SIBLINGS_BUSY_SHARE of a
 * CPU. A `before` older than SIBLINGS_QUIET_MS (taken before the last write) is judged over that window
 * only, as if all the time it counts had been used in it: a program that idles with a little background
 * work (a JVM's periodic threads) then costs at most one quiet window, never a missed burst.
 */
export function siblingsWorking(before: SiblingSample | undefined, now: { running: boolean; cpuNs: number }, at: number): boolean {
  if (now.running) return true;
  if (!before) return false;
  const elapsed = Math.min(at - before.at, SIBLINGS_QUIET_MS);
  return elapsed > 0 && (now.cpuNs - before.cpuNs) / 1e6 >= SIBLINGS_BUSY_SHARE * elapsed;
}

export interface WaitFacts {
  processGroupId: number;
  command: string | undefined;
  secret: boolean;
  /** The waiting program is bash itself (its `read` builtin, or `read -e` in its line editor). */
  shell: boolean;
  call: InputCall | undefined;
  /** The reader's siblings kept working for BUSY_READER_HOLD_MS: it reads input while it also computes. */
  busy?: true;
  /** The program in front relays to a terminal of its own: `inside` names what waits there, or the wait
   *  inside cannot be seen ('unknown': ssh to another machine, a tmux server started elsewhere). */
  relay?: { program: string | undefined; inside: string | undefined } | 'unknown';
  /** bash waits at its own prompt with a typed line not yet submitted: it waits for the rest of that line,
   *  so the command before it is over, but the prompt is not a fresh one. */
  unsubmitted?: true;
}

export type Verdict =
  { kind: 'undecided'; retryMs?: number } | { kind: 'prompt'; evidence: 'marker' | 'kernel' } | { kind: 'input'; wait: WaitFacts };

const undecided = (retryMs?: number): Verdict => (retryMs === undefined ? { kind: 'undecided' } : { kind: 'undecided', retryMs });

export function judge(o: Observation): Verdict {
  if (o.sinceWriteMs < WRITE_SETTLE_MS) return undecided(WRITE_SETTLE_MS - o.sinceWriteMs);
  const front = o.front;
  if (!front) return undecided();
  const shellInFront = front.processGroupId === o.shellPid;
  if (!o.waitsKnown) {
    // Only the foreground is known: the mark plus bash in front is all the evidence there is.
    return shellInFront && o.marks.prompt ? { kind: 'prompt', evidence: 'marker' } : undecided();
  }
  if (!front.inputWaiting) return undecided();
  if (o.quietMs < OUTPUT_QUIET_MS) return undecided(OUTPUT_QUIET_MS - o.quietMs);
  if (!tookInput(o) && o.sinceWriteMs < INPUT_DELIVERY_MS) return undecided(INPUT_DELIVERY_MS - o.sinceWriteMs);
  const ending = shortWaitPending(o, front);
  if (ending !== undefined) return undecided(ending);
  if (front.inputInterestList === true && o.waitSeenMs < INTEREST_LIST_SEEN_MS) return undecided(INTEREST_LIST_SEEN_MS - o.waitSeenMs + 1);
  const readerIsShell = (front.inputProcessId ?? (shellInFront ? o.shellPid : -1)) === o.shellPid;
  // After `exec python3` the shell's process is that program, and it waits like any other.
  if (readerIsShell && o.shellProgram === 'bash') return judgeShell(o, front);
  const wait = waitFacts(front, false);
  if (o.siblingsQuietMs !== undefined && o.siblingsQuietMs < SIBLINGS_QUIET_MS) {
    // Another thread of the program worked a moment ago: the answer to the line it read may be coming.
    if (o.waitSeenMs < BUSY_READER_HOLD_MS) {
      return undecided(Math.min(SIBLINGS_QUIET_MS - o.siblingsQuietMs, BUSY_READER_HOLD_MS - o.waitSeenMs) + 1);
    }
    wait.busy = true;
  }
  if (front.inner === 'unknown') {
    // Nothing inside can be seen (ssh to another machine): only a longer quiet says something there waits.
    if (o.quietMs < UNSEEN_RELAY_QUIET_MS) return undecided(UNSEEN_RELAY_QUIET_MS - o.quietMs);
    return { kind: 'input', wait: { ...wait, relay: 'unknown' } };
  }
  if (front.inner) {
    // What runs inside decides: a relay always polls its input, whatever its inner program does.
    if (!front.inner.inputWaiting) return undecided();
    return {
      kind: 'input',
      wait: {
        ...wait,
        command: front.inner.command,
        secret: front.inner.secret === true,
        relay: { program: front.command, inside: front.inner.command },
      },
    };
  }
  return { kind: 'input', wait };
}

/** Output arrived after the last write. */
function tookInput(o: Observation): boolean {
  return o.quietMs < o.sinceWriteMs;
}

/**
 * A timed wait too short to be a question (or of a timeout that could not be read): the time still to
 * watch before it counts, or undefined when it counts now.
 */
function shortWaitPending(o: Observation, front: ForegroundInfo): number | undefined {
  if (front.inputTimed !== true) return undefined;
  if (front.inputTimeoutMs !== undefined && front.inputTimeoutMs >= SHORT_TIMED_WAIT_MS) return undefined;
  const timeout = front.inputTimeoutMs ?? SHORT_TIMED_WAIT_MS;
  const needed = timeout + TIMED_WAIT_MARGIN_MS;
  return o.waitSeenMs > needed ? undefined : needed - o.waitSeenMs + 1;
}

function waitFacts(front: ForegroundInfo, shell: boolean): WaitFacts {
  return { processGroupId: front.processGroupId, command: front.command, secret: front.secret === true, shell, call: front.inputCall };
}

/** bash itself reads the terminal: its prompt, or one of its `read` builtins. */
function judgeShell(o: Observation, front: ForegroundInfo): Verdict {
  const wait = waitFacts(front, true);
  // A prompt mark with no command line started since: bash reads its next command line, in its line
  // editor or, with line editing off (`set +o emacs +o vi`), in a plain read() like its `read` builtin's.
  if (o.marks.prompt) {
    const late = lateStatusWaitMs(o.marks.statusMissing, o.quietMs);
    return late > 0 ? undecided(late) : { kind: 'prompt', evidence: 'marker' };
  }
  // A blocking read() is the `read` builtin; a wait with a timeout is `read -t` (the prompt has none).
  if (front.inputCall === 'read' || front.inputTimed === true) return { kind: 'input', wait };
  // The line editor: the prompt, or `read -e` inside a running command line.
  const stack = o.marks.promptStack;
  if (stack !== undefined && front.inputStack !== undefined) {
    // The depth of the wait decides, whatever marks were lost on the way (the hook unset mid-command).
    if (front.inputStack !== stack) return { kind: 'input', wait };
    return unmarkedPrompt(o, wait);
  }
  if (o.marks.commandRunning) {
    // Without the depth, the line editor after a started command line is `read -e`, or the prompt whose
    // marks are still on their way from the terminal: let them arrive first.
    if (o.quietMs < UNMARKED_PROMPT_QUIET_MS) return undecided(UNMARKED_PROMPT_QUIET_MS - o.quietMs);
    return { kind: 'input', wait };
  }
  return unmarkedPrompt(o, wait);
}

/** No mark says a command runs (the shell exec'd, or its hook was removed), or typed text moved the cursor
 *  past the prompt's mark: bash idle in its line editor at the depth of its prompt. With a line typed and
 *  not submitted it waits for the rest of that line (the typing reached it: the checks before judgeShell
 *  saw its echo, or gave it INPUT_DELIVERY_MS); with a submitted line that neither started nor ended, for
 *  the rest of that command; otherwise it is taken for its prompt once the terminal has been quiet long
 *  enough. */
function unmarkedPrompt(o: Observation, wait: WaitFacts): Verdict {
  if (o.marks.lineOpen) return { kind: 'input', wait: { ...wait, unsubmitted: true } };
  // Erased (or nothing shown at all, as when the line discipline took the input: Ctrl-S), once bash printed
  // since the write or had INPUT_DELIVERY_MS to take it (judge): the prompt it was typed at stands again.
  if (o.marks.lineErased) return { kind: 'prompt', evidence: 'marker' };
  // Without a mark, only output after the write shows bash read the line (it echoes what it reads).
  if (!o.marks.lineSubmitted || !tookInput(o)) return undecided();
  if (o.quietMs < UNMARKED_PROMPT_QUIET_MS) return undecided(UNMARKED_PROMPT_QUIET_MS - o.quietMs);
  // The quiet may be older than the sleep: bash woke from a long wait (`read -t`), printed its output and
  // its prompt, marks and all, and slept again before this process read any of it (a loaded machine reads
  // late). Only a sleep that has itself lasted that long vouches for the quiet.
  if (o.waitSeenMs < UNMARKED_PROMPT_QUIET_MS) return undecided(UNMARKED_PROMPT_QUIET_MS - o.waitSeenMs + 1);
  // Quiet that long, any mark bash wrote before it slept has been read: none came, so no prompt was drawn.
  if (o.marks.continuing) return { kind: 'input', wait };
  return { kind: 'prompt', evidence: 'kernel' };
}

/**
 * How long a prompt mark whose command line has no status yet (`statusMissing`) still waits for it: a late
 * status mark takes the prompt's place when it comes (the command's last output comes with it), and after
 * UNMARKED_PROMPT_QUIET_MS of quiet it is not coming. 0: no wait.
 */
export function lateStatusWaitMs(statusMissing: boolean, quietMs: number): number {
  return statusMissing && quietMs < UNMARKED_PROMPT_QUIET_MS ? UNMARKED_PROMPT_QUIET_MS - quietMs : 0;
}

/** Two verdicts agree (the confirming look saw the same thing). */
export function sameVerdict(a: Verdict, b: Verdict): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'prompt' && b.kind === 'prompt') return a.evidence === b.evidence;
  if (a.kind === 'input' && b.kind === 'input') {
    return a.wait.processGroupId === b.wait.processGroupId && a.wait.call === b.wait.call && a.wait.shell === b.wait.shell;
  }
  return true;
}
