/**
 * A small real server for the element's end-to-end tests: a `TerminalHub` with real PTYs (bash), the real
 * transport on `/terminal/ws`, a token route, and a page that loads the built bundle (`dist/index.js`) and
 * mounts `<shared-terminal>` with a connector that fetches `/token`. Binds 127.0.0.1 only. A short
 * disconnect grace keeps the reload test quick. (Test code may
 * import the server; the element itself imports only the protocol entry.)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { elementPage, startPageServer } from '@shared-terminal/test-support/page-server';
import {
  TerminalHub,
  createNodePtyProvider,
  createTerminalTransport,
  resolveConfig,
  type TerminalTransport,
  type HumanSettled,
} from '@shared-terminal/server';

export const OWNER_ID = 'agent-e2e';
const BUNDLE = new URL('../../dist/index.js', import.meta.url);

export interface RealServer {
  url: string;
  hub: TerminalHub;
  transport: TerminalTransport;
  settled: HumanSettled[];
  close(): Promise<void>;
}

export async function startRealServer(): Promise<RealServer> {
  if (!existsSync(BUNDLE)) throw new Error('dist/index.js is missing: run `pnpm run build` in packages/terminal-element first');
  const config = resolveConfig({ rows: 24, cols: 100, scrollbackLines: 2000, disconnectGraceMs: 1500 });
  const cwd = mkdtempSync(join(tmpdir(), 'element-e2e-'));
  const hub = new TerminalHub({ config, provider: createNodePtyProvider(), cwd });
  const transport = createTerminalTransport({ hub, path: '/terminal/ws' });
  const settled: HumanSettled[] = [];
  transport.on('human-settled', (event) => settled.push(event));
  const pages = await startPageServer({
    bundle: () => readFileSync(BUNDLE),
    defaultOwner: OWNER_ID,
    wsPath: '/terminal/ws',
    issueToken: (ownerId, options) => transport.issueToken(ownerId, options),
    handleUpgrade: (req, socket, head) => transport.handleUpgrade(req, socket, head),
    page: (owner) => elementPage(owner, { title: 'shared terminal e2e' }),
  });
  return {
    url: pages.url,
    hub,
    transport,
    settled,
    async close() {
      await transport.close();
      await pages.close();
      await hub.disposeAll();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
}
