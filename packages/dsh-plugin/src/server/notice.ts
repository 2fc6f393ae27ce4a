/**
 * The message an Agent receives when a person's interaction with its shared terminal settles.
 *
 * It carries metadata only (what the person did, how many commands and their exit statuses, the
 * generation) and an instruction; never terminal text or keystrokes. It becomes a durable `user/message`
 * in the session log, so whatever it said would be kept forever: the model reads the screen itself with
 * shared_terminal_read, which returns a bounded result.
 *
 * One notice may tell of several interactions: commands typed at the idle prompt are gathered until the
 * terminal is quiet (see terminals.ts), and each kind is named for what it was:
 * - a command line at the shell's idle prompt;
 * - an answer to a program that was waiting for input (the model's send had returned `stdin_read`);
 * - a takeover of the model's running send.
 */
import { randomUUID } from 'node:crypto';
import type { HumanSettled } from '@shared-terminal/server';
import type { UserMessage } from './dsh-api.ts';

export const PLUGIN_NAME = 'dsh-interactive-terminal';

/** DSH shows a notice's summary on one collapsed row and bounds it at 120 characters. */
const SUMMARY_MAX = 120;

export type InteractionKind = 'command' | 'answer' | 'takeover';

export function kindOf(settled: HumanSettled): InteractionKind {
  if (settled.origin === 'takeover') return 'takeover';
  return settled.began === 'program' ? 'answer' : 'command';
}

function ending(settled: HumanSettled): string {
  switch (settled.waitReason) {
    case 'prompt':
      return settled.exitCode === undefined ? 'the shell prompt is back' : `the shell prompt is back (exit status ${settled.exitCode})`;
    case 'session_exit':
      return 'the shell exited';
    case 'cancelled':
      return 'the interaction was cancelled';
    case 'failed':
      return 'the interaction ended with an error';
    default:
      return `it ended with ${settled.waitReason}`;
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function statusList(events: HumanSettled[]): string {
  const codes = events.map((event) =>
    event.waitReason === 'prompt' ? (event.exitCode === undefined ? 'unknown' : String(event.exitCode)) : ending(event),
  );
  return codes.join(', ');
}

/** One sentence per kind of interaction in the batch, oldest kind first. */
function sentences(batch: HumanSettled[]): string[] {
  const said: string[] = [];
  const byKind = (kind: InteractionKind) => batch.filter((event) => kindOf(event) === kind);
  const commands = byKind('command');
  const answers = byKind('answer');
  const takeovers = byKind('takeover');
  if (commands.length > 0) {
    const last = commands.at(-1)!;
    const exited = last.waitReason === 'session_exit' ? ' The last one ended the shell.' : '';
    said.push(
      `The person ran ${plural(commands.length, 'command line', 'command lines')} at the terminal's idle prompt ` +
        `(exit statuses in order: ${statusList(commands)}).${exited}`,
    );
  }
  if (answers.length > 0) {
    said.push(
      `The person answered ${answers.length === 1 ? 'a program that was' : `programs that were (${answers.length} times)`} waiting for input in the terminal, ` +
        `and that is finished: ${answers.map(ending).join('; ')}.`,
    );
  }
  for (const takeover of takeovers)
    said.push(`The person took over your running terminal operation, and that interaction is finished: ${ending(takeover)}.`);
  return said;
}

export function noticeText(batch: HumanSettled | HumanSettled[]): string {
  const events = Array.isArray(batch) ? batch : [batch];
  const generation = events.at(-1)?.generation ?? 0;
  return [
    `[shared terminal] ${sentences(events).join(' ')} (terminal generation ${generation}).`,
    'Call shared_terminal_read first to see the screen before you send more input or signals; do not repeat what the person already did.',
  ].join(' ');
}

function summaryOf(events: HumanSettled[]): string {
  const kinds = new Set(events.map(kindOf));
  if (kinds.has('takeover')) return 'Shared terminal: the person finished their takeover';
  if (kinds.has('answer') && !kinds.has('command')) return 'Shared terminal: the person answered a waiting program';
  const commands = events.filter((event) => kindOf(event) === 'command').length;
  return `Shared terminal: the person ran ${plural(commands, 'command', 'commands')}`;
}

export function buildHumanNotice(batch: HumanSettled | HumanSettled[]): UserMessage {
  const events = Array.isArray(batch) ? batch : [batch];
  return deepFreeze({
    id: randomUUID(),
    role: 'user',
    content: [{ type: 'text', text: noticeText(events) }],
    source: { kind: 'plugin', plugin: PLUGIN_NAME, form: 'notice', summary: summaryOf(events).slice(0, SUMMARY_MAX) },
  });
}
