/**
 * A small real server for the element's end-to-end tests: a `TerminalHub` with real PTYs (bash), the real
 * transport on `/terminal/ws`, a token route, and a page that loads the built bundle (`dist/index.js`) and
 * mounts `<shared-terminal>` with a connector that fetches `/token`. Binds 127.0.0.1 only. A short
 * disconnect grace keeps the reload test quick. (Test code may
 * import the server; the element itself imports only the protocol entry.)
 */
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TerminalHub, createNodePtyProvider, createTerminalTransport, resolveConfig, type TerminalTransport, type TransportHumanSettled } from '@shared-terminal/server';

export const OWNER_ID = 'agent-e2e';
const BUNDLE = new URL('../../dist/index.js', import.meta.url);

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>shared terminal e2e</title></head>
<body>
<shared-terminal font-size="13"></shared-terminal>
<script type="module">
  import '/element.js';
  const el = document.querySelector('shared-terminal');
  el.touchDevice = false;
  el.connector = async ({ readonly }) => {
    const res = await fetch('/token' + (readonly ? '?readonly=1' : ''), { method: 'POST' });
    if (!res.ok) throw new Error('token route answered ' + res.status);
    return res.json();
  };
</script>
</body>
</html>`;

export interface RealServer {
  url: string;
  hub: TerminalHub;
  transport: TerminalTransport;
  settled: TransportHumanSettled[];
  close(): Promise<void>;
}

export async function startRealServer(): Promise<RealServer> {
  if (!existsSync(BUNDLE)) throw new Error('dist/index.js is missing: run `pnpm run build` in packages/terminal-element first');
  const config = resolveConfig({ rows: 24, cols: 100, scrollbackLines: 2000, disconnectGraceMs: 1500 });
  const cwd = mkdtempSync(join(tmpdir(), 'element-e2e-'));
  const hub = new TerminalHub({ config, provider: createNodePtyProvider(), cwd });
  const transport = createTerminalTransport({ hub, path: '/terminal/ws' });
  const settled: TransportHumanSettled[] = [];
  transport.on('human-settled', (event) => settled.push(event));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (req.method === 'GET' && url.pathname === '/element.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(BUNDLE));
    } else if (req.method === 'POST' && url.pathname === '/token') {
      const { token } = transport.issueToken(OWNER_ID, { readonly: url.searchParams.get('readonly') === '1' });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: `ws://${req.headers.host}/terminal/ws`, token }));
    } else {
      res.writeHead(404).end();
    }
  });
  server.on('upgrade', (req, socket, head) => transport.handleUpgrade(req, socket, head));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/`,
    hub,
    transport,
    settled,
    async close() {
      await transport.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await hub.disposeAll();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
