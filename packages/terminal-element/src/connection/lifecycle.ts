/**
 * The connection's lifecycle: its states, which of them a start may leave, and what each close code leads
 * to. The decision per close code is a table so that the rule "never retry on our own after a protocol
 * error, a refusal or a disposed terminal" is read in one place.
 */
import { CloseCode } from '@shared-terminal/server/protocol';

/**
 * idle: not started. connecting: the first attempt. connected: a snapshot arrived on the current socket.
 * reconnecting: the socket was lost and a retry is scheduled or under way. failed: a protocol error; no
 * automatic retry (the person presses Reconnect). disposed: the server disposed this terminal; no retry.
 * stopped: this view stopped (removed from the page or disposed).
 */
export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'disposed' | 'stopped';

/** States from which `start()` opens a connection (any other: it is already on, or needs Reconnect). */
export const STARTABLE: ReadonlySet<ConnectionState> = new Set(['idle', 'stopped']);

/** States in which a change of read-only mode reconnects (in the others there is no socket to replace). */
export const LIVE_STATES: ReadonlySet<ConnectionState> = new Set(['connecting', 'connected', 'reconnecting', 'failed']);

/**
 * After a close: refused (the host refused the page), disposed (the terminal is gone), protocol-error (a
 * bad frame, too big, not UTF-8): no retry, the person decides. reattach: a new shell generation, attach
 * again at once. retry: anything else (network loss, shutdown, server error), with backoff.
 */
export type CloseDecision = 'refused' | 'disposed' | 'protocol-error' | 'reattach' | 'retry';

const CLOSE_DECISIONS: ReadonlyMap<number, CloseDecision> = new Map([
  [CloseCode.refused, 'refused'],
  [CloseCode.disposed, 'disposed'],
  [CloseCode.protocolError, 'protocol-error'],
  [CloseCode.tooBig, 'protocol-error'],
  [CloseCode.invalidData, 'protocol-error'],
  [CloseCode.reset, 'reattach'],
]);

export function closeDecision(code: number): CloseDecision {
  return CLOSE_DECISIONS.get(code) ?? 'retry';
}
