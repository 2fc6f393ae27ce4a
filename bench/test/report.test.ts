/**
 * The report is a function of its raw samples: the committed REPORT.md and the verdicts in results.json are
 * what report.ts makes of the samples in results.json, and each goal that is a ratio to a reference
 * measured in the same run turns on that ratio and on nothing else.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isJudgedManyCell, manyOrder, manyPlan } from '../src/many.ts';
import { judge, renderReport, type RawResults } from '../src/report.ts';

const benchDir = new URL('..', import.meta.url);
const REWRITE = 'run `npm run bench -- --from results.json` to rewrite it from the samples';

function committed(): { raw: RawResults; verdicts: unknown } {
  const { verdicts, ...raw } = JSON.parse(readFileSync(new URL('results.json', benchDir), 'utf8')) as RawResults & { verdicts: unknown };
  return { raw, verdicts };
}

/** The verdict `id` of `raw`, failing when the run has none. */
function verdict(raw: RawResults, id: string) {
  const found = judge(raw).find((v) => v.id === id);
  assert.ok(found, `no verdict ${id}`);
  return found;
}

test('REPORT.md and the verdicts in results.json are what report.ts makes of the committed samples', () => {
  const { raw, verdicts } = committed();
  const rendered = renderReport(raw, benchDir);
  assert.equal(rendered.report, readFileSync(new URL('REPORT.md', benchDir), 'utf8'), `REPORT.md is not its samples' report: ${REWRITE}`);
  assert.deepEqual(JSON.parse(rendered.json).verdicts, verdicts, `results.json's verdicts are stale: ${REWRITE}`);
});

test('the report opens with its table: a verdict line, then one row per goal', () => {
  const { raw } = committed();
  const lines = renderReport(raw, benchDir).report.split('\n');
  const verdicts = judge(raw);
  const judged = verdicts.filter((v) => v.met !== null);
  assert.match(lines[2]!, new RegExp(`^${judged.filter((v) => v.met).length} of ${judged.length} goals met`));
  assert.equal(lines[4], '| # | measure | ours | against | ratio | verdict |');
  assert.equal(lines.slice(6, 6 + verdicts.length).filter((l) => l.startsWith('| ')).length, verdicts.length);
});

test('a send of `true` is judged at 2x the floor, by the p50 of both', () => {
  const raw = committed().raw;
  const at = (ours: number) => {
    for (const run of raw.measurements.tools!) {
      // The slowest sample of each side is far off: only the p50 counts.
      run.floorSend = { times: [0.3, 0.4, 0.5, 40] };
      run.send.times = [0.3 * ours, 0.4 * ours, 0.5 * ours, 9];
    }
    return verdict(raw, 'tool-send').met;
  };
  assert.equal(at(2), true);
  assert.equal(at(2.05), false);
  for (const run of raw.measurements.tools!) delete run.floorSend;
  assert.equal(verdict(raw, 'tool-send').met, null, 'a run without its floor gives no verdict');
});

test('an input wait is judged at 2x the floor that saw the reader', () => {
  const raw = committed().raw;
  const at = (ours: number) => {
    for (const run of raw.measurements.tools!) {
      run.floorReader = { times: [10, 10, 10] };
      run.wait.times = [10 * ours, 10 * ours, 10 * ours];
    }
    return verdict(raw, 'tool-input-wait').met;
  };
  assert.equal(at(1.9), true);
  assert.equal(at(2.1), false);
});

test("a drain is judged at 0.8x the floor's read rate, run by run", () => {
  const raw = committed().raw;
  const at = (ratio: number) => {
    for (const run of raw.measurements.drain!) run.product.mbPerSecond = run.floor.mbPerSecond * ratio;
    return verdict(raw, 'drain').met;
  };
  assert.equal(at(0.8), true);
  assert.equal(at(0.79), false);
});

test("the flooded echo's p99 is judged at 2x the no-page floor's", () => {
  const raw = committed().raw;
  const ours = raw.measurements.echo!['product']!.flood;
  for (const run of ours) run.missed = 0;
  const latencies = ours.flatMap((run) => run.latencies);
  const at = (scale: number) => {
    raw.measurements.echoReadFloor = [{ times: latencies.map((ms) => ms * scale), missed: 0 }];
    return verdict(raw, 'echo-flood').met;
  };
  assert.equal(at(0.5), true);
  assert.equal(at(0.45), false);
});

test('many terminals: the worse judged cell against the pooled 1-terminal reference, at 2x', () => {
  const raw = committed().raw;
  const cells = raw.measurements.many!.cells;
  const reference = cells.filter((c) => c.terminals === 1 && c.floods === 0);
  for (const c of reference) {
    c.send = [2, 2, 2];
    c.echo = { ...c.echo, latencies: Array.from({ length: 100 }, () => 10), missed: 0 };
  }
  const judged = cells.filter((c) => c.floods === 4 && c.terminals <= 32);
  const at = (send: number, echo: number) => {
    for (const c of judged) {
      c.send = [2 * send, 2 * send, 2 * send];
      c.echo = { ...c.echo, latencies: Array.from({ length: 100 }, () => 10 * echo), missed: 0 };
    }
    return verdict(raw, 'many-latency').met;
  };
  assert.equal(at(2, 2), true);
  assert.equal(at(2.1, 1), false, 'sends over 2x');
  assert.equal(at(1, 2.1), false, 'echo over 2x');
  // A 64-terminal cell is an observation: however slow, it does not decide 8a.
  for (const c of cells.filter((c) => c.terminals === 64)) c.echo = { ...c.echo, latencies: [900], missed: 0 };
  assert.equal(at(1, 1), true);
});

test('maxSessions: the largest count that, with every smaller one, keeps the echo p99 within 50 ms', () => {
  const raw = committed().raw;
  const cells = raw.measurements.many!.cells;
  const p99 = (terminals: number, floods: number, ms: number) => {
    for (const c of cells.filter((c) => c.terminals === terminals && c.floods === floods))
      c.echo = { ...c.echo, latencies: Array.from({ length: 100 }, () => ms), missed: 0 };
  };
  for (const c of cells) p99(c.terminals, c.floods, 20);
  assert.match(verdict(raw, 'many-sessions').margin, /maxSessions 128 with one flood/);
  p99(64, 1, 51);
  assert.match(verdict(raw, 'many-sessions').margin, /maxSessions 32 with one flood/, 'one count over the bound ends the line there');
  p99(64, 1, 50);
  p99(8, 1, 60);
  assert.match(verdict(raw, 'many-sessions').margin, /maxSessions 1 with one flood/);
});

test('idle terminals: server RSS above the warm process per terminal, at most 4 MiB each', () => {
  const raw = committed().raw;
  const memory = raw.measurements.many!.memory!;
  const at = (eachMiB: number) => {
    for (const step of memory.at) step.figures = { ...step.figures, rss: memory.idle.rss + step.terminals * eachMiB * 1024 * 1024 };
    return verdict(raw, 'many-memory').met;
  };
  assert.equal(at(4), true);
  assert.equal(at(4.01), false);
});

test('the many-terminals grid: 0, 1 and 4 floods where there are others; judged cells with 4 floods up to 32', () => {
  assert.deepEqual(manyPlan([1, 8, 32]), [
    { terminals: 1, floods: 0 },
    { terminals: 8, floods: 0 },
    { terminals: 8, floods: 1 },
    { terminals: 8, floods: 4 },
    { terminals: 32, floods: 0 },
    { terminals: 32, floods: 1 },
    { terminals: 32, floods: 4 },
  ]);
  assert.equal(isJudgedManyCell({ terminals: 32, floods: 4 }), true);
  assert.equal(isJudgedManyCell({ terminals: 64, floods: 4 }), false);
  assert.equal(isJudgedManyCell({ terminals: 8, floods: 1 }), false);
  // Every pass opens and closes with the 1-terminal reference; later passes repeat only the judged cells.
  const order = manyOrder(manyPlan([1, 8, 64]), 2);
  const second = order.filter((c) => c.pass === 2).map((c) => `${c.terminals}/${c.floods}`);
  assert.deepEqual(second, ['1/0', '8/4', '1/0']);
  assert.equal(order.filter((c) => c.pass === 1).at(-1)?.terminals, 1);
});
