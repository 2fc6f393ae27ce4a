/**
 * The command line of `shared-terminal`: two commands (`serve`, `mcp`) and their options, parsed strictly
 * so that a typo is refused with the usage instead of silently running on a default.
 */
import { parseArgs } from 'node:util';
import { parseOrigin } from './cross-origin.ts';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 4317;
export const DEFAULT_MCP_AGENT = 'mcp';
/** Agent ids: what the HTTP routes and `--agent` accept. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const USAGE = `Usage:
  shared-terminal serve [--host 127.0.0.1] [--port 4317] [--config FILE.json] [--cwd DIR] [--allow-host NAME]... [--allow-origin URL]...
  shared-terminal mcp [--agent ID] [--host 127.0.0.1] [--port 0] [--config FILE.json] [--cwd DIR] [--allow-host NAME]...
  shared-terminal --help | --version

serve  runs the shared terminal for any number of agents: pages, the HTTP tool API and the events stream.
       Prints one line on stdout: shared-terminal: http://HOST:PORT/?token=TOKEN
mcp    speaks the Model Context Protocol on stdin/stdout for one agent (default id "${DEFAULT_MCP_AGENT}") and serves
       its page on loopback; the page's address goes to stderr.

Options:
  --host HOST         address to bind (default ${DEFAULT_HOST}; anything but loopback exposes the terminal)
  --port PORT         port to bind; 0 picks a free one (default ${DEFAULT_PORT} for serve, 0 for mcp)
  --config FILE.json  terminal settings, the same keys and rules as the DSH plugin's config
  --cwd DIR           working directory of the shells (default: the current directory)
  --allow-host NAME   also accept this Host name (e.g. a reverse proxy's name); repeatable
  --allow-origin URL  (serve) let pages of this exact origin (http(s)://host[:port]) embed the terminal:
                      they may get tickets from the token route and attach; repeatable
  --agent ID          (mcp) the agent id the tools act on, [A-Za-z0-9_-]{1,64}

Environment:
  SHARED_TERMINAL_TOKEN  the access token (default: a random one per start); 16 to 256 characters of
                         A-Z a-z 0-9 - _ . ~`;

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface HostOptions {
  host: string;
  port: number;
  configPath: string | undefined;
  cwd: string;
  allowedHosts: string[];
  /** Exact origins of pages that may embed the terminal (serve only). */
  allowedOrigins: string[];
}

export type Command =
  | { command: 'serve'; options: HostOptions }
  | { command: 'mcp'; options: HostOptions & { agent: string } }
  | { command: 'help' }
  | { command: 'version' };

function parsePort(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new UsageError(`--port must be a whole number from 0 to 65535 (0 picks a free port); got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function parseHost(value: string | undefined): string {
  if (value === undefined) return DEFAULT_HOST;
  const host = value.startsWith('[') && value.endsWith(']') ? value.slice(1, -1) : value;
  if (!/^[A-Za-z0-9.:-]{1,253}$/.test(host)) {
    throw new UsageError(`--host must be an IP address or a host name, for example 127.0.0.1; got ${JSON.stringify(value)}`);
  }
  return host;
}

export function parseCommandLine(argv: readonly string[], cwd: string = process.cwd()): Command {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') return { command: 'help' };
  if (command === '--version' || command === '-v') return { command: 'version' };
  if (command !== 'serve' && command !== 'mcp') {
    throw new UsageError(`unknown command ${JSON.stringify(command)}: use "serve" or "mcp"`);
  }
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      strict: true,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        config: { type: 'string' },
        cwd: { type: 'string' },
        'allow-host': { type: 'string', multiple: true },
        ...(command === 'serve' ? { 'allow-origin': { type: 'string' as const, multiple: true as const } } : {}),
        ...(command === 'mcp' ? { agent: { type: 'string' } } : {}),
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.replace(/\. To specify.*$/s, '')}`);
  }
  if (values['help']) return { command: 'help' };
  const allowedHosts = (values['allow-host'] as string[] | undefined) ?? [];
  for (const name of allowedHosts) {
    if (!/^[A-Za-z0-9.-]{1,253}$/.test(name))
      throw new UsageError(`--allow-host takes a host name without port; got ${JSON.stringify(name)}`);
  }
  const allowedOrigins = ((values['allow-origin'] as string[] | undefined) ?? []).map((value) => {
    const origin = parseOrigin(value);
    if (!origin)
      throw new UsageError(
        `--allow-origin takes an exact origin such as http://localhost:5173 (scheme, host, port; no path); got ${JSON.stringify(value)}`,
      );
    return origin;
  });
  const options: HostOptions = {
    host: parseHost(values['host'] as string | undefined),
    port: parsePort(values['port'] as string | undefined, command === 'serve' ? DEFAULT_PORT : 0),
    configPath: values['config'] as string | undefined,
    cwd: (values['cwd'] as string | undefined) ?? cwd,
    allowedHosts: allowedHosts.map((h) => h.toLowerCase()),
    allowedOrigins,
  };
  if (command === 'serve') return { command, options };
  const agent = (values['agent'] as string | undefined) ?? DEFAULT_MCP_AGENT;
  if (!AGENT_ID_PATTERN.test(agent)) {
    throw new UsageError(`--agent must match [A-Za-z0-9_-]{1,64}; got ${JSON.stringify(agent)}`);
  }
  return { command, options: { ...options, agent } };
}
