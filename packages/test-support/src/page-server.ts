/**
 * A page server for tests and benchmarks that mount the built `<shared-terminal>` against a real transport:
 * `GET /` (a page for the owner named by `?owner=`), `GET /element.js` (the bundle), `POST /token` (a
 * one-time token for that owner) and WebSocket upgrades handed to the transport. Binds 127.0.0.1 only.
 * It takes the transport's two functions instead of importing the server, so the element package keeps
 * depending on the protocol entry alone.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

export interface PageServerOptions {
  /** The built bundle (read on each request or once, as the caller likes). */
  bundle: () => string | Uint8Array;
  /** The owner when the URL names none. */
  defaultOwner: string;
  /** The transport's path for WebSocket upgrades. */
  wsPath: string;
  issueToken(ownerId: string, options: { readonly: boolean }): { token: string };
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** The page for an owner (default: `elementPage`). */
  page?: (owner: string) => string;
}

export interface PageServer {
  server: Server;
  /** `http://127.0.0.1:<port>/` */
  url: string;
  close(): Promise<void>;
}

/** A page that mounts `<shared-terminal>` with a connector fetching `/token` for `owner`. */
export function elementPage(owner: string, options: { title?: string; style?: string; lang?: string } = {}): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${options.title ?? 'shared terminal'}</title>${options.style ? `<style>${options.style}</style>` : ''}</head>
<body>
<shared-terminal font-size="13"${options.lang ? ` lang="${options.lang}"` : ''}></shared-terminal>
<script type="module">
  import '/element.js';
  const el = document.querySelector('shared-terminal');
  el.touchDevice = false;
  el.connector = async ({ readonly }) => {
    const res = await fetch('/token?owner=${encodeURIComponent(owner)}' + (readonly ? '&readonly=1' : ''), { method: 'POST' });
    if (!res.ok) throw new Error('token route answered ' + res.status);
    return res.json();
  };
</script>
</body>
</html>`;
}

export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const page = options.page ?? ((owner: string) => elementPage(owner));
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const owner = url.searchParams.get('owner') ?? options.defaultOwner;
    if (req.method === 'GET' && url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(owner));
    } else if (req.method === 'GET' && url.pathname === '/element.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(options.bundle());
    } else if (req.method === 'POST' && url.pathname === '/token') {
      const { token } = options.issueToken(owner, { readonly: url.searchParams.get('readonly') === '1' });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ url: `ws://${req.headers.host}${options.wsPath}`, token }));
    } else {
      res.writeHead(404).end();
    }
  });
  server.on('upgrade', (req, socket, head) => options.handleUpgrade(req, socket, head));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    server,
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
