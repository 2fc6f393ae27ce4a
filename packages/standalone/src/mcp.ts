/**
 * `shared-terminal mcp`: the four tools over the Model Context Protocol (stdio, the official SDK) for one
 * agent id, with the same input schemas, descriptions and result objects as the engine and the HTTP API.
 *
 * When a human interaction settles, the client hears it at once as a logging notification
 * (`notifications/message`, level `notice`, logger `shared-terminal`, data = the human-settled event), and
 * the next tool result starts with a text item that says so, because many clients show notifications to
 * the user but not to the model.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TOOL_DESCRIPTIONS, TOOL_INPUT_SCHEMAS, TOOL_NAMES, isToolName, runTool, type TerminalHub } from '@shared-terminal/server';
import type { AgentEvent, AgentEventRelay, HumanSettledEvent } from './agent-events.ts';
import { describeToolFailure } from './tool-errors.ts';

export const MCP_LOGGER = 'shared-terminal';

export const MCP_INSTRUCTIONS =
  'These tools share one persistent bash terminal with a human who watches and types in a browser. ' +
  'Operations and human input go through one FIFO queue; shared_terminal_read bypasses it. ' +
  'After a send returns waitReason human_handoff, the human holds the running program: do not answer behind them. ' +
  `A "human-settled" notification (logger ${MCP_LOGGER}) and a note at the start of your next tool result tell you when the human is done; ` +
  'then call shared_terminal_read before sending more.';

export interface McpOptions {
  hub: TerminalHub;
  relay: AgentEventRelay;
  /** The agent id every tool acts on. */
  agent: string;
  version: string;
  /** Defaults to stdio. */
  transport?: Transport;
}

export interface RunningMcp {
  /** Resolves when the client goes away (stdin closed). */
  closed: Promise<void>;
  close(): Promise<void>;
}

function toolList(): Tool[] {
  return TOOL_NAMES.map((name) => ({
    name,
    description: TOOL_DESCRIPTIONS[name],
    // A deep copy: the engine's schemas are frozen literals, the SDK's type wants plain mutable JSON.
    inputSchema: structuredClone(TOOL_INPUT_SCHEMAS[name]) as unknown as Tool['inputSchema'],
  }));
}

function text(value: string): { type: 'text'; text: string } {
  return { type: 'text', text: value };
}

export async function startMcpServer(options: McpOptions): Promise<RunningMcp> {
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

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    if (!isToolName(name)) {
      return {
        isError: true,
        content: [text(JSON.stringify({ error: { code: 'unknown-tool', message: `no tool ${name}; the tools are ${TOOL_NAMES.join(', ')}` } }))],
      };
    }
    try {
      const result = await runTool(options.hub, options.agent, name, args ?? {}, extra.signal);
      return { content: [...takeNotes(), text(JSON.stringify(result))] };
    } catch (error) {
      const failure = describeToolFailure(error);
      return { isError: true, content: [...takeNotes(), text(JSON.stringify({ error: { code: failure.code, message: failure.message } }))] };
    }
  });

  const transport = options.transport ?? new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => resolve();
    // The SDK's stdio transport does not notice that the client closed our stdin; we do.
    if (!options.transport) process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  return {
    closed,
    close: async () => {
      options.relay.off('event', onEvent);
      await server.close();
    },
  };
}
