/**
 * Who may open the terminal's WebSocket. DSH fences its `/api` (Host must be loopback or a trusted
 * authority, no cross-site fetch, Origin equal to the Host) but gives a plugin's own upgrade route no fence
 * at all, so the route applies the same rules itself before the transport looks at the token.
 * Origin is required here: every browser sends it on a WebSocket handshake.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export type FenceVerdict = { ok: true } | { ok: false; reason: string };

function parseAuthority(authority: string): URL | undefined {
  try {
    const url = new URL(`http://${authority}`);
    return url.username || url.password || url.pathname !== '/' || url.search || url.hash ? undefined : url;
  } catch {
    return undefined;
  }
}

export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '::1') return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return false;
}

/** A trusted entry is `host:port` (exact) or `host` (any port), like DSH's `trustedHosts`. */
function isTrusted(url: URL, trustedHosts: readonly string[]): boolean {
  return trustedHosts.some((entry) => {
    const trusted = parseAuthority(entry);
    if (!trusted || trusted.hostname !== url.hostname) return false;
    return trusted.port === '' || trusted.port === url.port;
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function checkUpgradeRequest(req: IncomingMessage, trustedHosts: readonly string[]): FenceVerdict {
  const host = header(req, 'host');
  const hostUrl = host ? parseAuthority(host) : undefined;
  if (!hostUrl) return { ok: false, reason: 'missing or malformed Host header' };
  if (!isLoopbackHostname(hostUrl.hostname) && !isTrusted(hostUrl, trustedHosts)) {
    return { ok: false, reason: `Host ${host} is neither loopback nor one of DSH's trusted hosts` };
  }
  if (header(req, 'sec-fetch-site') === 'cross-site') return { ok: false, reason: 'cross-site request' };
  const origin = header(req, 'origin');
  if (!origin || origin === 'null') return { ok: false, reason: 'the Origin header is missing or null' };
  let originUrl: URL;
  try {
    originUrl = new URL(origin);
  } catch {
    return { ok: false, reason: 'malformed Origin header' };
  }
  if ((originUrl.protocol !== 'http:' && originUrl.protocol !== 'https:') || originUrl.host !== hostUrl.host) {
    return { ok: false, reason: `Origin ${origin} is not this page's origin` };
  }
  return { ok: true };
}

/** The trusted hosts the running DSH connection service was configured with (empty when unknown). */
export function trustedHostsOf(connection: unknown): string[] {
  const value = (connection as { trustedHosts?: unknown } | undefined)?.trustedHosts;
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}
