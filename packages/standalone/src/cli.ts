/**
 * `shared-terminal`: the shared terminal without DSH.
 *   serve  pages, HTTP tool API and events for any number of agents; one line on stdout with the address
 *   mcp    the four tools over MCP (stdio) for one agent, and its page on loopback (address on stderr)
 * Exit codes: 0 after a clean stop, 1 when the server cannot start, 2 for bad arguments, config or token.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AccessTokenError, resolveAccessToken } from './access.ts';
import { createEngineAttach } from './browser-transport.ts';
import { parseCommandLine, USAGE, UsageError, type Command, type HostOptions } from './command-line.ts';
import { ConfigFileError, loadConfigFile } from './config-file.ts';
import { startMcpServer } from './mcp.ts';
import { startStandaloneServer, type StandaloneServer } from './server.ts';

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

function fail(code: number, message: string): never {
  process.stderr.write(`shared-terminal: ${message}\n`);
  process.exit(code);
}

function checkCwd(cwd: string): string {
  const dir = resolve(cwd);
  let ok: boolean;
  try {
    ok = statSync(dir).isDirectory();
  } catch {
    ok = false;
  }
  if (!ok) fail(2, `--cwd ${JSON.stringify(cwd)} is not a directory: pass an existing folder for the shells to start in`);
  return dir;
}

async function startServer(options: HostOptions): Promise<StandaloneServer> {
  let config;
  let token;
  try {
    config = loadConfigFile(options.configPath);
    token = resolveAccessToken();
  } catch (error) {
    if (error instanceof ConfigFileError || error instanceof AccessTokenError) fail(2, error.message);
    throw error;
  }
  try {
    return await startStandaloneServer({
      config,
      token,
      host: options.host,
      port: options.port,
      cwd: checkCwd(options.cwd),
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      createAttach: createEngineAttach,
      version: version(),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      fail(1, `port ${options.port} on ${options.host} is in use: pass --port 0 for a free port, or another --port`);
    if (code === 'EADDRNOTAVAIL') fail(1, `cannot bind ${options.host}: pass an address of this machine to --host, e.g. 127.0.0.1`);
    if (code === 'EACCES') fail(1, `no permission to bind port ${options.port}: use a port above 1023`);
    throw error;
  }
}

/** Stop everything once on SIGINT/SIGTERM (or when `extra` resolves), then exit. */
function stopOn(server: StandaloneServer, extra?: Promise<void>, before?: () => Promise<void>): void {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const timer = setTimeout(() => process.exit(0), 10_000);
    timer.unref();
    void (async () => {
      await before?.().catch(() => undefined);
      await server.close().catch(() => undefined);
      process.exit(0);
    })();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
  extra?.then(stop, stop);
}

async function main(command: Command): Promise<void> {
  switch (command.command) {
    case 'help':
      process.stdout.write(`${USAGE}\n`);
      return;
    case 'version':
      process.stdout.write(`${version()}\n`);
      return;
    case 'serve': {
      const server = await startServer(command.options);
      // Signals are handled before the address goes out: a script that stops the server as soon as it read
      // the line must get a clean stop, not the default action of a signal that arrived before the handler.
      stopOn(server);
      // The one line on stdout: scripts read the address from it.
      process.stdout.write(`shared-terminal: ${server.link('/')}\n`);
      if (command.options.host !== '127.0.0.1' && command.options.host !== 'localhost' && command.options.host !== '::1') {
        process.stderr.write(
          `shared-terminal: bound to ${command.options.host}: anyone who can reach it and knows the token controls the shells\n`,
        );
      }
      return;
    }
    case 'mcp': {
      // stdout belongs to the protocol: anything else printed there would corrupt it.
      console.log = console.error;
      console.info = console.error;
      const server = await startServer(command.options);
      const mcp = await startMcpServer({ hub: server.hub, relay: server.relay, agent: command.options.agent, version: version() });
      stopOn(server, mcp.closed, () => mcp.close());
      process.stderr.write(`shared-terminal: ${server.link(`/agents/${command.options.agent}`)}\n`);
      return;
    }
  }
}

let command: Command;
try {
  command = parseCommandLine(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) fail(2, `${error.message}\n\n${USAGE}`);
  throw error;
}
main(command).catch((error: unknown) => fail(1, (error as Error).stack ?? String(error)));
