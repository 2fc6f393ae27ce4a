/**
 * What a person reads when the transport refuses something: notice texts (English; the element may show
 * its own translation by code) and close reasons (at most 123 bytes, the WebSocket limit). Each says what
 * happened and what to do next.
 */
import type { NoticeCode } from '../protocol/index.ts';
import { TerminalError } from '../errors.ts';
import { QueueError } from '../queue/operation.ts';

export const NOTICES = {
  busy: 'The terminal is busy with another operation: wait for it to finish, or use Take over input to answer a running command. Nothing was sent.',
  queueFull: 'The terminal queue is full: wait for the queued operations to finish. Nothing was sent.',
  blocked: 'The terminal is blocked after a failed interrupt: use Reset Terminal to start a new shell. Nothing was sent.',
  exited: 'The shell has exited: use Reset Terminal to start a new one. Nothing was sent.',
  noLease:
    'Your input lease has ended (the prompt came back or the program exited), so this input was not sent. Type at the prompt to start again.',
  nothingToInterrupt:
    'Interrupt input acts on your own input, and you hold none now. To stop a command the model is running, use Take over input first.',
  takeoverUnavailable:
    'Take over input is not available now: the command already finished, is being interrupted, or was taken over. Check the status line.',
  alreadyHolding: 'You already hold input: type into the running program, or use Interrupt input.',
  resynced: 'This view fell behind the output and was refreshed from a snapshot.',
  controllerAvailable: 'The controlling view left and its grace period ended: press Reconnect to take control.',
  stale: (frame: number, current: number) =>
    `This action was meant for shell generation ${frame}, but this connection shows generation ${current}: reconnect to see the current shell. Nothing was sent.`,
  overCap: (bytes: number, cap: number) =>
    `This input is ${bytes} bytes, over the limit of ${cap} bytes: paste it in smaller parts or write it to a file first. Nothing was sent.`,
  failed: (what: string, detail: string) => `${what} failed: ${detail}. Check the status line before trying again.`,
} as const;

export const CLOSE_REASONS = {
  readonly: 'read-only view: only ack, resync and ping are allowed; reconnect as controller to type',
  binary: 'binary frames are not accepted: send JSON text frames',
  early: 'too many frames before the snapshot: wait for the snapshot before sending',
  resyncFlood: 'resync asked for faster than snapshots are read: read the socket, ask once per gap',
  reset: 'the terminal was reset: reconnect to see the new shell',
  disposed: 'the terminal is gone: do not reconnect',
  heartbeat: 'no answer to heartbeats: reconnect',
  shutdown: 'the terminal server is shutting down',
  moved: 'control moved to a newer connection of this view',
  attachFailed: (detail: string) => `the terminal could not start: ${detail}`,
} as const;

/** Close reasons are limited to 123 UTF-8 bytes: whole characters up to that, in one pass over at most
 *  123 of them (the text may hold client data, so its length must not cost more). */
export function closeReason(text: string): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    const pair = c >= 0xd800 && c <= 0xdbff && end + 1 < text.length;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > 123) break;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return end === text.length ? text : text.slice(0, end);
}

/** Map an error from the owner to the notice a person sees. */
export function noticeFor(error: unknown, what: string): { code: NoticeCode; message: string } {
  if (error instanceof TerminalError) {
    if (error.code === 'input-limit') return { code: 'input-limit', message: `${error.message}. Nothing was sent.` };
    if (error.code === 'line-too-long') return { code: 'line-too-long', message: error.message };
    return { code: 'operation-failed', message: NOTICES.failed(what, error.message) };
  }
  if (error instanceof QueueError) {
    switch (error.code) {
      case 'busy':
        return { code: 'busy', message: NOTICES.busy };
      case 'queue-full':
        return { code: 'busy', message: NOTICES.queueFull };
      case 'blocked':
        return { code: 'blocked', message: NOTICES.blocked };
      case 'exited':
        return { code: 'exited', message: NOTICES.exited };
      case 'lease-closed':
        return { code: 'lease-closed', message: NOTICES.noLease };
      case 'takeover-unavailable':
        return { code: 'takeover-unavailable', message: NOTICES.takeoverUnavailable };
      default:
        return { code: 'operation-failed', message: NOTICES.failed(what, error.message) };
    }
  }
  const detail = error instanceof Error ? error.message : String(error);
  return { code: 'operation-failed', message: NOTICES.failed(what, detail) };
}
