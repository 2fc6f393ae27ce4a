/**
 * The standalone server: one Node HTTP server that composes the engine's hub, the browser transport, the
 * pages, the HTTP tool API and the events stream behind one access token (see access.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { TerminalHub, createNodePtyProvider, type PtyProvider, type TerminalConfig } from '@shared-terminal/server';
import { AccessGuard } from './access.ts';
import { closeWithReason, CrossOrigin, TOKEN_ROUTE } from './cross-origin.ts';
import { AgentEventRelay } from './agent-events.ts';
import { AGENT_ID_PATTERN } from './command-line.ts';
import { handleApi, summarize, TERMINAL_SOCKET_PATH, type BrowserAttach } from './api.ts';
import { COMMON_HEADERS, clip, sendError } from './http-io.ts';
import { MCP_ENDPOINT_PATTERN, McpHttpEndpoint } from './mcp-http.ts';
import { agentPage, CONTENT_SECURITY_POLICY, homePage, messagePage } from './pages.ts';
import { findElementBundle, PAGE_ASSETS_DIR, serveFile, type ElementBundle } from './static-files.ts';

export interface AttachFactoryOptions {
  hub: TerminalHub;
  /** Host names (without port) a WebSocket upgrade may name besides loopback. */
  allowedHosts: string[];
  /** Exact origins of pages that may attach besides our own (--allow-origin). */
  allowedOrigins: string[];
}

export interface StandaloneOptions {
  config: TerminalConfig;
  /** Address to bind. */
  host: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** The access token (see access.ts). */
  token: string;
  /** Working directory of the shells. */
  cwd: string;
  /** More Host names to accept (reverse proxies). */
  allowedHosts?: string[];
  /** Exact origins of pages that may embed the terminal (see cross-origin.ts). */
  allowedOrigins?: string[];
  provider?: PtyProvider;
  /** How browsers attach; the default mounts the engine's WebSocket transport. */
  createAttach?: (options: AttachFactoryOptions) => BrowserAttach | undefined;
  /** The `<shared-terminal>` bundle; found in the element package by default. */
  elementBundle?: ElementBundle | undefined;
  /** The version MCP clients see in the server's info. */
  version?: string;
  /** Between two progress reports of an MCP send (mcp-progress.ts's default when absent). */
  mcpProgressIntervalMs?: number;
}

export interface StandaloneServer {
  hub: TerminalHub;
  relay: AgentEventRelay;
  /** http://HOST:PORT (IPv6 hosts in brackets). */
  origin: string;
  port: number;
  /** The address to open in a browser: `path` with `?token=`. */
  link(path?: string): string;
  /** The Streamable HTTP MCP endpoints (/agents/{id}/mcp). */
  mcp: McpHttpEndpoint;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The request's URL, or undefined when its target is not one (an absolute form with a bad port...). */
function requestUrl(req: IncomingMessage): URL | undefined {
  try {
    return new URL(req.url ?? '/', 'http://request.invalid');
  } catch {
    return undefined;
  }
}

/** A percent-decoded path part, or undefined when it is not valid percent-encoding (`%ZZ`). */
function decodePart(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

function sendPage(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'Content-Length': String(Buffer.byteLength(html)),
    ...headers,
  });
  res.end(html);
}

function refuseUpgrade(socket: Duplex, status: number, reason: string, message: string): void {
  const body = JSON.stringify({ error: { code: reason, message } });
  socket.end(
    `HTTP/1.1 ${status} ${status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : status === 404 ? 'Not Found' : 'Service Unavailable'}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startStandaloneServer(options: StandaloneOptions): Promise<StandaloneServer> {
  const hub = new TerminalHub({ config: options.config, provider: options.provider ?? createNodePtyProvider(), cwd: options.cwd });
  const relay = new AgentEventRelay(hub);
  const guard = new AccessGuard({ token: options.token, boundHost: options.host, allowedHosts: options.allowedHosts ?? [] });
  // Loopback names are always accepted; the bound host and --allow-host names are added.
  const allowedHosts = [...(options.allowedHosts ?? [])];
  if (options.host !== '0.0.0.0' && options.host !== '::') allowedHosts.push(options.host.toLowerCase());
  const crossOrigin = new CrossOrigin(options.allowedOrigins ?? []);
  const attach = options.createAttach?.({ hub, allowedHosts, allowedOrigins: crossOrigin.list });
  const elementBundle = 'elementBundle' in options ? options.elementBundle : findElementBundle();
  const streams = new Set<ServerResponse>();
  const apiContext = {
    hub,
    relay,
    attach,
    streams,
    // Room for maxInputBytes of text even when every byte is JSON-escaped, plus the other arguments.
    bodyLimit: options.config.maxInputBytes * 6 + 65536,
  };
  const mcp = new McpHttpEndpoint({
    hub,
    relay,
    version: options.version ?? '0.0.0',
    bodyLimit: apiContext.bodyLimit,
    progressIntervalMs: options.mcpProgressIntervalMs,
  });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = requestUrl(req);
    if (!url) return sendError(res, 400, 'invalid-path', 'the request target is not a path: request a path such as /agents/NAME');
    const path = url.pathname;
    const mcpMatch = MCP_ENDPOINT_PATTERN.exec(path);
    // Machine routes answer in JSON and never trade a ?token= for a cookie.
    const isApi = path === '/api' || path.startsWith('/api/') || mcpMatch !== null;
    const refuse = (status: number, code: string, message: string) =>
      isApi
        ? sendError(res, status, code, message)
        : sendPage(res, status, messagePage(status === 401 ? 'Sign-in needed' : 'Refused', message));

    const hostRefusal = guard.checkHost(req);
    if (hostRefusal) return refuse(hostRefusal.status, hostRefusal.code, hostRefusal.message);
    // The one place the token may travel in a URL: a page link. Trade it for the cookie, then drop it.
    const offered = url.searchParams.get('token');
    if (offered !== null && !isApi && (req.method === 'GET' || req.method === 'HEAD')) {
      if (!guard.tokenMatches(offered)) {
        return refuse(
          401,
          'unauthorized',
          'The token in this link is wrong. Open the address that shared-terminal printed when it started.',
        );
      }
      url.searchParams.delete('token');
      res.writeHead(303, { ...COMMON_HEADERS, Location: `${path}${url.search}`, 'Set-Cookie': guard.sessionCookie() });
      res.end();
      return;
    }
    if (TOKEN_ROUTE.test(path) && crossOrigin.tokenRoute(req, res)) return;
    const decision = guard.check(req);
    // An allowed origin's page may use the cookie on the token route (the guard allows it only to our own).
    const allowedCookie = !decision.ok && decision.code === 'forbidden-origin' && TOKEN_ROUTE.test(path) && !!crossOrigin.allowed(req);
    if (!decision.ok && !allowedCookie) return refuse(decision.status, decision.code, decision.message);

    if (mcpMatch) {
      // Only the token route lets an allowed origin's cookie through; the MCP endpoint takes the token.
      if (!decision.ok) return refuse(decision.status, decision.code, decision.message);
      let id = '';
      try {
        id = decodeURIComponent(mcpMatch[1]!);
      } catch {
        // not valid percent-encoding: refused below like any other bad id
      }
      if (!AGENT_ID_PATTERN.test(id)) return sendError(res, 404, 'invalid-agent-id', 'agent ids match [A-Za-z0-9_-]{1,64}');
      return mcp.handle(req, res, id, decision.credential);
    }
    if (isApi) return handleApi(req, res, apiContext, path);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendError(res, 405, 'method-not-allowed', 'pages take GET', { Allow: 'GET' });
    }
    if (path === '/') {
      const agents = hub.ids().flatMap((id) => {
        const owner = hub.get(id);
        return owner ? [summarize(owner)] : [];
      });
      return sendPage(res, 200, homePage(agents, hub.config.maxSessions));
    }
    const agentMatch = /^\/agents\/([^/]+)$/.exec(path);
    if (agentMatch) {
      const id = decodePart(agentMatch[1]!);
      if (id === undefined)
        return refuse(400, 'invalid-path', 'The address is not valid percent-encoding: agent ids match [A-Za-z0-9_-]{1,64}.');
      if (!AGENT_ID_PATTERN.test(id)) return refuse(404, 'invalid-agent-id', 'Agent ids match [A-Za-z0-9_-]{1,64}.');
      return sendPage(res, 200, agentPage(id, elementBundle?.entry));
    }
    const assetMatch = /^\/assets\/(?:(element)\/)?([^/]+)$/.exec(path);
    if (assetMatch) {
      const dir = assetMatch[1] ? elementBundle?.dir : PAGE_ASSETS_DIR;
      if (dir && serveFile(res, dir, assetMatch[2]!)) return;
    }
    return refuse(404, 'not-found', `Nothing at ${clip(path)}. The agent list is at /.`);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      sendError(res, 500, 'internal', `the server failed: ${(error as Error).message ?? String(error)}`);
    });
  });

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    // A page of another origin that is not allowed is told why in a close frame it can read (a refused
    // upgrade reads as a lost connection); an allowed one attaches with its one-time ticket alone (the
    // transport checks it and the Origin again). See cross-origin.ts.
    const foreign = guard.checkHost(req) ? undefined : crossOrigin.foreign(req);
    if (foreign && closeWithReason(req, socket, foreign)) return;
    const decision = crossOrigin.allowed(req) ? (guard.checkHost(req) ?? { ok: true as const }) : guard.check(req);
    if (!decision.ok) return refuseUpgrade(socket, decision.status, decision.code, decision.message);
    const path = requestUrl(req)?.pathname;
    if (path !== TERMINAL_SOCKET_PATH) return refuseUpgrade(socket, 404, 'not-found', `WebSockets attach at ${TERMINAL_SOCKET_PATH}`);
    if (!attach) return refuseUpgrade(socket, 503, 'transport-unavailable', 'this build has no browser transport');
    attach.handleUpgrade(req, socket, head);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  guard.setPort(port);
  const origin = `http://${urlHost(options.host)}:${port}`;

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const stream of streams) stream.end();
      await mcp.close().catch(() => undefined);
      await attach?.close().catch(() => undefined);
      relay.close();
      await hub.disposeAll().catch(() => undefined);
      server.closeAllConnections();
      await stopped;
    })());

  return {
    hub,
    relay,
    origin,
    port,
    link: (path = '/') => `${origin}${path}?token=${encodeURIComponent(options.token)}`,
    mcp,
    close,
  };
}
