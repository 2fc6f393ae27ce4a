/**
 * The element's connector for one session: a fresh one-time token per connection attempt, minted by the
 * server half over DSH's RPC channel, and the WebSocket URL on this page's own origin.
 */
import type { Connector } from '@shared-terminal/server/protocol';
import type { ClientConnection } from './dsh-client-api.ts';

export const RPC_CHANNEL = '/dsh-interactive-terminal';

export function socketUrl(path: string, base: string): string {
  const url = new URL(path, base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}

function ticketOf(value: unknown): { path: string; token: string } {
  const record = value as { path?: unknown; token?: unknown } | null;
  if (!record || typeof record.path !== 'string' || typeof record.token !== 'string') {
    throw new Error('the terminal token reply is malformed: update the plugin and reload the page');
  }
  return { path: record.path, token: record.token };
}

export function sessionConnector(connection: ClientConnection, sessionId: string, base: () => string): Connector {
  return async ({ readonly }) => {
    const reply = await connection.rpc.call(RPC_CHANNEL, 'token', { sessionId, readonly });
    if (!reply.ok) throw new Error(reply.error.message);
    const { path, token } = ticketOf(reply.value);
    return { url: socketUrl(path, base()), token };
  };
}
