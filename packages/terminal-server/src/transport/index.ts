/** The transport room: browser views over WebSocket (tokens, fence, roles, resume, heartbeats, flow control). */
export {
  createTerminalTransport,
  TerminalTransport,
  type TerminalTransportOptions,
  type TransportEvents,
  type TransportStats,
  type UpgradeExpectation,
} from './transport.ts';
export { ATTACH_HISTORY_LINES, SEND_QUEUE_BYTES, type ViewStats, type ViewPhase } from './view.ts';
export { MAX_OUTSTANDING_TOKENS, MAX_TOKENS_PER_OWNER, TokenLimitError } from './tokens.ts';
export { isLoopbackHost, normalizeOrigin, parseHostHeader, type HostHeader } from './fence.ts';
