/**
 * MCP over Streamable HTTP (the official SDK's transport) at /agents/{id}/mcp: one MCP session per client,
 * each acting on agent {id}'s terminal, the same tools and notices as `shared-terminal mcp` on stdio.
 *
 * Access (after the server's Host fence): only `Authorization: Bearer TOKEN` (no cookie, so a page of
 * another site can never ride a person's session), and an `Origin` header, when present, must be this
 * server's own (the MCP specification asks servers to check it against DNS rebinding). Sessions live until
 * the client ends them (DELETE) or the server stops; past MAX_SESSIONS the least recently used one is closed.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { TerminalHub } from '@shared-terminal/server';
import type { Credential } from './access.ts';
import type { AgentEventRelay } from './agent-events.ts';
import { COMMON_HEADERS, HttpError, readJsonBody, sendError } from './http-io.ts';
import { createMcpSession, type McpSession } from './mcp.ts';

export const MCP_ENDPOINT_PATTERN = /^\/agents\/([^/]+)\/mcp$/;
/** Open sessions at once, over all agents; each costs a listener and a little memory. */
export const MAX_SESSIONS = 64;
/** A comment on open SSE streams this often keeps proxies from closing an idle notice stream. */
const KEEPALIVE_MS = 15_000;

export interface McpHttpOptions {
  hub: TerminalHub;
  relay: AgentEventRelay;
  version: string;
  bodyLimit: number;
  progressIntervalMs?: number;
}

interface OpenSession {
  agent: string;
  transport: StreamableHTTPServerTransport;
  session: McpSession;
}

/** A JSON-RPC error reply (what an MCP client expects from its endpoint). */
function sendRpcError(res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null });
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

export class McpHttpEndpoint {
  private readonly options: McpHttpOptions;
  /** By session id, least recently used first. */
  private readonly sessions = new Map<string, OpenSession>();

  constructor(options: McpHttpOptions) {
    this.options = options;
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  async handle(req: IncomingMessage, res: ServerResponse, agent: string, credential: Credential): Promise<void> {
    if (credential !== 'bearer') {
      return sendError(
        res,
        401,
        'unauthorized',
        'MCP clients authenticate with the header Authorization: Bearer TOKEN (the token shared-terminal printed)',
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) {
      return sendError(
        res,
        403,
        'forbidden-origin',
        `Origin ${JSON.stringify(origin)} is not this server's: connect from a local MCP client, not from a web page`,
      );
    }
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      return sendError(res, 405, 'method-not-allowed', 'the MCP endpoint takes POST, GET and DELETE', { Allow: 'POST, GET, DELETE' });
    }
    let body: unknown;
    try {
      if (req.method === 'POST') body = await readJsonBody(req, this.options.bodyLimit);
    } catch (error) {
      if (error instanceof HttpError) return sendError(res, error.status, error.code, error.message, error.headers);
      throw error;
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const open = this.sessions.get(id);
      if (!open || open.agent !== agent) {
        return sendRpcError(res, 404, 'Session not found: it ended or belongs to another agent; start a new one with initialize');
      }
      // Most recently used goes last.
      this.sessions.delete(id);
      this.sessions.set(id, open);
      return open.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return sendRpcError(res, 400, 'Bad Request: no Mcp-Session-Id header; a session starts with a POST of initialize');
    }
    const transport = await this.open(agent);
    await transport.handleRequest(req, res, body);
  }

  private async open(agent: string): Promise<StreamableHTTPServerTransport> {
    const session = createMcpSession({
      hub: this.options.hub,
      relay: this.options.relay,
      agent,
      version: this.options.version,
      progressIntervalMs: this.options.progressIntervalMs,
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { agent, transport, session });
        for (const [oldId, oldest] of this.sessions) {
          if (this.sessions.size <= MAX_SESSIONS) break;
          this.sessions.delete(oldId);
          void oldest.session.close();
        }
      },
      keepAliveMs: KEEPALIVE_MS,
    });
    session.server.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined && this.sessions.get(id)?.session === session) this.sessions.delete(id);
      void session.close();
    };
    await session.server.connect(transport);
    return transport;
  }

  async close(): Promise<void> {
    const open = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(open.map((entry) => entry.session.close().catch(() => undefined)));
  }
}
