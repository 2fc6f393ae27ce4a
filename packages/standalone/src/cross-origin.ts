/**
 * Pages of other origins (`serve --allow-origin URL`, repeatable, exact origins). An allowed origin may:
 * - ask the token route for a WebSocket ticket (CORS: the preflight, and the answer's headers), with
 *   `Authorization: Bearer TOKEN` or, once the person opened the server's link, with its cookie
 *   (`credentials: 'include'`);
 * - attach the WebSocket with that ticket (the transport checks the same origins).
 * A browser page of another origin that is not allowed gets a WebSocket that closes at
 * once with code 4005 and the reason: a refused HTTP upgrade reaches a page only as "connection lost"
 * (1006), which it would retry forever.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { normalizeOrigin } from '@shared-terminal/server';
import { CloseCode, SUBPROTOCOL } from '@shared-terminal/server/protocol';
import { COMMON_HEADERS } from './http-io.ts';

/** The route a page of another origin may call (the only one). */
export const TOKEN_ROUTE = /^\/api\/agents\/[^/]+\/terminal-token$/;

/** `http(s)://host[:port]` exactly as a browser sends it in Origin, or undefined (the engine's rule). */
export const parseOrigin = normalizeOrigin;

export class CrossOrigin {
  private readonly origins: ReadonlySet<string>;

  constructor(origins: readonly string[]) {
    this.origins = new Set(origins);
  }

  get list(): string[] {
    return [...this.origins];
  }

  /** The request's Origin when it is one of the allowed ones. */
  allowed(req: IncomingMessage): string | undefined {
    const origin = req.headers.origin;
    return typeof origin === 'string' && this.origins.has(origin) ? origin : undefined;
  }

  /** Whether the request comes from a page of our own origin (by its Origin header). */
  static sameOrigin(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    return typeof origin === 'string' && origin === `http://${req.headers.host ?? ''}`;
  }

  /** CORS for the token route: answers a preflight (true: handled), or sets the headers of the answer. */
  tokenRoute(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = this.allowed(req);
    if (!origin) return false;
    const headers = { 'Access-Control-Allow-Origin': origin, 'Access-Control-Allow-Credentials': 'true', Vary: 'Origin' };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        ...COMMON_HEADERS,
        ...headers,
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type',
        'Access-Control-Max-Age': '600',
      });
      res.end();
      return true;
    }
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return false;
  }

  /** For a page of another origin that is not allowed: what it is told (how to let it in); else undefined. */
  foreign(req: IncomingMessage): string | undefined {
    const origin = req.headers.origin;
    if (typeof origin !== 'string' || CrossOrigin.sameOrigin(req) || this.allowed(req)) return undefined;
    return `origin ${origin.slice(0, 60)} is not allowed: start the server with --allow-origin ${origin.slice(0, 60)}`;
  }
}

/**
 * Complete a browser's WebSocket handshake only to close it at once with `code` and `reason` (at most 123
 * bytes), so the page can read why. Nothing the client sends is read. Returns false when the request is no
 * browser WebSocket handshake (the caller answers in HTTP then).
 */
export function closeWithReason(req: IncomingMessage, socket: Duplex, reason: string, code: number = CloseCode.refused): boolean {
  const key = req.headers['sec-websocket-key'];
  if (typeof key !== 'string' || typeof req.headers.origin !== 'string') return false;
  const offered = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  // A browser fails a handshake that does not select one of the protocols it offered.
  const protocol = offered.includes(SUBPROTOCOL) ? SUBPROTOCOL : offered[0];
  const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
  let text = Buffer.from(reason);
  if (text.length > 123)
    text = Buffer.from(
      text
        .subarray(0, 120)
        .toString()
        .replace(/\uFFFD+$/, '') + '...',
    );
  const frame = Buffer.concat([Buffer.from([0x88, 2 + text.length, code >> 8, code & 0xff]), text]);
  socket.end(
    Buffer.concat([
      Buffer.from(
        'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
          `Sec-WebSocket-Accept: ${accept}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ''}\r\n`,
      ),
      frame,
    ]),
  );
  return true;
}
