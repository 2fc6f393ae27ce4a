/**
 * How DSH Web draws our tool calls (`presentCall` / `presentResult`, DSH's render intents).
 *
 * - send and signal are commands in a terminal: DSH's terminal card (the command as its title, the
 *   session's working directory, the output, a Copy button, an exit-status pill). When the call did not
 *   end at the prompt, a last line says why it returned (waiting for input, taken over, timed out...).
 * - read and reset get compact cards of their own on the same terminal card (DSH Web 0.1.0-rc.8 draws no
 *   generic render intent: it would show the raw arguments and result): the tool's name where a command
 *   goes, a one-line description as the row's summary, and the screen (read) or the new generation
 *   (reset) as the body.
 *
 * Presenters are pure: DSH calls them live and again when it replays a session log, with the call's
 * arguments (unvalidated JSON) and the model-facing result text, which is our bounded JSON. Anything that
 * does not parse falls back to DSH's plain card (`undefined`). The model's text is not touched.
 */
import type { ToolName } from '@shared-terminal/server';
import type { PresentedResult, ToolCallView, ToolResultView } from './dsh-api.ts';

type Args = Record<string, unknown>;
type Result = Record<string, unknown>;

function argsOf(args: unknown): Args {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Args) : {};
}

/** Our result object, parsed back from the model-facing text (undefined if it is not ours). */
export function parseResult(result: PresentedResult): Result | undefined {
  if (result.isError) return undefined;
  const text = result.content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Result) : undefined;
  } catch {
    return undefined;
  }
}

const int = (value: unknown): number | undefined => (typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Why a send or signal returned, when it was not the prompt (shown as the output's last line). */
export function waitNote(result: Result): string | undefined {
  const wait = result['inputWait'] as InputWaitFields | undefined;
  switch (result['waitReason']) {
    case 'prompt':
      return undefined;
    case 'stdin_read':
      return `[${waiting(wait)}]`;
    case 'human_handoff':
      return '[the person took over the terminal]';
    case 'session_exit':
      return '[the shell exited]';
    case 'timeout':
      // With a wait, the interrupted program reads input again (a REPL back at its own prompt).
      if (wait) return `[timed out: SIGINT was sent; ${waiting(wait)}]`;
      // An exit status means the prompt came back after the SIGINT.
      return int(result['exitCode']) === undefined
        ? '[timed out: SIGINT was sent; the command may still be running]'
        : '[timed out: SIGINT was sent; the prompt is back]';
    case 'cancelled':
      return wait ? `[cancelled; ${waiting(wait)}]` : '[cancelled]';
    default:
      return typeof result['waitReason'] === 'string' ? `[${result['waitReason']}]` : undefined;
  }
}

type InputWaitFields = { command?: unknown; secret?: unknown; busy?: unknown; unsubmitted?: unknown };

/** What waits for input, as a card says it. */
function waiting(wait: InputWaitFields | undefined): string {
  if (wait?.unsubmitted === true) return 'the typed line waits at the prompt, not yet submitted';
  const who = str(wait?.command);
  const what = wait?.secret === true ? 'a password' : 'input';
  // Still computing in another thread: it reads input, but more output may come.
  const still = wait?.busy === true ? ', still working' : '';
  return who ? `${who} is waiting for ${what}${still}` : `waiting for ${what}${still}`;
}

function terminalResult(result: Result): ToolResultView {
  const parts: string[] = [];
  if (result['truncated'] === true) parts.push('[earlier output cut; the newest is kept]');
  const output = str(result['output']) ?? '';
  if (output !== '') parts.push(output);
  const note = waitNote(result);
  if (note) parts.push(note);
  const exitCode = int(result['exitCode']);
  return { card: 'terminal', output: parts.join('\n'), ...(exitCode === undefined ? {} : { exitCode }) };
}

export function presentCall(tool: ToolName, rawArgs: unknown): ToolCallView | undefined {
  const args = argsOf(rawArgs);
  switch (tool) {
    case 'shared_terminal_send': {
      const text = str(args['text']);
      if (text === undefined) return undefined;
      return {
        card: 'terminal',
        title: text,
        ...(args['submit'] === false ? { description: 'Typed into the shared terminal without Enter' } : {}),
      };
    }
    case 'shared_terminal_signal': {
      const signal = str(args['signal']);
      if (signal === undefined) return undefined;
      return { card: 'terminal', title: `${signal} → foreground program`, description: 'Signal in the shared terminal' };
    }
    case 'shared_terminal_read': {
      const offset = int(args['offset']);
      const count = int(args['count']);
      const page = offset || count ? ` (history offset ${offset ?? 0}, ${count ?? 500} lines)` : '';
      return { card: 'terminal', title: tool, description: `Read the shared terminal's screen${page}` };
    }
    case 'shared_terminal_reset':
      return { card: 'terminal', title: tool, description: 'Reset the shared terminal: end its processes and start a new shell' };
  }
}

export function presentResult(tool: ToolName, _args: unknown, presented: PresentedResult): ToolResultView | undefined {
  const result = parseResult(presented);
  if (!result) return undefined;
  switch (tool) {
    case 'shared_terminal_send':
    case 'shared_terminal_signal':
      return terminalResult(result);
    case 'shared_terminal_read': {
      const begin = int(result['lineBegin']);
      const end = int(result['lineEnd']);
      const total = int(result['totalLines']);
      const range =
        begin !== undefined && end !== undefined && total !== undefined
          ? `[history lines ${begin}–${end} of ${total} returned to the model; the screen:]\n`
          : '';
      const screen = str(result['viewport']) ?? '';
      return { card: 'terminal', output: `${range}${screen === '' ? '(the screen is empty)' : screen}` };
    }
    case 'shared_terminal_reset': {
      const generation = int(result['generation']);
      const which = generation === undefined ? 'A new shell started' : `A new shell started (generation ${generation})`;
      return { card: 'terminal', output: `${which}; the old process tree was ended and all shell state is gone.` };
    }
  }
}
