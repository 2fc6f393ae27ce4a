/**
 * Child process entry: a Verdaccio registry on 127.0.0.1 with a port the OS picks, for
 * registry-install.test.ts (started and stopped by helpers/registry.ts, never run by hand).
 *
 * Argument: the path of the Verdaccio config file (storage, auth and uplinks; helpers/registry.ts writes it).
 * Stdout, one line each: `listening <url>` once the socket is bound, then `request <METHOD> <path>` for every
 * request, so that the test can show which packages were served from here.
 * It exits on SIGTERM, and when its parent goes away (stdin closes), so a crashed test leaves no registry.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runServer } from 'verdaccio';

const configPath = process.argv[2];
if (!configPath) {
  process.stderr.write('usage: registry-server.ts <verdaccio config file>\n');
  process.exit(2);
}

// Verdaccio types its factory's result as `any`; it is a plain node:http server (the config has no https).
const server = (await runServer(configPath)) as Server;
server.on('request', (request) => {
  process.stdout.write(`request ${request.method ?? '?'} ${request.url ?? ''}\n`);
});

function stop(): void {
  server.close(() => process.exit(0));
  server.closeAllConnections();
  // Verdaccio keeps timers (uplink health, token cache); do not wait for them.
  setTimeout(() => process.exit(0), 2000).unref();
}
process.once('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${port}/\n`);
});
