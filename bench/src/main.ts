/**
 * `npm run bench` (scripts/bench.mjs) → here. Starts the product's server and the baseline's server in
 * child processes, the system Chromium through playwright-core, runs the seven measurements several times
 * (alternating product and baseline so that machine noise hits both), then writes bench/results.json and
 * bench/REPORT.md.
 *
 * Options: --runs N (default 3), --only a,b (throughput, echo, tools, drain, reconnect, memory, interrupt,
 * history, many), --keys N (keys per echo run, default 100), --many-keys N (per many-terminals cell, twice that in the judged cells; default
 * 150), --many-counts 1,8,32,64,128 (terminal counts of that measure), --no-write (print only), --raw FILE (write only the raw
 * samples to FILE, for A/B work), --from results.json (only
 * rewrite REPORT.md from an earlier run's raw samples).
 */
import { cpus, loadavg, totalmem } from 'node:os';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '@shared-terminal/test-support/chromium';
import { writeContent } from './content.ts';
import { RpcChild } from './rpc.ts';
import {
  drainRun,
  echoReadFloorRun,
  echoRun,
  historyToolsRun,
  interruptRun,
  memoryRun,
  reconnectRun,
  throughputRun,
  toolRun,
  type BenchContext,
  type EchoRun,
} from './measures.ts';
import { manyFloorRun, manyLatencyRun, manyMemoryRun, manyPlan } from './many.ts';
import { writeReport, type RawResults } from './report.ts';
import { median as exactMedian, percentile } from './stats.ts';

const median = (values: number[]) => exactMedian(values).toFixed(1);

const ALL = ['throughput', 'echo', 'tools', 'drain', 'reconnect', 'memory', 'interrupt', 'history', 'many'] as const;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    // --raw <file>: write only the raw samples there (for A/B work), not REPORT.md or results.json.
    raw: { type: 'string' },
    keys: { type: 'string', default: '100' },
    // The many-terminals measure: keys per cell, and the terminal counts (ascending).
    'many-keys': { type: 'string', default: '150' },
    'many-counts': { type: 'string', default: '1,8,32,64,128' },
    from: { type: 'string' },
    // A/B work on 2b: the echo measure runs only the product's flood runs (and the floor); use with --no-write.
    'flood-only': { type: 'boolean', default: false },
  },
});
// --from results.json: rewrite REPORT.md (and the verdicts) from the raw samples of an earlier run.
if (values.from) {
  const { verdicts: _old, ...previous } = JSON.parse(readFileSync(values.from, 'utf8')) as RawResults & { verdicts?: unknown };
  console.log(`wrote ${writeReport(previous, new URL('..', import.meta.url)).join(' and ')}`);
  process.exit(0);
}
const runs = Math.max(1, Number(values.runs));
const keys = Math.max(5, Number(values.keys));
const selected = new Set(values.only ? values.only.split(',') : ALL);
for (const name of selected)
  if (!(ALL as readonly string[]).includes(name)) throw new Error(`unknown measurement ${name}: use ${ALL.join(', ')}`);

const began = Date.now();
const log = (message: string) => console.log(`[bench ${((Date.now() - began) / 1000).toFixed(0).padStart(4)} s] ${message}`);
const load = () => loadavg().map((v) => Math.round(v * 100) / 100);

const productServer = new URL('./product-server.ts', import.meta.url);
const baselineServer = new URL('../baseline/server.ts', import.meta.url);

const files = writeContent();
const raw: RawResults = {
  startedAt: new Date(began).toISOString(),
  runs,
  machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', memoryBytes: totalmem(), node: process.version, chromium: '' },
  load: { start: load(), end: [], samples: {} },
  measurements: {},
};

const children: RpcChild<unknown>[] = [];
async function startServers() {
  const product = await RpcChild.start<{ url: string; rows: number; cols: number; scrollbackLines: number }>(productServer, [files.dir]);
  children.push(product as RpcChild<unknown>);
  const { rows, cols, scrollbackLines } = product.info;
  const baseline = await RpcChild.start<{ url: string }>(baselineServer, [files.dir, String(rows), String(cols), String(scrollbackLines)]);
  children.push(baseline as RpcChild<unknown>);
  return { product, baseline };
}

// The repository's one description of the system Chromium (CHROMIUM_PATH or /usr/bin/chromium, its flags).
const browser = await chromium.launch(chromiumLaunchOptions());
raw.machine.chromium = browser.version();
try {
  const { product, baseline } = await startServers();
  const context: BenchContext = { browser, product, baseline, files, log };
  const both = ['product', 'baseline'] as const;
  const order = (run: number) => (run % 2 === 0 ? both : ([...both].reverse() as unknown as typeof both));
  const sample = (name: string) => (raw.load.samples[name] = load());

  if (selected.has('throughput')) {
    const result: Record<string, { mbPerSecond: number; seconds: number; parsedMB: number; historySeconds?: number }[]> = {
      product: [],
      baseline: [],
    };
    for (let run = 0; run < runs; run++) {
      for (const system of order(run)) {
        const r = await throughputRun(context, system);
        result[system]!.push(r);
        log(
          `throughput ${system} run ${run + 1}: ${r.mbPerSecond.toFixed(2)} MB/s (${r.seconds.toFixed(2)} s, the page parsed ${r.parsedMB.toFixed(1)} MB${r.historySeconds !== undefined ? `, full history in the page at ${r.historySeconds.toFixed(2)} s` : ''})`,
        );
      }
    }
    raw.measurements.throughput = result;
    sample('throughput');
  }

  if (selected.has('echo')) {
    const result: Record<string, { idle: EchoRun[]; flood: EchoRun[] }> = {
      product: { idle: [], flood: [] },
      baseline: { idle: [], flood: [] },
    };
    for (let run = 0; run < runs; run++) {
      for (const flood of values['flood-only'] ? [true] : [false, true]) {
        for (const system of values['flood-only'] ? (['product'] as const) : order(run)) {
          const r = await echoRun(context, system, { keys, flood });
          result[system]![flood ? 'flood' : 'idle'].push(r);
          const spread = r.latencies.length ? [50, 90, 99, 100].map((p) => percentile(r.latencies, p).toFixed(1)).join(' / ') : '-';
          log(
            `echo ${flood ? 'flood' : 'idle'} ${system} run ${run + 1}: ${r.latencies.length} keys, p50 / p90 / p99 / max ${spread} ms, missed ${r.missed}; median key sent at ${median(r.sends)} ms, echo arrived at ${median(r.arrivals)} ms${r.reads?.length ? `, read by the server at ${median(r.reads)} ms (p90 ${percentile(r.reads, 90).toFixed(1)}, p99 ${percentile(r.reads, 99).toFixed(1)})` : ''}`,
          );
        }
      }
    }
    raw.measurements.echo = result;
    const floor = [];
    for (let run = 0; run < runs; run++) {
      const r = await echoReadFloorRun(context, keys);
      floor.push(r);
      log(
        `echo read floor run ${run + 1}: the server read ${r.times.length} echoes in a flood with no page, median ${median(r.times)} ms, max ${Math.max(...r.times).toFixed(1)} ms, missed ${r.missed}`,
      );
    }
    raw.measurements.echoReadFloor = floor;
    sample('echo');
  }

  if (selected.has('tools')) {
    const result = [];
    for (let run = 0; run < runs; run++) {
      const r = await toolRun(context, 30);
      result.push(r);
      log(
        `tools run ${run + 1}: send true ${median(r.send.times)} ms vs polling ${median(r.pollingSend.times)} ms; read x ${median(r.wait.times)} ms (${r.wait.reasons}), polling: ${r.pollingShellRead.outcomes}; head -n 1 ${median(r.childWait.times)} ms (${r.childWait.reasons}) vs polling ${median(r.pollingChildWait.times)} ms (${r.pollingChildWait.outcomes})`,
      );
    }
    raw.measurements.tools = result;
    sample('tools');
  }

  if (selected.has('drain')) {
    const result = [];
    for (let run = 0; run < runs; run++) {
      const r = await drainRun(context, 20);
      result.push(r);
      log(
        `drain run ${run + 1}: ${(r.bytes / 1e6).toFixed(0)} MB of flood, the server (no page) ${r.product.mbPerSecond.toFixed(1)} MB/s, a bare PTY ${r.floor.mbPerSecond.toFixed(1)} MB/s, parsing too ${r.parsingFloor.mbPerSecond.toFixed(1)} MB/s`,
      );
    }
    raw.measurements.drain = result;
    sample('drain');
  }

  if (selected.has('reconnect')) {
    const result = [];
    for (let run = 0; run < runs; run++) {
      const r = await reconnectRun(context, 7);
      result.push(r);
      const at = (pick: (s: (typeof r.samples)[number]) => number) => median(r.samples.map(pick));
      log(
        `reconnect run ${run + 1}: first snapshot ${r.server.first.bytes} bytes (${r.server.first.historyLines} rows, server ${median(r.server.first.times)} ms), full ${r.server.full.bytes} bytes (${r.server.full.historyLines} rows, server ${r.server.full.times[0]} ms uncached); live ${at((s) => s.live)} ms (first snapshot arrived at ${at((s) => s.arrived)} ms), painted ${at((s) => s.painted)} ms, whole history ${at((s) => s.history)} ms`,
      );
    }
    raw.measurements.reconnect = result;
    sample('reconnect');
  }

  if (selected.has('interrupt')) {
    const result: Record<string, { ms: number | null; paint: number | null }[]> = { product: [], baseline: [] };
    for (let run = 0; run < runs; run++) {
      for (const system of order(run)) {
        const r = await interruptRun(context, system);
        result[system]!.push(r);
        log(`interrupt ${system} run ${run + 1}: ${r.ms?.toFixed(1) ?? 'no prompt'} ms`);
      }
    }
    raw.measurements.interrupt = result;
    sample('interrupt');
  }

  if (selected.has('history')) {
    const result = [];
    for (let run = 0; run < runs; run++) {
      const r = await historyToolsRun(context, 8);
      result.push(r);
      log(
        `history run ${run + 1}: read newest ${median(r.readNewest.times)} ms, oldest ${median(r.readOldest.times)} ms, reset ${median(r.reset.times)} ms (polling model ${median(r.pollingReset.times)} ms)`,
      );
    }
    raw.measurements.history = result;
    sample('history');
  }

  await Promise.all([product.stop(), baseline.stop()]);

  if (selected.has('memory')) {
    const result = [];
    for (let run = 0; run < Math.min(runs, 2); run++) {
      // Fresh processes: nothing but these terminals ever lived in them. V8's young generation starts at
      // the size it otherwise grows to under the first fills (16 MiB semi-spaces, its default cap here), so
      // that one-time growth of the process is in its start-up figure, not in whichever terminal was being
      // filled when it happened (it landed on the 2nd and 3rd terminals, +7 MiB each, in earlier runs).
      const youngGeneration = ['--min-semi-space-size=16', '--max-semi-space-size=16'];
      const memProduct = await RpcChild.start<unknown>(productServer, [files.dir], youngGeneration);
      const memBaseline = await RpcChild.start<unknown>(baselineServer, [files.dir], youngGeneration);
      try {
        const r = await memoryRun(memProduct, memBaseline, 32, log);
        result.push(r);
        const mib = (bytes: number) => (bytes / 1048576).toFixed(2);
        log(
          `memory run ${run + 1}: product +${mib(r.product.one.rss - r.product.idle.rss)} MiB for one, +${mib((r.product.all.rss - r.product.idle.rss) / 32)} MiB each of 32; baseline +${mib((r.baseline.all.rss - r.baseline.idle.rss) / 32)} MiB each`,
        );
      } finally {
        await Promise.all([memProduct.stop(), memBaseline.stop()]);
      }
    }
    raw.measurements.memory = result;
    sample('memory');
  }

  if (selected.has('many')) {
    // A server of its own, with room for 128 terminals and the page's: the default maxSessions is 32.
    const counts = values['many-counts']
      .split(',')
      .map(Number)
      .sort((a, b) => a - b);
    const room = String(Math.max(...counts) + 8);
    const manyServer = await RpcChild.start<{ url: string; rows: number; cols: number; scrollbackLines: number }>(productServer, [
      files.dir,
      room,
    ]);
    children.push(manyServer as RpcChild<unknown>);
    // The floor under the same floods runs in a baseline process of its own (the first one has stopped).
    const floorServer = await RpcChild.start<{ url: string }>(baselineServer, [
      files.dir,
      String(manyServer.info.rows),
      String(manyServer.info.cols),
    ]);
    children.push(floorServer as RpcChild<unknown>);
    try {
      const manyContext = { browser, product: manyServer, baseline: floorServer, files, log };
      const keys = Math.max(5, Number(values['many-keys']));
      const cells = await manyLatencyRun(manyContext, manyPlan(counts), { keys, sends: 20, passes: runs });
      const floor = await manyFloorRun(manyContext, manyPlan(counts), { keys });
      raw.measurements.many = { cells, floor };
    } finally {
      await Promise.all([manyServer.stop(), floorServer.stop()]);
    }
    sample('many');
    // RSS per idle terminal in a fresh process (its young generation at full size from the start, as in 5).
    const memoryServer = await RpcChild.start<unknown>(
      productServer,
      [files.dir, room],
      ['--min-semi-space-size=16', '--max-semi-space-size=16'],
    );
    try {
      const memory = await manyMemoryRun(
        memoryServer,
        [64, 128].filter((n) => n <= Math.max(...counts)),
      );
      raw.measurements.many!.memory = memory;
      for (const step of memory.at)
        log(
          `many: ${step.terminals} idle terminals, +${((step.figures.rss - memory.idle.rss) / step.terminals / 1048576).toFixed(2)} MiB server RSS each`,
        );
    } finally {
      await memoryServer.stop();
    }
  }
} finally {
  await browser.close();
  for (const child of children) await child.stop().catch(() => undefined);
  rmSync(files.dir, { recursive: true, force: true });
}

raw.load.end = load();
raw.finishedAt = new Date().toISOString();
raw.durationSeconds = Math.round((Date.now() - began) / 1000);
if (values.raw) {
  writeFileSync(values.raw, JSON.stringify(raw, null, 2));
  log(`wrote ${values.raw}`);
} else if (values['no-write']) console.log(JSON.stringify(raw, null, 2).slice(0, 4000));
else {
  const paths = writeReport(raw, new URL('..', import.meta.url));
  log(`wrote ${paths.join(' and ')}`);
}
