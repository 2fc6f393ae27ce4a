/**
 * The browser half of the server: one-time tokens minted over DSH's RPC channel, and the WebSocket route.
 *
 * - Tokens: `POST /dsh-interactive-terminal/token` through `ctx.connection.rpc` with the `trusted-host`
 *   authority (DSH's fence: loopback or trusted Host, same origin). The payload names the session; the
 *   token is bound to that session's exact live Agent, so the socket itself never names an Agent or PTY.
 * - Socket: `GET /dsh-interactive-terminal/ws` via `ctx.webServer.registerUpgrade`, fenced here (Host and
 *   Origin) because DSH fences nothing on plugin upgrade routes; the engine's transport then checks the
 *   token, the protocol and everything after.
 */
import type { Duplex } from 'node:stream';
import { TokenLimitError, createTerminalTransport } from '@shared-terminal/server';
import type { DshContext, RpcResult } from './dsh-api.ts';
import { checkUpgradeRequest, trustedHostsOf } from './fence.ts';
import type { AgentTerminals } from './terminals.ts';

export const RPC_CHANNEL = '/dsh-interactive-terminal';
export const SOCKET_PATH = '/dsh-interactive-terminal/ws';

export interface TokenRequest {
  sessionId: string;
  readonly: boolean;
}

export function parseTokenRequest(payload: unknown): TokenRequest | string {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    return 'the payload must be an object {sessionId, readonly?}';
  const record = payload as Record<string, unknown>;
  for (const key of Object.keys(record))
    if (key !== 'sessionId' && key !== 'readonly') return `unknown field "${key}"; allowed: sessionId, readonly`;
  if (typeof record['sessionId'] !== 'string' || record['sessionId'] === '') return '"sessionId" must be a non-empty string';
  if (record['readonly'] !== undefined && typeof record['readonly'] !== 'boolean') return '"readonly" must be true or false';
  return { sessionId: record['sessionId'], readonly: record['readonly'] === true };
}

function badRequest(message: string): RpcResult {
  return { ok: false, error: { code: 'bad-request', message, details: { issues: [] } } };
}

function refuseUpgrade(socket: Duplex, status: string, reason: string): void {
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  socket.destroy();
}

/** Mount tokens and the socket route on the web services of `ctx` (called once they are available). */
export function mountBrowserAccess(ctx: DshContext, terminals: AgentTerminals): void {
  const trustedHosts = trustedHostsOf(ctx.connection);
  const transport = createTerminalTransport({ hub: terminals.hub, allowedHosts: trustedHosts, path: SOCKET_PATH });
  ctx.effect(() => () => transport.close(), 'dsh-interactive-terminal: browser transport');

  ctx.effect(
    () =>
      ctx.webServer.registerUpgrade({
        path: SOCKET_PATH,
        handler: (req, socket, head) => {
          const verdict = checkUpgradeRequest(req, trustedHosts);
          if (!verdict.ok) {
            refuseUpgrade(socket, '403 Forbidden', `shared terminal: ${verdict.reason}`);
            return;
          }
          transport.handleUpgrade(req, socket, head);
        },
      }),
    'dsh-interactive-terminal: websocket route',
  );

  ctx.connection.rpc.handle(
    RPC_CHANNEL,
    async (endpoint, payload) => {
      if (endpoint !== 'token')
        return {
          ok: false,
          error: { code: 'bad-request', message: `unknown endpoint "${endpoint}"; the channel serves "token"`, details: { issues: [] } },
        };
      const request = parseTokenRequest(payload);
      if (typeof request === 'string') return badRequest(request);
      let owner: string;
      try {
        owner = terminals.ownerForSession(request.sessionId);
      } catch (error) {
        return {
          ok: false,
          error: {
            code: 'session-not-found',
            message: error instanceof Error ? error.message : String(error),
            details: { sessionId: request.sessionId },
          },
        };
      }
      let ticket;
      try {
        ticket = transport.issueToken(owner, { readonly: request.readonly });
      } catch (error) {
        // A page (or a script) that requests tokens faster than it connects: say when to retry.
        if (error instanceof TokenLimitError)
          return { ok: false, error: { code: error.code, message: error.message, details: { retryAfterMs: error.retryAfterMs } } };
        throw error;
      }
      return { ok: true, value: { path: SOCKET_PATH, token: ticket.token, expiresInMs: ticket.expiresInMs } };
    },
    { authority: 'trusted-host' },
  );
}
