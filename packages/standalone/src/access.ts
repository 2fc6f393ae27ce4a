/**
 * Who may use the server. One access token guards everything:
 * - a browser exchanges `?token=` once for an HttpOnly, SameSite=Strict cookie (then the URL is cleaned);
 * - API clients send `Authorization: Bearer TOKEN`;
 * - requests that carry only the cookie must come from our own origin (Origin / Sec-Fetch-Site), because
 *   SameSite does not separate two ports of one host (another local web app is "same site");
 * - every request's Host must be a loopback name, the bound host, or an allowed name (DNS rebinding).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { parseHostHeader } from '@shared-terminal/server';

export const TOKEN_ENV = 'SHARED_TERMINAL_TOKEN';
const TOKEN_PATTERN = /^[A-Za-z0-9._~-]{16,256}$/;

export class AccessTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessTokenError';
  }
}

/** The token of this start: `SHARED_TERMINAL_TOKEN` when set, otherwise 32 random bytes. */
export function resolveAccessToken(env: NodeJS.ProcessEnv = process.env): string {
  const given = env[TOKEN_ENV];
  if (given === undefined || given === '') return randomBytes(32).toString('base64url');
  if (!TOKEN_PATTERN.test(given)) {
    throw new AccessTokenError(
      `${TOKEN_ENV} must be 16 to 256 characters of A-Z a-z 0-9 - _ . ~ (it travels in URLs); unset it to get a random token`,
    );
  }
  return given;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

function equalSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The host name of a Host header, lower case, without port (IPv6 keeps its brackets); undefined when the
 *  header is not exactly a host and an optional port (`[::1]x:80`, `127.0.0.1:80@evil.example`). */
export function hostName(host: string): string | undefined {
  const parsed = parseHostHeader(host);
  if (!parsed) return undefined;
  return parsed.ipv6 ? `[${parsed.name}]` : parsed.name;
}

export type Credential = 'bearer' | 'cookie';

export type AccessDecision =
  | { ok: true; credential: Credential }
  | { ok: false; status: 401 | 403; code: 'unauthorized' | 'forbidden-origin' | 'forbidden-host'; message: string };

export interface AccessGuardOptions {
  token: string;
  /** The bound host (accepted as a Host name unless it is a wildcard address). */
  boundHost: string;
  /** More accepted Host names, lower case, without port. */
  allowedHosts?: readonly string[];
}

export class AccessGuard {
  private readonly token: string;
  private readonly cookieValue: string;
  private readonly hosts: Set<string>;
  private cookieName = 'shared_terminal';

  constructor(options: AccessGuardOptions) {
    this.token = options.token;
    // The cookie holds a value derived from the token, so that the token itself never sits in a cookie jar.
    this.cookieValue = createHmac('sha256', options.token).update('shared-terminal cookie v1').digest('base64url');
    this.hosts = new Set(LOOPBACK_NAMES);
    const bound = options.boundHost.toLowerCase();
    if (bound !== '0.0.0.0' && bound !== '::') this.hosts.add(bound.includes(':') ? `[${bound}]` : bound);
    for (const name of options.allowedHosts ?? []) this.hosts.add(name.toLowerCase());
  }

  /** Cookies are shared by every port of a host: the name carries the port so two servers never collide. */
  setPort(port: number): void {
    this.cookieName = `shared_terminal_${port}`;
  }

  tokenMatches(candidate: string): boolean {
    return equalSecret(candidate, this.token);
  }

  /** The Set-Cookie value that a correct `?token=` earns. */
  sessionCookie(): string {
    return `${this.cookieName}=${this.cookieValue}; HttpOnly; SameSite=Strict; Path=/`;
  }

  hostAllowed(req: IncomingMessage): boolean {
    const host = req.headers.host;
    const name = typeof host === 'string' ? hostName(host) : undefined;
    return name !== undefined && this.hosts.has(name);
  }

  /** Whether the request comes from a page of our own origin, or from no page at all. */
  private sameOrigin(req: IncomingMessage): boolean {
    const site = req.headers['sec-fetch-site'];
    if (typeof site === 'string' && site !== 'same-origin' && site !== 'none') return false;
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    return origin === `http://${req.headers.host ?? ''}`;
  }

  private hasCookie(req: IncomingMessage): boolean {
    const header = req.headers.cookie;
    if (!header) return false;
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq === -1) continue;
      if (part.slice(0, eq).trim() === this.cookieName && equalSecret(part.slice(eq + 1).trim(), this.cookieValue)) return true;
    }
    return false;
  }

  private bearer(req: IncomingMessage): string | undefined {
    const header = req.headers.authorization;
    if (typeof header !== 'string') return undefined;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match?.[1];
  }

  /** The host fence alone (DNS rebinding): a refusal, or undefined when the Host is ours. */
  checkHost(req: IncomingMessage): (AccessDecision & { ok: false }) | undefined {
    if (this.hostAllowed(req)) return undefined;
    return {
      ok: false,
      status: 403,
      code: 'forbidden-host',
      message: `Host ${JSON.stringify((req.headers.host ?? '').slice(0, 64))} is not accepted: use http://127.0.0.1 or localhost, or start with --allow-host NAME`,
    };
  }

  /** Host fence, then the credential, then (for the cookie) the origin fence. */
  check(req: IncomingMessage): AccessDecision {
    const hostRefusal = this.checkHost(req);
    if (hostRefusal) return hostRefusal;
    const bearer = this.bearer(req);
    if (bearer !== undefined) {
      if (this.tokenMatches(bearer)) return { ok: true, credential: 'bearer' };
      return {
        ok: false,
        status: 401,
        code: 'unauthorized',
        message: 'the bearer token is wrong: use the token that shared-terminal printed at start',
      };
    }
    if (this.hasCookie(req)) {
      if (this.sameOrigin(req)) return { ok: true, credential: 'cookie' };
      return {
        ok: false,
        status: 403,
        code: 'forbidden-origin',
        message: 'cross-origin requests are refused: call the API from the shared-terminal page or with Authorization: Bearer TOKEN',
      };
    }
    return {
      ok: false,
      status: 401,
      code: 'unauthorized',
      message: 'missing credentials: open the address with ?token= that shared-terminal printed, or send Authorization: Bearer TOKEN',
    };
  }
}
