/**
 * @shared-terminal/standalone: the shared terminal without DSH. The `shared-terminal` CLI (cli.ts) is the
 * product; these exports let another Node program or a test start the same server.
 */
export { startStandaloneServer, type StandaloneOptions, type StandaloneServer, type AttachFactoryOptions } from './server.ts';
export {
  startMcpServer,
  createMcpSession,
  MCP_LOGGER,
  MCP_INSTRUCTIONS,
  type McpOptions,
  type McpSessionOptions,
  type McpSession,
  type RunningMcp,
} from './mcp.ts';
export { McpHttpEndpoint, MCP_ENDPOINT_PATTERN, MAX_SESSIONS as MAX_MCP_SESSIONS } from './mcp-http.ts';
export { mcpToolList } from './mcp-tools.ts';
export { reportProgress, PROGRESS_INTERVAL_MS } from './mcp-progress.ts';
export { AccessGuard, resolveAccessToken, TOKEN_ENV } from './access.ts';
export { AgentEventRelay, describeSettled, type AgentEvent, type HumanSettledEvent, type AgentDisposedEvent } from './agent-events.ts';
export { TERMINAL_SOCKET_PATH, type BrowserAttach, type AgentSummary } from './api.ts';
export { loadConfigFile, ConfigFileError } from './config-file.ts';
export { parseCommandLine, UsageError, USAGE, AGENT_ID_PATTERN, DEFAULT_PORT, DEFAULT_HOST } from './command-line.ts';
export { describeToolFailure } from './tool-errors.ts';
