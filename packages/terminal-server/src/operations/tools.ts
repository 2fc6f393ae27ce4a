/**
 * The four tools as host-agnostic functions: strict argument parsing (closed schemas), the operation on
 * the owner's terminal, and a result object whose JSON never exceeds maxToolOutputBytes. DSH, the HTTP
 * API and MCP all call these, so the model sees the same tool everywhere.
 */
import { CodedError } from '../errors.ts';
import { FOREGROUND_SIGNALS, type ForegroundSignal } from '../pty/contract.ts';
import type { TerminalHub } from '../hub/hub.ts';
import type { CapturedOutcome, OwnerView } from '../hub/owner.ts';
import type { OperationKind, QueueStatus, WaitReason } from '../queue/operation.ts';
import type { InputWait, ProcessStatus } from '../terminal/generation.ts';
import { utf8Length, utf8Tail, wellFormed } from '../utf8.ts';
import { compactCapture, type ViewportOmission } from './viewport-compact.ts';

export const TOOL_NAMES = ['shared_terminal_send', 'shared_terminal_read', 'shared_terminal_signal', 'shared_terminal_reset'] as const;
export type ToolName = (typeof TOOL_NAMES)[number];

export class ToolArgsError extends CodedError<'invalid-arguments'> {
  constructor(message: string) {
    super('ToolArgsError', 'invalid-arguments', message);
  }
}

export interface BaseResult {
  generation: number;
  sequence: number;
  rows: number;
  cols: number;
  viewport: string;
  cursor: { x: number; y: number };
  status: ProcessStatus;
  queueStatus: QueueStatus;
  holder: OperationKind | null;
  pendingCount: number;
  truncated: boolean;
}

export interface SendResult extends BaseResult {
  output: string;
  queueTimeMs: number;
  waitReason: WaitReason;
  exitCode?: number;
  /** Present when the prompt was known without the shell's own mark (bash exec'd, or its hook removed):
   *  bash is idle in its line editor, and no exit status is known. */
  promptEvidence?: 'kernel';
  inputWait?: {
    command: string | null;
    secret: boolean;
    processGroupId: number;
    /** The program in front that relays to a terminal of its own (tmux, screen, script); `command` is
     *  what waits inside it. */
    relay?: string;
    /** The relay's inner terminal cannot be seen from here (ssh to another machine): quiet output is the
     *  only evidence that a program there waits. */
    uncertain?: true;
    /** The program kept working beside its reader (another thread computing) for 5 s: it reads input, but
     *  output may still come (a send of no text waits for it). */
    busy?: true;
    /** bash waits at its prompt with text typed on its line but not submitted (a send with submit false):
     *  the command before it is over; Enter runs the line. */
    unsubmitted?: true;
  };
  /** Rows of the screen left out of viewport because output holds them (viewport-compact.ts). */
  viewportOmitted?: ViewportOmission;
}

export interface SignalResult extends SendResult {
  processGroupId: number | null;
}

export interface ReadResult extends BaseResult {
  text: string;
  totalLines: number;
  lineBegin: number;
  lineEnd: number;
}

export interface ResetResult extends BaseResult {
  queueTimeMs: number;
  waitReason: WaitReason;
}

export interface SendArgs {
  text: string;
  submit: boolean;
  /** This send's deadline in place of operationTimeoutMs, at most maxOperationTimeoutMs. */
  timeoutMs?: number;
}
export interface ReadArgs {
  offset: number;
  count: number;
}
export interface SignalArgs {
  signal: ForegroundSignal;
}

// ---------------------------------------------------------------------------------------- schemas

/** JSON Schemas of the arguments (closed: no other key is accepted). */
export const TOOL_INPUT_SCHEMAS = {
  shared_terminal_send: {
    type: 'object',
    properties: {
      text: { type: 'string', description: 'Text to type into the terminal.' },
      submit: { type: 'boolean', description: 'Press Enter after the text (default true).', default: true },
      timeoutMs: {
        type: 'integer',
        minimum: 1,
        description:
          'Deadline of this send in milliseconds, for a command known to run long (install, build, test suite). Without it the configured operationTimeoutMs (30 s by default) applies; the server refuses more than its maxOperationTimeoutMs (10 minutes by default).',
      },
    },
    required: ['text'],
    additionalProperties: false,
  },
  shared_terminal_read: {
    type: 'object',
    properties: {
      offset: { type: 'integer', minimum: 0, description: 'History lines to skip, counted from the newest (default 0).', default: 0 },
      count: {
        type: 'integer',
        minimum: 1,
        description: 'History lines to return, older than the skipped ones (default 500).',
        default: 500,
      },
    },
    additionalProperties: false,
  },
  shared_terminal_signal: {
    type: 'object',
    properties: {
      signal: { type: 'string', enum: [...FOREGROUND_SIGNALS], description: 'Signal for the foreground process group.' },
    },
    required: ['signal'],
    additionalProperties: false,
  },
  shared_terminal_reset: { type: 'object', properties: {}, additionalProperties: false },
} as const;

const COMMON_RULES =
  "The terminal is a persistent bash shared with the human in the browser; one FIFO queue orders your operations and the human's input.";

const OMITTED_ROWS =
  "When viewportOmitted {row, count} is present, viewport leaves out rows that output already holds: the screen is viewport's lines with the last count lines of output inserted before line row.";

/** Tool descriptions that teach the model the rules. */
export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  shared_terminal_send: `Type text into this agent's shared terminal (Enter is added unless submit is false) and wait until bash is back at its prompt, a program waits for input (waitReason stdin_read; inputWait.secret means a password prompt: let the human type it), the human takes over (human_handoff), the shell exits, or the deadline passes (timeout: SIGINT was sent; with exitCode the prompt came back, 130 when the SIGINT ended the command; with inputWait the interrupted program reads input again, e.g. a REPL back at its own prompt with its state kept; with neither, the command may still run). For a command that may run longer than 30 s (installs, builds, test suites), pass timeoutMs, e.g. 600000, instead of letting the deadline interrupt it. exitCode is absent when the line ran nothing (an empty or comment line at the prompt: bash keeps the last status) or the shell's hook could not report it (right after exec bash, or with the shell's stdout piped somewhere that never reaches the terminal); promptEvidence kernel means the prompt was seen without its mark. In a nested terminal (tmux, screen, script, ssh) inputWait.relay names it and inputWait.command what waits inside; inputWait.uncertain means the inside cannot be seen (ssh): only quiet output says it waits. inputWait.busy means the program also kept computing in another thread: it takes input, but more output may come. inputWait.unsubmitted means bash is at its prompt with text typed on its line but not submitted (submit false, Tab completion): text "" runs that line, Ctrl-U (\u0015 with submit false) clears it. Tabs in text reach bash's prompt as text (a heredoc keeps them); only tabs that end a text sent with submit false ask for completion. Lines are typed one by one, as keys: a REPL that indents by itself (IPython, Python 3.13+) adds its indent to yours, so send it a code block as a paste, \u001b[200~ before and \u001b[201~ after, ending with an empty line. A line over 4095 bytes is refused (line-too-long, nothing typed) while the program in front reads line by line: the kernel would drop its tail. Text "" with submit false types nothing and waits for what runs (it returns at once at an idle prompt): use it to wait for a busy program. ${COMMON_RULES} After human_handoff, never answer behind the human: wait for the notice that the human finished, then call shared_terminal_read before sending more. Prefer your normal shell tool for one-shot commands. ${OMITTED_ROWS}`,
  shared_terminal_read: `Read the shared terminal without taking the queue: the viewport, the cursor, and a page of history counted from the newest line (offset skips lines, count takes older ones; lineBegin inclusive, lineEnd exclusive). Call it first after a notice that the human finished an interaction. ${COMMON_RULES}`,
  shared_terminal_signal: `Queue a signal (SIGINT, SIGTERM, SIGKILL, SIGTSTP, SIGHUP) for the terminal's current foreground process group, re-checked at delivery. In a nested terminal (inputWait.relay: tmux, screen, script, ssh) SIGINT and SIGTSTP go in as Ctrl-C and Ctrl-Z, for the program inside; the other signals hit the relay itself. SIGKILL to the shell itself is refused: use shared_terminal_reset. ${OMITTED_ROWS} ${COMMON_RULES}`,
  shared_terminal_reset: `Queue a reset: end the terminal's whole process tree and start a new bash (the next generation). All shell state (cwd, variables, running programs) is lost. Use it after "queue is blocked until reset" or when the shell exited. ${COMMON_RULES}`,
};

// ---------------------------------------------------------------------------------------- parsing

function objectArgs(tool: ToolName, args: unknown, allowed: string[]): Record<string, unknown> {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) throw new ToolArgsError(`${tool}: arguments must be a JSON object`);
  const record = args as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      // The name is client data: quoted up to 32 characters, never whole.
      const name = key.length > 32 ? `${key.slice(0, 32)}…` : key;
      throw new ToolArgsError(
        `${tool}: unknown argument ${JSON.stringify(name)}; allowed: ${allowed.length ? allowed.join(', ') : 'none'}`,
      );
    }
  }
  return record;
}

/** `maxTimeoutMs` is the host's maxOperationTimeoutMs; without it any positive deadline is accepted. */
export function parseSendArgs(args: unknown, maxTimeoutMs?: number): SendArgs {
  const record = objectArgs('shared_terminal_send', args, ['text', 'submit', 'timeoutMs']);
  if (typeof record['text'] !== 'string') throw new ToolArgsError('shared_terminal_send: "text" must be a string');
  if (record['submit'] !== undefined && typeof record['submit'] !== 'boolean') {
    throw new ToolArgsError('shared_terminal_send: "submit" must be true or false');
  }
  const parsed: SendArgs = { text: record['text'], submit: record['submit'] !== false };
  const timeoutMs = record['timeoutMs'];
  if (timeoutMs !== undefined) {
    if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
      throw new ToolArgsError('shared_terminal_send: "timeoutMs" must be a whole number of milliseconds >= 1');
    }
    if (maxTimeoutMs !== undefined && timeoutMs > maxTimeoutMs) {
      throw new ToolArgsError(
        `shared_terminal_send: "timeoutMs" is ${timeoutMs}, over this server's maxOperationTimeoutMs (${maxTimeoutMs}): ask for at most ${maxTimeoutMs}, or run the command in the background and poll with shared_terminal_read`,
      );
    }
    parsed.timeoutMs = timeoutMs;
  }
  return parsed;
}

export function parseReadArgs(args: unknown): ReadArgs {
  const record = objectArgs('shared_terminal_read', args, ['offset', 'count']);
  const offset = record['offset'] ?? 0;
  const count = record['count'] ?? 500;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw new ToolArgsError('shared_terminal_read: "offset" must be a whole number >= 0');
  }
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) {
    throw new ToolArgsError('shared_terminal_read: "count" must be a whole number >= 1');
  }
  return { offset, count };
}

function parseSignalArgs(args: unknown): SignalArgs {
  const record = objectArgs('shared_terminal_signal', args, ['signal']);
  const signal = record['signal'];
  if (typeof signal !== 'string' || !(FOREGROUND_SIGNALS as readonly string[]).includes(signal)) {
    throw new ToolArgsError(`shared_terminal_signal: "signal" must be one of ${FOREGROUND_SIGNALS.join(', ')}`);
  }
  return { signal: signal as ForegroundSignal };
}

function parseResetArgs(args: unknown): Record<string, never> {
  objectArgs('shared_terminal_reset', args, []);
  return {};
}

// ---------------------------------------------------------------------------------------- bounding

const CUTTABLE = ['output', 'text', 'viewport'] as const;

/**
 * Cap the whole JSON (escapes included) at `maxBytes` by cutting `output`, `text` and `viewport` to one
 * shared byte budget, keeping each field's newest valid UTF-8 suffix. Sets `truncated` when anything was cut.
 */
export function boundResult<T extends BaseResult>(result: T, maxBytes: number): T {
  const clean = { ...result } as T & Record<string, unknown>;
  for (const field of CUTTABLE)
    if (typeof clean[field] === 'string') (clean as Record<string, unknown>)[field] = wellFormed(clean[field] as string);
  if (utf8Length(JSON.stringify(clean)) <= maxBytes) return clean;
  const fields = CUTTABLE.filter((f) => typeof clean[f] === 'string');
  const originals = Object.fromEntries(fields.map((f) => [f, clean[f] as string]));
  const build = (budget: number): T => {
    const next = { ...clean, truncated: true } as unknown as Record<string, unknown>;
    for (const f of fields) next[f] = utf8Tail(originals[f]!, budget).text;
    return next as T;
  };
  let low = 0;
  let high = Math.max(...fields.map((f) => utf8Length(originals[f]!)));
  if (utf8Length(JSON.stringify(build(0))) > maxBytes) {
    throw new Error('terminal metadata exceeds maxToolOutputBytes');
  }
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (utf8Length(JSON.stringify(build(mid))) <= maxBytes) low = mid;
    else high = mid - 1;
  }
  return build(low);
}

// ---------------------------------------------------------------------------------------- tools

function baseResult(view: OwnerView): BaseResult {
  const state = view.state;
  return {
    generation: state.generation,
    sequence: state.sequence,
    rows: view.rows,
    cols: view.cols,
    // Blank rows below the last text say nothing (rows and cursor give the geometry): leave them out.
    viewport: view.viewport.replace(/\n+$/, ''),
    cursor: view.cursor,
    status: state.status,
    queueStatus: state.queueStatus,
    holder: state.holder,
    pendingCount: state.pendingCount,
    truncated: false,
  };
}

function describeWait(wait: InputWait | undefined): SendResult['inputWait'] {
  if (!wait) return undefined;
  const described: NonNullable<SendResult['inputWait']> = {
    command: wait.command ?? null,
    secret: wait.secret,
    processGroupId: wait.processGroupId,
  };
  if (wait.relay === 'unknown') {
    // The waiting program is the relay itself (ssh): name it, and say the inside cannot be seen.
    described.uncertain = true;
    if (wait.command !== undefined) described.relay = wait.command;
  } else if (wait.relay?.program !== undefined) described.relay = wait.relay.program;
  if (wait.busy) described.busy = true;
  if (wait.unsubmitted) described.unsubmitted = true;
  return described;
}

function outcomeFields(outcome: CapturedOutcome): Omit<SendResult, keyof BaseResult> & { truncatedOutput: boolean } {
  const fields: Omit<SendResult, keyof BaseResult> & { truncatedOutput: boolean } = {
    output: outcome.output,
    queueTimeMs: outcome.result.queueTimeMs,
    waitReason: outcome.result.waitReason,
    truncatedOutput: outcome.outputTruncated,
  };
  if (outcome.exitCode !== undefined) fields.exitCode = outcome.exitCode;
  if (outcome.promptEvidence === 'kernel') fields.promptEvidence = 'kernel';
  const wait = describeWait(outcome.inputWait);
  if (wait) fields.inputWait = wait;
  return fields;
}

/** When the shell itself ended, its exit code is the operation's. */
function exitFromStatus(fields: { waitReason: WaitReason; exitCode?: number }, status: ProcessStatus): void {
  if (fields.waitReason === 'session_exit' && status.kind === 'exited' && status.exitCode !== null) fields.exitCode = status.exitCode;
}

export async function runSend(hub: TerminalHub, ownerId: string, rawArgs: unknown, signal?: AbortSignal): Promise<SendResult> {
  const args = parseSendArgs(rawArgs, hub.config.maxOperationTimeoutMs);
  const owner = hub.acquire(ownerId);
  const outcome = await owner.send(args.submit ? `${args.text}\r` : args.text, signal, args.timeoutMs);
  const base = baseResult(outcome.view);
  const { truncatedOutput, ...fields } = outcomeFields(outcome);
  exitFromStatus(fields, base.status);
  const max = hub.config.maxToolOutputBytes;
  return boundResult(compactCapture({ ...base, ...fields, truncated: truncatedOutput }, max), max);
}

export async function runSignal(hub: TerminalHub, ownerId: string, rawArgs: unknown, signal?: AbortSignal): Promise<SignalResult> {
  const args = parseSignalArgs(rawArgs);
  const owner = hub.acquire(ownerId);
  const outcome = await owner.signal(args.signal, signal);
  const base = baseResult(outcome.view);
  const { truncatedOutput, ...fields } = outcomeFields(outcome);
  exitFromStatus(fields, base.status);
  const max = hub.config.maxToolOutputBytes;
  return boundResult(compactCapture({ ...base, ...fields, processGroupId: outcome.processGroupId, truncated: truncatedOutput }, max), max);
}

export async function runRead(hub: TerminalHub, ownerId: string, rawArgs: unknown): Promise<ReadResult> {
  const args = parseReadArgs(rawArgs);
  const owner = hub.acquire(ownerId);
  // The page and the view at one screen boundary: `sequence` and `viewport` belong to `text`.
  const { view, page } = await owner.readPage(args.offset, args.count, hub.config.maxToolOutputBytes);
  return boundResult(
    {
      ...baseResult(view),
      text: page.text,
      totalLines: page.totalLines,
      lineBegin: page.lineBegin,
      lineEnd: page.lineEnd,
      truncated: page.truncated,
    },
    hub.config.maxToolOutputBytes,
  );
}

export async function runReset(hub: TerminalHub, ownerId: string, rawArgs: unknown, signal?: AbortSignal): Promise<ResetResult> {
  parseResetArgs(rawArgs);
  const owner = hub.acquire(ownerId);
  const result = await owner.reset(signal);
  const base = baseResult(await owner.view());
  return boundResult({ ...base, queueTimeMs: result.queueTimeMs, waitReason: result.waitReason }, hub.config.maxToolOutputBytes);
}

/** Dispatch by tool name (HTTP API, MCP). */
export function runTool(hub: TerminalHub, ownerId: string, tool: ToolName, args: unknown, signal?: AbortSignal): Promise<BaseResult> {
  switch (tool) {
    case 'shared_terminal_send':
      return runSend(hub, ownerId, args, signal);
    case 'shared_terminal_read':
      return runRead(hub, ownerId, args);
    case 'shared_terminal_signal':
      return runSignal(hub, ownerId, args, signal);
    case 'shared_terminal_reset':
      return runReset(hub, ownerId, args, signal);
  }
}

export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}
