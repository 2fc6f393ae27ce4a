/**
 * The message an Agent receives when a person's interaction with its shared terminal settles.
 *
 * It carries metadata only (how the interaction began and ended, the generation, the exit status) and an
 * instruction; never terminal text or keystrokes. It becomes a durable `user/message` in the session log,
 * so whatever it said would be kept forever: the model reads the screen itself with shared_terminal_read,
 * which returns a bounded result.
 */
import { randomUUID } from 'node:crypto';
import type { HumanSettled } from '@shared-terminal/server';
import type { UserMessage } from './dsh-api.ts';

export const PLUGIN_NAME = 'dsh-interactive-terminal';

/** DSH shows a notice's summary on one collapsed row and bounds it at 120 characters. */
const SUMMARY_MAX = 120;

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

export function noticeText(settled: HumanSettled): string {
  const how = settled.origin === 'takeover' ? 'took over your running terminal operation' : 'typed into the terminal at its idle prompt';
  return [
    `[shared terminal] The person ${how}, and that interaction is finished: ${ending(settled)} (terminal generation ${settled.generation}).`,
    'Call shared_terminal_read first to see the screen before you send more input or signals; do not repeat what the person already did.',
  ].join(' ');
}

export function buildHumanNotice(settled: HumanSettled): UserMessage {
  const summary = `Shared terminal: the person finished (${settled.waitReason === 'prompt' ? 'prompt is back' : settled.waitReason})`;
  return deepFreeze({
    id: randomUUID(),
    role: 'user',
    content: [{ type: 'text', text: noticeText(settled) }],
    source: { kind: 'plugin', plugin: PLUGIN_NAME, form: 'notice', summary: summary.slice(0, SUMMARY_MAX) },
  });
}
