/**
 * The slice of DeepSeek Harness 0.1.0-rc.8's host API that this plugin uses, written as structural types.
 *
 * Why our own types instead of importing `@deepseek-ai/*`: the server half imports no DSH package at run
 * time (a checkout installed with `dsh plugin add <dir>` resolves imports from its real path and would not
 * find them), so everything arrives through the cordis context. Only the members we call are declared; the
 * names and shapes follow rc.8 (`dsh-agent`, `dsh-tools`, `dsh-subprocess`, `dsh-sandbox`,
 * `dsh-sandbox-policy`, `dsh-client-connection`, `dsh-host-webserver`, `dsh-session`, `cordis`).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex, Readable } from 'node:stream';

// ------------------------------------------------------------------------------------------ cordis

export type Disposer = () => unknown;

export interface DshLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

export interface EventOptions {
  global?: boolean;
  prepend?: boolean;
}

/** The cordis context as this plugin sees it. Services are present when named in `inject` or checked. */
export interface DshContext {
  readonly tools: ToolRegistry;
  readonly agents: AgentRegistry;
  readonly subprocess: SubprocessRuntime;
  readonly sandboxPolicy: SandboxPolicyService;
  readonly webServer: WebServer;
  readonly connection: HostConnection;
  readonly logger: DshLogger;
  /** Read an optional service; undefined when it is not provided. */
  get(name: 'sandbox'): SandboxProvider | undefined;
  get(name: string): unknown;
  /** Run `execute` now; its disposer runs when the fiber unloads (or when the returned disposer is called). */
  effect(execute: () => Disposer | (() => Promise<void>) | void, label?: string): Disposer;
  on(name: 'agent/disposed', listener: (payload: { agent: Agent }) => void, options?: EventOptions): Disposer;
  on(name: 'agent/created', listener: (payload: { agent: Agent }) => void, options?: EventOptions): Disposer;
  on(
    name: 'internal/dispatch',
    listener: (mode: string, eventName: string, args: unknown[], thisArg: unknown) => void,
    options?: EventOptions,
  ): Disposer;
  /** Attach behaviour once every named service is available (and detach it when one goes away). */
  inject(deps: string[], callback: (ctx: DshContext) => void): unknown;
}

// ------------------------------------------------------------------------------------------ agents

export type AgentStatus = 'idle' | 'running';

export interface SessionEvent {
  readonly type: string;
  readonly data?: unknown;
}

export interface Session {
  readonly id: string;
  readonly header: { readonly cwd?: string };
  readonly events: readonly SessionEvent[];
}

export interface UserMessage {
  readonly id: string;
  readonly role: 'user';
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  readonly source: { readonly kind: 'plugin'; readonly plugin: string; readonly form: 'notice'; readonly summary: string };
}

export interface Agent {
  /** Equal to the session id. */
  readonly id: string;
  readonly session: Session;
  readonly status: AgentStatus;
  readonly ctx: DshContext;
  /** Queue a follow-up turn and wake the driver (idle agents). */
  followup(message: UserMessage): void;
  /** Steering for the nearest step (running agents). */
  steer(message: UserMessage): void;
}

export interface AgentRegistry {
  get(id: string): Agent | undefined;
  list(): Agent[];
}

// ------------------------------------------------------------------------------------------ tools

export interface TextContent {
  type: 'text';
  text: string;
}

/** A JSON Schema in DSH's supported subset (type/oneOf/properties/required/additionalProperties/items/enum/const + annotations). */
export type JsonSchema = { readonly [key: string]: unknown };

export interface ToolExecution {
  readonly agent?: Agent;
  readonly signal: AbortSignal;
}

/** The completed call as DSH hands it to `presentResult`: the model-facing content and failure state. */
export interface PresentedResult {
  readonly content: readonly { readonly type: string; readonly text?: string }[];
  readonly isError: boolean;
}

export type ToolCallKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'fetch' | 'other';

/** DSH's pending-call render intents we use: its terminal card, or the generic row. */
export type ToolCallView =
  | { card: 'terminal'; title: string; description?: string; cwd?: string }
  | { card: 'generic'; title: string; kind?: ToolCallKind; rawInput?: unknown; content?: TextContent[] };

/** DSH's completed-call render intents we use. */
export type ToolResultView =
  | { card: 'terminal'; title?: string; output?: string; exitCode?: number; signal?: string }
  | { card: 'generic'; title?: string; content?: TextContent[] };

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: JsonSchema;
  output: {
    schema: JsonSchema;
    render(args: unknown, value: unknown): TextContent[];
  };
  execute(args: unknown, exec: ToolExecution): Promise<unknown>;
  /** Pure: how DSH Web draws the pending call (called live and on replay). */
  presentCall?(args: unknown): ToolCallView | undefined;
  /** Pure: how DSH Web draws the completed call. */
  presentResult?(args: unknown, result: PresentedResult): ToolResultView | undefined;
}

export interface ToolRegistry {
  register(definition: ToolDefinition): Disposer;
}

// ------------------------------------------------------------------------------------------ processes

export type DshForegroundSignal = 'SIGINT' | 'SIGTERM' | 'SIGKILL' | 'SIGTSTP' | 'SIGHUP';

export interface SubprocessTerminalSpawnSpec {
  argv: string[];
  cwd: string;
  env?: Record<string, string>;
  rows: number;
  cols: number;
  graceMs: number;
  signal?: AbortSignal;
}

/** rc.8's terminal handle: no resize, no input-call detail; output is a byte stream. */
export interface SubprocessTerminalHandle {
  readonly pid: number;
  readonly output: Readable;
  readonly done: Promise<{ exitCode: number | null; signal: string | null }>;
  write(data: string): Promise<void> | void;
  inspectForeground(): Promise<{ processGroupId: number; inputWaiting: boolean } | undefined>;
  signalForeground(signal: DshForegroundSignal): Promise<number>;
  terminate(): Promise<void>;
}

export interface SubprocessRuntime {
  spawnTerminal(spec: SubprocessTerminalSpawnSpec): Promise<SubprocessTerminalHandle>;
}

// ------------------------------------------------------------------------------------------ sandbox

export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

export interface SandboxExecutionPolicy {
  mode: SandboxMode;
  workspaceRoot: string;
  sessionId?: string;
}

export interface SandboxPolicyService {
  readonly defaultMode: SandboxMode;
  resolve(request?: { session?: Session }): SandboxExecutionPolicy;
}

export interface SandboxProvider {
  confine(
    argv: readonly string[],
    policy: SandboxExecutionPolicy & { mode: Exclude<SandboxMode, 'danger-full-access'> },
  ): { argv: string[] };
}

// ------------------------------------------------------------------------------------------ browser

export type RpcResult =
  { ok: true; value: unknown } | { ok: false; error: { code: string; message: string; details: Record<string, unknown> } };

export interface HostConnection {
  readonly rpc: {
    handle(
      channel: string,
      handler: (endpoint: string, payload: unknown, signal: AbortSignal) => Promise<RpcResult>,
      options: { authority: 'trusted-host' | 'loopback' },
    ): () => Promise<void>;
  };
}

export interface WebServer {
  registerUpgrade(route: {
    path: string;
    handler: (req: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;
  }): () => void;
}
