/**
 * The four tools over the Model Context Protocol (the official SDK) for one agent id, with the engine's
 * input schemas, descriptions and result objects, plus MCP's titles, hints and output schemas
 * (mcp-tools.ts). A result is the object as `structuredContent` and the same JSON as the last text item.
 * `shared-terminal mcp` runs one session on stdio; `serve` runs one per Streamable HTTP client (mcp-http.ts).
 *
 * When a human interaction settles, the client hears it at once as a logging notification
 * (`notifications/message`, level `notice`, logger `shared-terminal`, data = the human-settled event), and
 * the next tool result starts with a text item that says so, because many clients show notifications to
 * the user but not to the model. A send called with a progress token reports progress (mcp-progress.ts).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TOOL_NAMES, isToolName, runTool, type TerminalHub } from '@shared-terminal/server';
import type { AgentEvent, AgentEventRelay, HumanSettledEvent } from './agent-events.ts';
import { mcpToolList } from './mcp-tools.ts';
import { reportProgress } from './mcp-progress.ts';
import { describeToolFailure } from './tool-errors.ts';

export const MCP_LOGGER = 'shared-terminal';

export const MCP_INSTRUCTIONS =
  'These tools share one persistent bash terminal with a human who watches and types in a browser. ' +
  'Operations and human input go through one FIFO queue; shared_terminal_read bypasses it. ' +
  'After a send returns waitReason human_handoff, the human holds the running program: do not answer behind them. ' +
  `A "human-settled" notification (logger ${MCP_LOGGER}) and a note at the start of your next tool result tell you when the human is done; ` +
  'then call shared_terminal_read before sending more. ' +
  'For a command that may run longer than 30 s (install, build, test suite), give shared_terminal_send a timeoutMs.';

export interface McpSessionOptions {
  hub: TerminalHub;
  relay: AgentEventRelay;
  /** The agent id every tool acts on. */
  agent: string;
  version: string;
  /** Between two progress reports of a send; mcp-progress.ts's default when absent. */
  progressIntervalMs?: number;
}

export interface McpOptions extends McpSessionOptions {
  /** Defaults to stdio. */
  transport?: Transport;
}

export interface RunningMcp {
  /** Resolves when the client goes away (stdin closed). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** One MCP server for one client connection; `close` detaches it from the relay and closes its transport. */
export interface McpSession {
  server: Server;
  close(): Promise<void>;
}

function text(value: string): { type: 'text'; text: string } {
  return { type: 'text', text: value };
}

export function createMcpSession(options: McpSessionOptions): McpSession {
  const server = new Server(
    { name: 'shared-terminal', version: options.version },
    { capabilities: { tools: {}, logging: {} }, instructions: MCP_INSTRUCTIONS },
  );
  /** Settled interactions the model has not been told about in a tool result yet. */
  let unreported: HumanSettledEvent[] = [];

  const onEvent = (event: AgentEvent) => {
    if (event.agent !== options.agent || event.event !== 'human-settled') return;
    unreported.push(event);
    server.sendLoggingMessage({ level: 'notice', logger: MCP_LOGGER, data: event }).catch(() => undefined);
  };
  options.relay.on('event', onEvent);

  const takeNotes = () => {
    const notes = unreported.map((event) => text(`Notice: ${event.message} (origin ${event.origin}, generation ${event.generation})`));
    unreported = [];
    return notes;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: mcpToolList() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (!isToolName(name)) {
      return {
        isError: true,
        content: [
          text(JSON.stringify({ error: { code: 'unknown-tool', message: `no tool ${name}; the tools are ${TOOL_NAMES.join(', ')}` } })),
        ],
      };
    }
    const token = request.params._meta?.progressToken;
    const progress =
      token !== undefined && name === 'shared_terminal_send'
        ? reportProgress({
            hub: options.hub,
            agent: options.agent,
            token,
            send: extra.sendNotification,
            intervalMs: options.progressIntervalMs,
          })
        : undefined;
    try {
      const result = await runTool(options.hub, options.agent, name, args ?? {}, extra.signal);
      return { content: [...takeNotes(), text(JSON.stringify(result))], structuredContent: result as unknown as Record<string, unknown> };
    } catch (error) {
      const failure = describeToolFailure(error);
      return {
        isError: true,
        content: [...takeNotes(), text(JSON.stringify({ error: { code: failure.code, message: failure.message } }))],
      };
    } finally {
      progress?.stop();
    }
  });

  let closing: Promise<void> | undefined;
  return {
    server,
    // Once: closing the server closes its transport, whose close may call back here.
    close: () =>
      (closing ??= (async () => {
        options.relay.off('event', onEvent);
        await server.close();
      })()),
  };
}

/** One session on `options.transport`, or on stdin/stdout. */
export async function startMcpServer(options: McpOptions): Promise<RunningMcp> {
  const session = createMcpSession(options);
  const transport = options.transport ?? new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    session.server.onclose = () => resolve();
    // The SDK's stdio transport does not notice that the client closed our stdin; we do.
    if (!options.transport) process.stdin.once('end', () => resolve());
  });
  await session.server.connect(transport);
  return { closed, close: session.close };
}
