/**
 * The product under test, in its own process: a `TerminalHub` with real PTYs, the real WebSocket
 * transport, a token route and a page that mounts the built `<shared-terminal>` bundle (the element's
 * `dist/index.js`), exactly as a host mounts them. The harness drives it over IPC (see rpc.ts): the tools
 * are called in this process with `runTool`, so tool timings exclude any host's HTTP or MCP layer.
 */
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { TerminalHub, createNodePtyProvider, createTerminalTransport, resolveConfig, runSend, runTool, type ToolName } from '@shared-terminal/server';
import { serveRpc } from './rpc.ts';
import { rssOf, settledMemory, wallNow } from './proc.ts';
import { historyCommand } from './content.ts';

// The element's built bundle (`pnpm -r run build`), through the workspace link in bench/node_modules.
const bundlePath = new URL('../node_modules/@shared-terminal/element/dist/index.js', import.meta.url);
if (!existsSync(bundlePath)) throw new Error(`${bundlePath.pathname} is missing: run \`pnpm -r run build\` (npm run bench does) first`);
const bundle = readFileSync(bundlePath);

const cwd = process.argv[2] ?? process.cwd();
const config = resolveConfig({});
const hub = new TerminalHub({ config, provider: createNodePtyProvider(), cwd });
const transport = createTerminalTransport({ hub, path: '/terminal/ws' });

const page = (owner: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bench: product</title>
<style>body{margin:0} shared-terminal{--shared-terminal-max-height:none}</style></head>
<body><shared-terminal font-size="13" lang="en"></shared-terminal>
<script type="module">
  import '/element.js';
  const el = document.querySelector('shared-terminal');
  el.touchDevice = false;
  el.connector = async ({ readonly }) => {
    const res = await fetch('/token?owner=${encodeURIComponent(owner)}' + (readonly ? '&readonly=1' : ''), { method: 'POST' });
    if (!res.ok) throw new Error('token route answered ' + res.status);
    return res.json();
  };
</script></body></html>`;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const owner = url.searchParams.get('owner') ?? 'bench';
  if (req.method === 'GET' && url.pathname === '/') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(owner));
  } else if (req.method === 'GET' && url.pathname === '/element.js') {
    res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(bundle);
  } else if (req.method === 'POST' && url.pathname === '/token') {
    const { token } = transport.issueToken(owner, { readonly: url.searchParams.get('readonly') === '1' });
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

async function generationOf(owner: string) {
  const generation = await hub.acquire(owner).ensure();
  return generation;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

const running = new Map<string, Promise<unknown>>();
const traces = new Map<string, { ch: string; t: number }[]>();

function send(owner: string, text: string) {
  return runSend(hub, owner, { text });
}

serveRpc(
  {
    async ensure({ owner }: { owner: string }) {
      const generation = await generationOf(owner);
      return { pid: generation.pid, rows: generation.rows, cols: generation.cols };
    },
    /** Start a model send and return the wall-clock time just before it was queued. */
    startSend({ owner, text }: { owner: string; text: string }) {
      const start = wallNow();
      running.set(owner, send(owner, text));
      return { start };
    },
    async awaitSend({ owner }: { owner: string }) {
      const result = (await running.get(owner)) as { waitReason: string } | undefined;
      running.delete(owner);
      return { waitReason: result?.waitReason ?? null };
    },
    async send({ owner, text }: { owner: string; text: string }) {
      const { ms, value } = await timed(() => send(owner, text));
      return { ms, waitReason: value.waitReason };
    },
    /** `n` sends of `text`, each timed around `runTool` (after one untimed warm-up). */
    async sendTimes({ owner, text, n }: { owner: string; text: string; n: number }) {
      await send(owner, text);
      const times: number[] = [];
      const reasons = new Set<string>();
      for (let i = 0; i < n; i++) {
        const { ms, value } = await timed(() => send(owner, text));
        times.push(ms);
        reasons.add(value.waitReason);
      }
      return { times, reasons: [...reasons] };
    },
    /** `text` (e.g. `read x`) until the engine reports the input wait, then the answer (untimed) until the prompt. */
    async inputWaitTimes({ owner, text, n }: { owner: string; text: string; n: number }) {
      const times: number[] = [];
      const reasons = new Set<string>();
      for (let i = 0; i < n; i++) {
        const { ms, value } = await timed(() => send(owner, text));
        times.push(ms);
        reasons.add(value.waitReason);
        const answer = await send(owner, `answer-${i}`);
        if (answer.waitReason !== 'prompt') throw new Error(`answering ${text} ended with ${answer.waitReason}`);
      }
      return { times, reasons: [...reasons] };
    },
    /** Print HISTORY_LINES lines and move them into the archive (what 1.5 s of quiet would do). */
    async fillHistory({ owner, lines }: { owner: string; lines: number }) {
      const result = await send(owner, historyCommand(lines));
      const generation = await generationOf(owner);
      await generation.compactNow();
      return { waitReason: result.waitReason };
    },
    async compact({ owner }: { owner: string }) {
      await (await generationOf(owner)).compactNow();
      return {};
    },
    async snapshotTimes({ owner, n }: { owner: string; n: number }) {
      const generation = await generationOf(owner);
      const times: number[] = [];
      let bytes = 0;
      let historyLines = 0;
      for (let i = 0; i < n; i++) {
        const { ms, value } = await timed(() => generation.snapshot());
        times.push(ms);
        bytes = Buffer.byteLength(value.replay);
        historyLines = value.historyLines;
      }
      return { times, bytes, historyLines };
    },
    async toolTimes({ owner, tool, args, n }: { owner: string; tool: ToolName; args: Record<string, unknown>; n: number }) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < n; i++) {
        const { ms, value } = await timed(() => runTool(hub, owner, tool, args));
        times.push(ms);
        bytes = Buffer.byteLength(JSON.stringify(value));
      }
      return { times, bytes };
    },
    /** Reset with a full history: fill (untimed), then time the reset until the new shell's prompt. */
    async resetTimes({ owner, n, lines }: { owner: string; n: number; lines: number }) {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        await send(owner, historyCommand(lines));
        await (await generationOf(owner)).compactNow();
        const { ms } = await timed(() => runTool(hub, owner, 'shared_terminal_reset', {}));
        times.push(ms);
      }
      return { times };
    },
    memory({ owners }: { owners: string[] }) {
      const own = settledMemory();
      const shells = owners.map((owner) => {
        const pid = hub.get(owner)?.generation?.pid;
        return pid ? rssOf(pid) : 0;
      });
      return { ...own, shells };
    },
    async dispose({ owner }: { owner: string }) {
      running.delete(owner);
      await hub.dispose(owner);
      return {};
    },
    async disposeAll() {
      await hub.disposeAll();
      return {};
    },
    /** Record when the owner's output events carry letters (typed-key echoes in a digits-only flood). */
    traceEchoes({ owner }: { owner: string }) {
      const trace: { ch: string; t: number; sequence: number }[] = [];
      hub.acquire(owner).on('output', (event: { data: string; sequence: number }) => {
        const letters = event.data.replace(/\x1b\[[0-9;]*m/g, '').match(/[a-z]/g);
        if (letters) trace.push({ ch: letters.join(''), t: wallNow(), sequence: event.sequence });
      });
      traces.set(owner, trace);
      return {};
    },
    echoTrace({ owner, from = 0 }: { owner: string; from?: number }) {
      return (traces.get(owner) ?? []).slice(from);
    },
    transportStats() {
      return transport.stats();
    },
    async shutdown() {
      await transport.close();
      server.closeAllConnections();
      server.close();
      await hub.disposeAll();
      setTimeout(() => process.exit(0), 20);
      return {};
    },
  },
  { url: `http://127.0.0.1:${port}/`, pid: process.pid, rows: config.rows, cols: config.cols, scrollbackLines: config.scrollbackLines },
);
