/**
 * The upgrade fence: everything decided from the HTTP request alone, before a WebSocket exists.
 * - Path: exactly the configured path, and never a query string (tokens travel only in
 *   Sec-WebSocket-Protocol; a URL ends up in logs and history).
 * - Host: a loopback name or address (127.0.0.0/8, ::1, localhost) or an allowed host, so that a DNS
 *   rebinding page on another name cannot reach the terminal.
 * - Origin: present, http(s), and equal to the request's own origin (its scheme, http or https as the
 *   socket is plain or TLS, and its Host) or allowed explicitly. A host behind a TLS proxy lists its
 *   https origin in allowedOrigins.
 * - Subprotocols: `shared-terminal.v1`, one `token.<43>`, at most one `resume.<43>`, at most one
 *   `mode.readonly`, nothing else.
 * A refusal is a plain HTTP 403 whose body says what to do; the socket is then closed.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { READONLY_SUBPROTOCOL, RESUME_PREFIX, SUBPROTOCOL, TOKEN_PREFIX } from '../protocol/index.ts';
import { isSecret } from './secrets.ts';

export interface FenceOptions {
  /** Origins allowed besides the same origin, e.g. `http://localhost:5173` (compared after normalizing). */
  allowedOrigins: ReadonlySet<string>;
  /** Host header values or host names allowed besides loopback, lower case. */
  allowedHosts: ReadonlySet<string>;
  /** The upgrade path, or undefined for any path. */
  path: string | undefined;
}

export interface Credentials {
  token: string;
  resume: string | undefined;
  readonly: boolean;
}

export type FenceResult = { ok: true; credentials: Credentials } | { ok: false; reason: string };

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** A Host header read whole: a DNS name, an IPv4 address or a bracketed IPv6 address, then an optional
 *  port, and nothing else (`[::1]x:80` or `127.0.0.1:80@evil.example` are not a loopback host with a
 *  suffix: they are no host at all). */
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?))(?::([0-9]{1,5}))?$/;

export interface HostHeader {
  /** Lower case; an IPv6 address without its brackets. */
  name: string;
  /** The port as written, or undefined when the header names none. */
  port: string | undefined;
  /** Whether the name was a bracketed IPv6 address. */
  ipv6: boolean;
}

/** Parse a Host header exactly, or undefined when it is not one. */
export function parseHostHeader(value: string): HostHeader | undefined {
  const match = HOST_HEADER.exec(value.trim().toLowerCase());
  if (!match || (match[3] !== undefined && Number(match[3]) > 65535)) return undefined;
  if (match[1] !== undefined && isIP(match[1]) !== 6) return undefined;
  return { name: match[1] ?? match[2]!, port: match[3], ipv6: match[1] !== undefined };
}

export function isLoopbackHost(name: string): boolean {
  if (name === 'localhost') return true;
  const family = isIP(name);
  if (family === 4) return loopback.check(name, 'ipv4');
  if (family === 6) return loopback.check(name, 'ipv6');
  return false;
}

/** `new URL(origin).origin`, or undefined when the value is not a bare http(s) origin. */
export function normalizeOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== '/' && url.pathname !== '')) return undefined;
  // A bare origin has no trailing slash; `new URL('http://a/')` would also pass the checks above.
  if (value.endsWith('/')) return undefined;
  return url.origin;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
}

export function checkUpgrade(req: IncomingMessage, options: FenceOptions): FenceResult {
  const url = req.url ?? '';
  const query = url.indexOf('?');
  if (query >= 0) {
    return {
      ok: false,
      reason: 'the URL must not carry a query string: send the token only in Sec-WebSocket-Protocol (token.<token>)',
    };
  }
  if (options.path !== undefined && url !== options.path) {
    return { ok: false, reason: `unknown terminal path: connect to ${options.path}` };
  }

  const host = single(req.headers.host);
  if (!host) return { ok: false, reason: 'missing Host header' };
  const hostLower = host.trim().toLowerCase();
  const parsed = parseHostHeader(hostLower);
  if (!parsed) return { ok: false, reason: `host ${JSON.stringify(host.slice(0, 64))} is not a host name with an optional port` };
  const name = parsed.name;
  if (!isLoopbackHost(name) && !options.allowedHosts.has(hostLower) && !options.allowedHosts.has(name)) {
    return {
      ok: false,
      reason: `host ${JSON.stringify(host)} is not allowed: open the terminal through a loopback address or add the host to allowedHosts`,
    };
  }

  const originHeader = single(req.headers.origin);
  if (!originHeader) return { ok: false, reason: 'missing Origin header: connect from the page that hosts the terminal' };
  const origin = normalizeOrigin(originHeader.trim());
  if (!origin) return { ok: false, reason: 'the Origin header is not an http(s) origin' };
  // Same origin: the scheme this request came in on and the Host, both compared whole.
  const scheme = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true ? 'https' : 'http';
  const sameOrigin = origin === normalizeOrigin(`${scheme}://${hostLower}`);
  if (!sameOrigin && !options.allowedOrigins.has(origin)) {
    return {
      ok: false,
      reason: `origin ${origin} may not connect: serve the page from the same origin or add it to allowedOrigins`,
    };
  }

  const header = req.headers['sec-websocket-protocol'];
  const offered = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  let version = 0;
  let token: string | undefined;
  let resume: string | undefined;
  let readonly = false;
  let tokens = 0;
  let resumes = 0;
  let modes = 0;
  for (const entry of offered) {
    if (entry === SUBPROTOCOL) version++;
    else if (entry.startsWith(TOKEN_PREFIX)) {
      tokens++;
      token = entry.slice(TOKEN_PREFIX.length);
    } else if (entry.startsWith(RESUME_PREFIX)) {
      resumes++;
      resume = entry.slice(RESUME_PREFIX.length);
    } else if (entry === READONLY_SUBPROTOCOL) {
      modes++;
      readonly = true;
    } else {
      return {
        ok: false,
        reason: `unknown subprotocol entry; offer ${SUBPROTOCOL}, token.<token> and optionally resume.<proof>, mode.readonly`,
      };
    }
  }
  if (version !== 1) return { ok: false, reason: `offer the subprotocol ${SUBPROTOCOL} exactly once` };
  if (tokens !== 1 || token === undefined || !isSecret(token)) {
    return { ok: false, reason: 'offer exactly one token.<43 base64url characters> subprotocol: request a fresh token from the host' };
  }
  if (resumes > 1 || (resume !== undefined && !isSecret(resume))) return { ok: false, reason: 'the resume proof is malformed' };
  if (modes > 1) return { ok: false, reason: 'offer mode.readonly at most once' };
  return { ok: true, credentials: { token, resume, readonly } };
}

/** Answer an upgrade with a plain 403 and close the socket. */
export function refuseUpgrade(socket: Duplex, reason: string, status = 403): void {
  const body = `${reason}\n`;
  const statusText = status === 403 ? 'Forbidden' : 'Service Unavailable';
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${statusText}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
