/**
 * The HTTP API under /api (authentication already checked by the server):
 *   GET    /api/agents                          live agents and their state
 *   POST   /api/agents                          {"id"?} start an agent's terminal (a random id when absent)
 *   GET    /api/agents/{id}                     one agent's state
 *   DELETE /api/agents/{id}                     dispose the agent's terminal
 *   POST   /api/agents/{id}/tools/{tool}        run one of the four tools with the JSON body as arguments
 *   GET    /api/agents/{id}/events              Server-Sent Events: human-settled, agent-disposed
 *   POST   /api/agents/{id}/terminal-token      {"readonly"?} a one-time WebSocket ticket for the page
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { TOOL_NAMES, TokenLimitError, isToolName, runTool, type OwnerTerminal, type TerminalHub } from '@shared-terminal/server';
import { AGENT_ID_PATTERN } from './command-line.ts';
import type { AgentEvent, AgentEventRelay } from './agent-events.ts';
import { COMMON_HEADERS, HttpError, clip, readJsonBody, sendError, sendJson } from './http-io.ts';
import { describeToolFailure } from './tool-errors.ts';

/** How the page's `<shared-terminal>` attaches: the engine's WebSocket transport, mounted by the server. */
export interface BrowserAttach {
  issueToken(ownerId: string, options: { readonly: boolean }): { token: string; expiresInMs: number };
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

/** The WebSocket path the transport is mounted on. */
export const TERMINAL_SOCKET_PATH = '/terminal';
const EVENTS_KEEPALIVE_MS = 15_000;

export interface ApiContext {
  hub: TerminalHub;
  relay: AgentEventRelay;
  attach: BrowserAttach | undefined;
  /** Largest accepted JSON body. */
  bodyLimit: number;
  /** Open event streams, ended when the server closes. */
  streams: Set<ServerResponse>;
}

export interface AgentSummary {
  id: string;
  /** A shell process is alive or starting. */
  live: boolean;
  generation: number;
  status: ReturnType<OwnerTerminal['state']>['status'];
  queueStatus: ReturnType<OwnerTerminal['state']>['queueStatus'];
  holder: ReturnType<OwnerTerminal['state']>['holder'];
  pendingCount: number;
}

export function summarize(owner: OwnerTerminal): AgentSummary {
  const state = owner.state();
  return {
    id: owner.ownerId,
    live: owner.live,
    generation: state.generation,
    status: state.status,
    queueStatus: state.queueStatus,
    holder: state.holder,
    pendingCount: state.pendingCount,
  };
}

function listAgents(hub: TerminalHub): AgentSummary[] {
  return hub
    .ids()
    .map((id) => hub.get(id))
    .filter((owner): owner is OwnerTerminal => owner !== undefined)
    .map(summarize);
}

function checkAgentId(id: string): string {
  if (!AGENT_ID_PATTERN.test(id)) {
    throw new HttpError(400, 'invalid-agent-id', `agent ids match [A-Za-z0-9_-]{1,64}; got ${JSON.stringify(clip(id))}`);
  }
  return id;
}

function methodNotAllowed(allowed: string): never {
  throw new HttpError(405, 'method-not-allowed', `use ${allowed} on this route`, { Allow: allowed });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Start the terminal of `id` (or fail with the engine's error, e.g. capacity). */
async function startAgent(hub: TerminalHub, id: string): Promise<OwnerTerminal> {
  const owner = hub.acquire(id);
  try {
    await owner.ensure();
  } catch (error) {
    // A record that never got a shell must not linger in the list.
    if (!owner.generation) await hub.dispose(id).catch(() => undefined);
    throw error;
  }
  return owner;
}

async function createAgent(req: IncomingMessage, res: ServerResponse, ctx: ApiContext): Promise<void> {
  const body = await readJsonBody(req, ctx.bodyLimit);
  if (!isRecord(body) || Object.keys(body).some((key) => key !== 'id')) {
    throw new HttpError(400, 'invalid-arguments', 'send {"id": "NAME"} or {} (a random id is chosen)');
  }
  const id = body['id'] === undefined ? randomBytes(6).toString('base64url') : body['id'];
  if (typeof id !== 'string') throw new HttpError(400, 'invalid-agent-id', 'the id must be a string matching [A-Za-z0-9_-]{1,64}');
  checkAgentId(id);
  const existed = ctx.hub.get(id)?.generation !== undefined;
  const owner = await startAgent(ctx.hub, id);
  sendJson(res, existed ? 200 : 201, { ...summarize(owner), page: `/agents/${id}` });
}

async function runToolRoute(req: IncomingMessage, res: ServerResponse, ctx: ApiContext, id: string, tool: string): Promise<void> {
  if (!isToolName(tool)) {
    throw new HttpError(404, 'unknown-tool', `no tool ${JSON.stringify(clip(tool))}; the tools are ${TOOL_NAMES.join(', ')}`);
  }
  if (req.method !== 'POST') methodNotAllowed('POST');
  const args = await readJsonBody(req, ctx.bodyLimit);
  // A client that goes away cancels its operation (SIGINT recovery, like a cancelled model call).
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  const result = await runTool(ctx.hub, id, tool, args, abort.signal);
  if (!abort.signal.aborted) sendJson(res, 200, result);
}

function streamEvents(req: IncomingMessage, res: ServerResponse, ctx: ApiContext, id: string): void {
  res.writeHead(200, {
    ...COMMON_HEADERS,
    'Content-Type': 'text/event-stream; charset=utf-8',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  // The first bytes tell the client that the subscription is live.
  res.write(`retry: 2000\n: events of agent ${id}\n\n`);
  let counter = 0;
  const onEvent = (event: AgentEvent) => {
    if (event.agent !== id) return;
    counter += 1;
    res.write(`id: ${counter}\nevent: ${event.event}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  const keepalive = setInterval(() => res.write(': keepalive\n\n'), EVENTS_KEEPALIVE_MS);
  ctx.relay.on('event', onEvent);
  ctx.streams.add(res);
  const stop = () => {
    clearInterval(keepalive);
    ctx.relay.off('event', onEvent);
    ctx.streams.delete(res);
  };
  res.on('close', stop);
  req.on('close', stop);
}

async function issueTerminalToken(req: IncomingMessage, res: ServerResponse, ctx: ApiContext, id: string): Promise<void> {
  if (req.method !== 'POST') methodNotAllowed('POST');
  const body = await readJsonBody(req, ctx.bodyLimit);
  if (
    !isRecord(body) ||
    Object.keys(body).some((key) => key !== 'readonly') ||
    (body['readonly'] !== undefined && typeof body['readonly'] !== 'boolean')
  ) {
    throw new HttpError(400, 'invalid-arguments', 'send {"readonly": true|false} or {}');
  }
  if (!ctx.attach) {
    throw new HttpError(503, 'transport-unavailable', 'this build has no browser transport; use the HTTP tool API or MCP');
  }
  await startAgent(ctx.hub, id);
  const ticket = ctx.attach.issueToken(id, { readonly: body['readonly'] === true });
  const host = req.headers.host ?? '127.0.0.1';
  sendJson(res, 200, { url: `ws://${host}${TERMINAL_SOCKET_PATH}`, token: ticket.token, expiresInMs: ticket.expiresInMs });
}

/** Route one /api request. Errors become `{"error":{"code","message"}}` with a matching status. */
export async function handleApi(req: IncomingMessage, res: ServerResponse, ctx: ApiContext, path: string): Promise<void> {
  try {
    const parts = path
      .split('/')
      .slice(2)
      .map((part) => decodeURIComponent(part));
    // parts: ['agents', id?, sub?, tool?]
    if (parts[0] !== 'agents' || parts.length > 4) {
      throw new HttpError(404, 'not-found', `no API route ${clip(path)}; see GET /api/agents and POST /api/agents/{id}/tools/{tool}`);
    }
    const [, rawId, sub, tool] = parts;
    if (rawId === undefined || rawId === '') {
      if (req.method === 'GET') return sendJson(res, 200, { agents: listAgents(ctx.hub), maxSessions: ctx.hub.config.maxSessions });
      if (req.method === 'POST') return await createAgent(req, res, ctx);
      methodNotAllowed('GET, POST');
    }
    const id = checkAgentId(rawId);
    if (sub === undefined) {
      if (req.method === 'GET') {
        const owner = ctx.hub.get(id);
        if (!owner) throw new HttpError(404, 'unknown-agent', `no agent ${id}; it is created by its first tool call or POST /api/agents`);
        return sendJson(res, 200, summarize(owner));
      }
      if (req.method === 'DELETE') {
        if (!ctx.hub.get(id)) throw new HttpError(404, 'unknown-agent', `no agent ${id} to dispose`);
        await ctx.hub.dispose(id);
        return sendJson(res, 200, { id, disposed: true });
      }
      methodNotAllowed('GET, DELETE');
    }
    if (sub === 'tools' && tool !== undefined) return await runToolRoute(req, res, ctx, id, tool);
    if (sub === 'events' && tool === undefined) {
      if (req.method !== 'GET') methodNotAllowed('GET');
      return streamEvents(req, res, ctx, id);
    }
    if (sub === 'terminal-token' && tool === undefined) return await issueTerminalToken(req, res, ctx, id);
    throw new HttpError(404, 'not-found', `no API route ${clip(path)}`);
  } catch (error) {
    if (error instanceof HttpError) return sendError(res, error.status, error.code, error.message, error.headers);
    if (error instanceof URIError) return sendError(res, 400, 'invalid-path', 'the path is not valid percent-encoding');
    const failure = describeToolFailure(error);
    sendError(
      res,
      failure.status,
      failure.code,
      failure.message,
      error instanceof TokenLimitError ? { 'Retry-After': String(Math.ceil(error.retryAfterMs / 1000)) } : {},
    );
  }
}
