/**
 * The product under test, in its own process: a `TerminalHub` with real PTYs, the real WebSocket
 * transport, a token route and a page that mounts the built `<shared-terminal>` bundle (the element's
 * `dist/index.js`), exactly as a host mounts them. The harness drives it over IPC (see rpc.ts): the tools
 * are called in this process with `runTool`, so tool timings exclude any host's HTTP or MCP layer.
 */
import { existsSync, readFileSync } from 'node:fs';
import { elementPage, startPageServer } from '@shared-terminal/test-support/page-server';
import {
  ATTACH_HISTORY_LINES,
  TerminalHub,
  createNodePtyProvider,
  createTerminalTransport,
  resolveConfig,
  runSend,
  runTool,
  type ToolName,
} from '@shared-terminal/server';
import { serveRpc } from './rpc.ts';
import { rssOf, settledMemory, startAllocationProfile, wallNow } from './proc.ts';
import { historyCommand } from './content.ts';
import type { SnapshotTimes } from './measures.ts';

// The element's built bundle (`pnpm -r run build`), through the workspace link in bench/node_modules.
const bundlePath = new URL('../node_modules/@shared-terminal/element/dist/index.js', import.meta.url);
if (!existsSync(bundlePath)) throw new Error(`${bundlePath.pathname} is missing: run \`pnpm -r run build\` (npm run bench does) first`);
const bundle = readFileSync(bundlePath);

// BENCH_ALLOC_PROF=<dir>: a sampling profile of every allocation this server makes, collected or not
// (where its garbage comes from), written to <dir>/alloc-<pid>.json at shutdown.
const allocationProfiler = await startAllocationProfile(process.env['BENCH_ALLOC_PROF']);
const cwd = process.argv[2] ?? process.cwd();
// argv[3]: maxSessions for the many-terminals measure (the default config otherwise).
const config = resolveConfig(process.argv[3] ? { maxSessions: Number(process.argv[3]) } : {});
const hub = new TerminalHub({ config, provider: createNodePtyProvider(), cwd });
const transport = createTerminalTransport({ hub, path: '/terminal/ws' });

const pages = await startPageServer({
  bundle: () => bundle,
  defaultOwner: 'bench',
  wsPath: '/terminal/ws',
  issueToken: (ownerId, options) => transport.issueToken(ownerId, options),
  handleUpgrade: (req, socket, head) => transport.handleUpgrade(req, socket, head),
  page: (owner) =>
    elementPage(owner, { title: 'bench: product', style: 'body{margin:0} shared-terminal{--shared-terminal-max-height:none}', lang: 'en' }),
});

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
/** Letters for echo timing (no `m`: the flood's SGR sequences end with it). */
const ECHO_LETTERS = 'abcdefghijklnopqrstuvwxyz';
interface EchoTraceEntry {
  ch: string;
  t: number;
  sequence: number;
}
const traces = new Map<string, EchoTraceEntry[]>();
/** Owners whose output is counted, and the characters counted (see countOutput). */
const counted = new Set<string>();
let outputChars = 0;
const echoWaiters = new Set<() => void>();
/** A letter other than `m` (the only letter in SGR sequences, and never typed by the echo measures). */
const MAYBE_LETTER = /[a-ln-z]/;

function send(owner: string, text: string) {
  return runSend(hub, owner, { text });
}

/** `n` timed sends of `text` with their wait reasons; `after` runs untimed after each. */
async function timedSends(owner: string, text: string, n: number, after?: (i: number) => Promise<void>) {
  const times: number[] = [];
  const reasons = new Set<string>();
  for (let i = 0; i < n; i++) {
    const { ms, value } = await timed(() => send(owner, text));
    times.push(ms);
    reasons.add(value.waitReason);
    await after?.(i);
  }
  return { times, reasons: [...reasons] };
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
    /** `n` sends of `text`, each timed around `runSend`, after `warm` untimed ones (at least one). */
    async sendTimes({ owner, text, n, warm = 1 }: { owner: string; text: string; n: number; warm?: number }) {
      for (let i = 0; i < Math.max(1, warm); i++) await send(owner, text);
      return timedSends(owner, text, n);
    },
    /** `text` (e.g. `read x`) until the engine reports the input wait, then the answer (untimed) until the prompt. */
    async inputWaitTimes({ owner, text, n }: { owner: string; text: string; n: number }) {
      return timedSends(owner, text, n, async (i) => {
        const answer = await send(owner, `answer-${i}`);
        if (answer.waitReason !== 'prompt') throw new Error(`answering ${text} ended with ${answer.waitReason}`);
      });
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
    /** The server's part of a reconnect: the first screen's snapshot (newest rows, never cached) and the
     *  full one (the first call computes it; later calls at the same sequence are served from its cache). */
    async snapshotTimes({ owner, n }: { owner: string; n: number }): Promise<SnapshotTimes> {
      const generation = await generationOf(owner);
      const first = { times: [] as number[], bytes: 0, historyLines: 0 };
      const full = { times: [] as number[], bytes: 0, historyLines: 0 };
      for (let i = 0; i < n; i++) {
        const cut = await timed(() => generation.snapshot({ maxHistoryLines: ATTACH_HISTORY_LINES }));
        first.times.push(cut.ms);
        first.bytes = Buffer.byteLength(cut.value.replay);
        first.historyLines = cut.value.historyLines;
        const whole = await timed(() => generation.snapshot());
        full.times.push(whole.ms);
        full.bytes = Buffer.byteLength(whole.value.replay);
        full.historyLines = whole.value.historyLines;
      }
      return { first, full };
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
      counted.delete(owner);
      await hub.dispose(owner);
      return {};
    },
    async disposeAll() {
      counted.clear();
      await hub.disposeAll();
      return {};
    },
    /**
     * Letters written straight to the owner's PTY (no page, no socket, no queue), each timed until an
     * output event carries its echo: how long the server itself takes to read an echo, 2b's floor.
     */
    async echoReadTimes({ owner, keys }: { owner: string; keys: number }) {
      const generation = await generationOf(owner);
      const terminal = hub.acquire(owner);
      const times: number[] = [];
      for (let i = 0; i < keys; i++) {
        const ch = ECHO_LETTERS[i % ECHO_LETTERS.length]!;
        const started = performance.now();
        const ms = await new Promise<number | null>((resolve) => {
          const listener = (event: { data: string }) => {
            if (!event.data.includes(ch) || !event.data.replace(/\x1b\[[0-9;]*m/g, '').includes(ch)) return;
            done(performance.now() - started);
          };
          const done = (value: number | null) => {
            clearTimeout(timer);
            terminal.off('output', listener);
            resolve(value);
          };
          const timer = setTimeout(() => done(null), 2000);
          terminal.on('output', listener);
          void generation.write(ch);
        });
        if (ms !== null) times.push(ms);
        await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
      }
      return { times, missed: keys - times.length };
    },
    /** Record when the owner's output events carry letters (typed-key echoes in a digits-only flood). */
    traceEchoes({ owner }: { owner: string }) {
      const trace: EchoTraceEntry[] = [];
      hub.acquire(owner).on('output', (event: { data: string; sequence: number }) => {
        // Most chunks of a flood carry digits and SGR only: one quick test before the full scan (this runs on
        // every chunk the server reads, in the process being measured).
        if (!MAYBE_LETTER.test(event.data)) return;
        const letters = event.data.replace(/\x1b\[[0-9;]*m/g, '').match(/[a-z]/g);
        if (!letters) return;
        trace.push({ ch: letters.join(''), t: wallNow(), sequence: event.sequence });
        for (const waiter of [...echoWaiters]) waiter();
      });
      traces.set(owner, trace);
      return {};
    },
    echoTrace({ owner, from = 0 }: { owner: string; from?: number }) {
      return (traces.get(owner) ?? []).slice(from);
    },
    /** The first trace entry from `from` on that carries `ch`, as soon as the server reads it (no polling:
     *  the harness asks once per key), or null after `timeoutMs`. `traced` is the index after it. */
    waitEcho({ owner, ch, from, timeoutMs }: { owner: string; ch: string; from: number; timeoutMs: number }) {
      const trace = traces.get(owner) ?? [];
      const find = () => {
        for (let i = from; i < trace.length; i++) if (trace[i]!.ch.includes(ch)) return { entry: trace[i]!, traced: i + 1 };
        return undefined;
      };
      return new Promise<{ entry: EchoTraceEntry | null; traced: number }>((resolve) => {
        const settle = (found: { entry: EchoTraceEntry | null; traced: number }) => {
          clearTimeout(timer);
          echoWaiters.delete(check);
          resolve(found);
        };
        const check = () => {
          const found = find();
          if (found) settle(found);
        };
        const timer = setTimeout(() => settle({ entry: null, traced: trace.length }), timeoutMs);
        echoWaiters.add(check);
        check();
      });
    },
    /**
     * `command` (which prints `bytes` bytes, then `doneText`) as a model send in a terminal no page is
     * attached to, from the send's start until an output event carries `doneText`: the server's drain rate.
     */
    async drainRate({ owner, command, doneText, bytes }: { owner: string; command: string; doneText: string; bytes: number }) {
      await generationOf(owner);
      const terminal = hub.acquire(owner);
      let tail = '';
      let listener: ((event: { data: string }) => void) | undefined;
      const done = new Promise<number>((resolve) => {
        listener = (event) => {
          const text = tail + event.data;
          if (text.includes(doneText)) resolve(performance.now());
          tail = text.slice(-128);
        };
        terminal.on('output', listener);
      });
      const start = performance.now();
      const sent = send(owner, command);
      const seconds = ((await done) - start) / 1000;
      terminal.off('output', listener!);
      await sent;
      return { seconds, mbPerSecond: bytes / 1e6 / seconds };
    },
    /** Count the characters of every output event of `owners` from now on (for CPU per MB of output). */
    countOutput({ owners }: { owners: string[] }) {
      for (const owner of owners) {
        if (counted.has(owner)) continue;
        counted.add(owner);
        hub.acquire(owner).on('output', (event: { data: string }) => {
          outputChars += event.data.length;
        });
      }
      return {};
    },
    /** This process's CPU time so far (user + system, ms), the characters counted so far, and its RSS. */
    usage() {
      const cpu = process.cpuUsage();
      return { cpuMs: (cpu.user + cpu.system) / 1000, outputChars, rss: rssOf(process.pid) };
    },
    transportStats() {
      return transport.stats();
    },
    async shutdown() {
      await allocationProfiler?.();
      await transport.close();
      await pages.close();
      await hub.disposeAll();
      setTimeout(() => process.exit(0), 20);
      return {};
    },
  },
  { url: pages.url, pid: process.pid, rows: config.rows, cols: config.cols, scrollbackLines: config.scrollbackLines },
);
