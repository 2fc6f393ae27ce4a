/**
 * The baseline: the plainest web terminal, what ttyd and wetty boil down to. node-pty's output goes
 * straight into a `ws` WebSocket and into xterm.js in the page; keys go straight back. No queue, no
 * server-side screen, no protocol, no flow control, no history on the server (a reload shows an empty
 * screen). Same bash, same TERM, same prompt text, same rows/columns and the same xterm.js version as the
 * product, so the difference is what the product adds.
 *
 * Run in its own process by the harness (IPC, see ../src/rpc.ts); it also hosts the polling model of the
 * original plugin (polling-driver.ts).
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { spawn, type IPty } from 'node-pty';
import { WebSocketServer, type WebSocket } from 'ws';
import { DEFAULT_PS1 } from '@shared-terminal/server';
import { serveRpc } from '../src/rpc.ts';
import { rssOf, settledMemory, wallNow } from '../src/proc.ts';
import { historyCommand } from '../src/content.ts';
import { PollingDriver, type PollingOutcome } from './polling-driver.ts';
import { Floor } from './floor.ts';

const require = createRequire(import.meta.url);
const xtermRoot = dirname(require.resolve('@xterm/xterm/package.json'));
const xtermModule = readFileSync(join(xtermRoot, 'lib', 'xterm.mjs'));
const xtermCss = readFileSync(join(xtermRoot, 'css', 'xterm.css'));

const cwd = process.argv[2] ?? process.cwd();
const rows = Number(process.argv[3] ?? 40);
const cols = Number(process.argv[4] ?? 160);
const scrollback = Number(process.argv[5] ?? 10000);

interface Term {
  pty: IPty;
  sockets: Set<WebSocket>;
  output: string;
}
const terms = new Map<string, Term>();

function termFor(id: string): Term {
  let term = terms.get(id);
  if (term) return term;
  const pty = spawn('bash', ['--noprofile', '--norc', '-i'], {
    name: 'xterm-256color',
    cwd,
    rows,
    cols,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      PS1: DEFAULT_PS1,
      PAGER: 'cat',
    },
  });
  const created: Term = { pty, sockets: new Set(), output: '' };
  pty.onData((data) => {
    // The only server-side state: a short tail for the harness's own waits (not sent to anyone).
    created.output = (created.output + data).slice(-4096);
    for (const ws of created.sockets) ws.send(data);
  });
  pty.onExit(() => {
    for (const ws of created.sockets) ws.close();
    terms.delete(id);
  });
  terms.set(id, created);
  term = created;
  return term;
}

const page = (id: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>bench: baseline</title>
<link rel="stylesheet" href="/xterm.css"><style>body{margin:0}</style></head>
<body><div id="terminal"></div>
<script type="module">
  import { Terminal } from '/xterm.mjs';
  const term = new Terminal({ rows: ${rows}, cols: ${cols}, scrollback: ${scrollback}, fontSize: 13, fontFamily: 'monospace', cursorBlink: false });
  term.open(document.getElementById('terminal'));
  const ws = new WebSocket('ws://' + location.host + '/ws?term=${encodeURIComponent(id)}');
  ws.onmessage = (event) => term.write(event.data);
  term.onData((data) => ws.readyState === 1 && ws.send(data));
  window.term = term;
  window.socket = ws;
</script></body></html>`;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/')
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(url.searchParams.get('term') ?? 'bench'));
  else if (url.pathname === '/xterm.mjs') res.writeHead(200, { 'content-type': 'text/javascript' }).end(xtermModule);
  else if (url.pathname === '/xterm.css') res.writeHead(200, { 'content-type': 'text/css' }).end(xtermCss);
  else res.writeHead(404).end();
});
const wss = new WebSocketServer({ server, path: '/ws' });
wss.on('connection', (ws, req) => {
  const id = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('term') ?? 'bench';
  const term = termFor(id);
  term.sockets.add(ws);
  ws.on('message', (data) => term.pty.write(data.toString()));
  ws.on('close', () => term.sockets.delete(ws));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;

/** Resolve once the term's recent output contains `text` (used only for the harness's own waits). */
function outputContains(term: Term, text: string | RegExp, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = () => {
      if (typeof text === 'string' ? term.output.includes(text) : text.test(term.output)) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error(`baseline: no ${String(text)} within ${timeoutMs} ms`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

let driver: PollingDriver | undefined;
async function pollingDriver(): Promise<PollingDriver> {
  driver ??= new PollingDriver({ cwd, rows, cols });
  await driver.ready;
  return driver;
}

let floor: Floor | undefined;
async function floorTerminal(): Promise<Floor> {
  floor ??= new Floor({ cwd, rows, cols });
  await floor.ready;
  return floor;
}

async function timedRuns(n: number, run: () => Promise<PollingOutcome>, after?: () => Promise<unknown>) {
  const times: number[] = [];
  const outcomes = new Set<PollingOutcome>();
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const outcome = await run();
    times.push(performance.now() - start);
    outcomes.add(outcome);
    await after?.();
  }
  return { times, outcomes: [...outcomes] };
}

serveRpc(
  {
    /** Start the terminal (as the first socket would) and wait for its first prompt. */
    async spawn({ term: id }: { term: string }) {
      const term = termFor(id);
      await outputContains(term, /[$#] $/, 10_000); // the prompt (# as root)
      return { pid: term.pty.pid };
    },
    /** Write `text` + Enter and return the wall-clock time just before. */
    write({ term: id, text }: { term: string; text: string }) {
      const start = wallNow();
      termFor(id).pty.write(`${text}\r`);
      return { start };
    },
    async fillHistory({ term: id, lines }: { term: string; lines: number }) {
      const term = termFor(id);
      term.pty.write(`${historyCommand(lines)}; printf 'FILL%sDONE\\n' -\r`);
      await outputContains(term, 'FILL-DONE', 60_000);
      return {};
    },
    async kill({ term: id }: { term: string }) {
      const term = terms.get(id);
      if (!term) return {};
      const exited = new Promise<void>((resolve) => term.pty.onExit(() => resolve()));
      term.pty.kill('SIGHUP');
      await exited;
      return {};
    },
    memory({ terms: ids }: { terms: string[] }) {
      return {
        ...settledMemory(),
        shells: ids.map((id) => {
          const pid = terms.get(id)?.pty.pid;
          return pid ? rssOf(pid) : 0;
        }),
      };
    },
    async pollingSendTimes({ text, n }: { text: string; n: number }) {
      const d = await pollingDriver();
      await d.run(text, { timeoutMs: 10_000 });
      return timedRuns(n, () => d.run(text, { timeoutMs: 10_000 }));
    },
    /** `text` (a command that reads a line) under the polling model, then its answer (untimed). */
    async pollingInputWaitTimes({ text, n, timeoutMs }: { text: string; n: number; timeoutMs: number }) {
      const d = await pollingDriver();
      return timedRuns(
        n,
        () => d.run(text, { timeoutMs }),
        () => d.run('answer', { timeoutMs: 10_000 }),
      );
    },
    /** The floor (floor.ts): `text` written until the next prompt (`parse`: and parsed), `n` times after
     *  `warm` untimed ones (at least one). */
    async floorPromptTimes({ text, n, parse = false, warm = 1 }: { text: string; n: number; parse?: boolean; warm?: number }) {
      const f = await floorTerminal();
      for (let i = 0; i < Math.max(1, warm); i++) await f.writeToPrompt(text, parse);
      const times: number[] = [];
      for (let i = 0; i < n; i++) times.push(await f.writeToPrompt(text, parse));
      return { times };
    },
    /** The floor: `text` (bash's own `read x`) written until /proc shows bash reading the terminal. */
    async floorReaderTimes({ text, n }: { text: string; n: number }) {
      const f = await floorTerminal();
      const times: number[] = [];
      let missed = 0;
      for (let i = 0; i < n; i++) {
        const seen = await f.readerSeen(text, `answer-${i}`);
        if (seen === null) missed += 1;
        else times.push(seen);
      }
      return { times, missed };
    },
    /** The floor: `command` prints `bytes` bytes then `doneText`; how fast a bare PTY reads it (`parse`: and
     *  a headless xterm.js parses it). */
    async floorReadRate({ command, doneText, bytes, parse }: { command: string; doneText: string; bytes: number; parse?: boolean }) {
      return (await floorTerminal()).readRate(command, doneText, bytes, parse === true);
    },
    /**
     * The floor under floods: a quiet bare PTY's keystroke echo while each of `floodCommands` runs in a bare
     * PTY of its own in this process (its output read and dropped); fresh PTYs, ended afterwards.
     */
    async floorEchoWithFloods({ floodCommands, keys }: { floodCommands: string[]; keys: number }) {
      const quiet = new Floor({ cwd, rows, cols });
      const flooding = floodCommands.map(() => new Floor({ cwd, rows, cols }));
      const floors = [quiet, ...flooding];
      try {
        await Promise.all(floors.map((f) => f.ready));
        flooding.forEach((f, i) => f.start(floodCommands[i]!));
        if (floodCommands.length > 0) await new Promise((resolve) => setTimeout(resolve, 1000)); // the floods are running
        return await quiet.echoTimes(keys);
      } finally {
        await Promise.all(floors.map((f) => f.kill()));
      }
    },
    /** Reset under the polling model: end the shell, start a new one, wait for its first prompt. */
    async pollingResetTimes({ n, lines }: { n: number; lines: number }) {
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const d = await pollingDriver();
        await d.run(historyCommand(lines), { timeoutMs: 60_000 });
        const start = performance.now();
        await d.kill();
        driver = new PollingDriver({ cwd, rows, cols });
        await driver.ready;
        times.push(performance.now() - start);
      }
      return { times };
    },
    async shutdown() {
      await driver?.kill();
      await floor?.kill();
      await Promise.all(
        [...terms.keys()].map(
          (id) =>
            new Promise<void>((resolve) => {
              const t = terms.get(id);
              if (!t) return resolve();
              t.pty.onExit(() => resolve());
              t.pty.kill('SIGHUP');
            }),
        ),
      );
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      server.closeAllConnections();
      server.close();
      setTimeout(() => process.exit(0), 20);
      return {};
    },
  },
  { url: `http://127.0.0.1:${port}/`, pid: process.pid },
);
