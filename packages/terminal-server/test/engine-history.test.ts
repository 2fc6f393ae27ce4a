/**
 * History beyond the emulator's own scrollback: archived rows read, capture and snapshot as one history.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import headless from '@xterm/headless';
import { runRead, runSend } from '../src/index.ts';
import { LIVE_SCROLLBACK } from '../src/screen/screen.ts';
import { makeHub, type TestHub } from './helpers/engine.ts';

describe('engine: long history', () => {
  let t: TestHub;
  before(() => {
    t = makeHub({ scrollbackLines: 5000 });
  });
  after(() => t.close());

  it('a capture longer than the live scrollback keeps every line', async () => {
    const r = await runSend(t.hub, 'history', { text: 'seq 1 3000' });
    assert.equal(r.truncated, false);
    const lines = r.output.split('\n');
    assert.equal(lines[0], 'seq 1 3000');
    assert.equal(lines[1], '1');
    assert.equal(lines.at(-1), '3000');
    assert.equal(lines.length, 3001);
    assert.ok(3000 > LIVE_SCROLLBACK);
  });

  it('read pages through archived history', async () => {
    await t.hub.get('history')!.generation!.compactNow();
    const page = await runRead(t.hub, 'history', { offset: 0, count: 5000 });
    const all = page.text.split('\n');
    assert.ok(all.includes('seq 1 3000'.padStart(0)) || all.some((l) => l.endsWith('seq 1 3000')));
    const i = all.indexOf('1');
    assert.deepEqual(all.slice(i, i + 3), ['1', '2', '3']);
  });

  it('while output flows the emulator holds at most one slice past the live scrollback: older rows are archived before it drops them, none lost', async () => {
    const generation = t.hub.get('history')!.generation!;
    let peak = 0;
    const sampler = setInterval(() => (peak = Math.max(peak, generation.emulatorHistoryRows)), 1);
    const r = await runSend(t.hub, 'history', { text: "seq -f 'flowing %g' 1 20000" });
    clearInterval(sampler);
    assert.equal(r.waitReason, 'prompt');
    // Without archiving while it flows the emulator would hold the whole 5,000-row history here.
    // Its cap is the live scrollback plus one slice of output (800 rows); what it drops was archived.
    assert.ok(peak > LIVE_SCROLLBACK && peak <= LIVE_SCROLLBACK + 800, `emulator history peaked at ${peak} rows`);
    const lines = (await generation.allText()).split('\n');
    const last = lines.lastIndexOf('flowing 20000');
    assert.ok(last > 4000, 'the history holds the newest rows');
    for (let k = 0; k < 4000; k++) assert.equal(lines[last - k], `flowing ${20000 - k}`, `row ${k} from the end`);
  });

  it('a snapshot rebuilds archived rows with their colours', async () => {
    await runSend(t.hub, 'history', {
      text: `for i in $(seq 1 1500); do printf '\\033[1;3%dmrow %d\\033[0m plain\\n' $((i % 7 + 1)) $i; done`,
    });
    const generation = t.hub.get('history')!.generation!;
    await generation.compactNow();
    const snapshot = await generation.snapshot();
    assert.ok(snapshot.historyLines > LIVE_SCROLLBACK, `history ${snapshot.historyLines}`);
    const replica = new headless.Terminal({ rows: snapshot.rows, cols: snapshot.cols, scrollback: 10000, allowProposedApi: true });
    await new Promise<void>((resolve) => replica.write(snapshot.replay, resolve));
    const buffer = replica.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)!.translateToString(true));
    const serverText = (await generation.allText()).replace(/\n+$/, '');
    assert.equal(lines.join('\n').replace(/\n+$/, ''), serverText);
    const y = lines.indexOf('row 1 plain');
    assert.ok(y >= 0);
    const cell = buffer.getLine(y)!.getCell(0)!;
    assert.ok(cell.isBold());
    assert.equal(cell.getFgColor(), 2);
    assert.equal(buffer.getLine(y)!.getCell(7)!.isAttributeDefault(), true);
    replica.dispose();
  });

  it('a snapshot cut at maxHistoryLines holds the newest rows alone, in order, across the emulator and the archive', async () => {
    const generation = t.hub.get('history')!.generation!;
    const replicaLines = async (replay: string, rows: number, cols: number): Promise<string[]> => {
      const replica = new headless.Terminal({ rows, cols, scrollback: 10000, allowProposedApi: true });
      await new Promise<void>((resolve) => replica.write(replay, resolve));
      const buffer = replica.buffer.active;
      const lines: string[] = [];
      for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)!.translateToString(true));
      replica.dispose();
      return lines;
    };
    const full = await generation.snapshot();
    const fullLines = await replicaLines(full.replay, full.rows, full.cols);
    const emulatorRows = generation.emulatorHistoryRows;
    assert.ok(full.historyLines > emulatorRows + 200, 'the history reaches into the archive');
    // Within the emulator's rows, exactly at its edge, and reaching into the archive.
    for (const limit of [Math.max(1, emulatorRows - 40), emulatorRows, emulatorRows + 150]) {
      const cut = await generation.snapshot({ maxHistoryLines: limit });
      assert.equal(cut.historyLines, limit, `limit ${limit}`);
      assert.equal(cut.truncated, true);
      const lines = await replicaLines(cut.replay, cut.rows, cut.cols);
      assert.deepEqual(lines, fullLines.slice(fullLines.length - lines.length), `limit ${limit}: the newest rows of the full history`);
      assert.equal(lines.length, limit + full.rows);
    }
    const uncut = await generation.snapshot({ maxHistoryLines: full.historyLines + 10 });
    assert.equal(uncut.replay, full.replay, 'a limit above the history changes nothing');
  });

  it('a capture that began before its rows were archived still reads them', async () => {
    const r = await runSend(t.hub, 'history', { text: 'seq 1 2500; sleep 2; echo end' });
    const lines = r.output.split('\n');
    assert.equal(lines[1], '1');
    assert.equal(lines.at(-1), 'end');
    assert.equal(r.truncated, false);
  });

  it('history is capped at scrollbackLines and erase-scrollback clears it', async () => {
    await runSend(t.hub, 'history', { text: 'seq 1 8000' });
    await t.hub.get('history')!.generation!.compactNow();
    await runSend(t.hub, 'history', { text: 'seq 1 10' });
    const read = await runRead(t.hub, 'history', { count: 1 });
    assert.equal(read.totalLines, 5000);
    await runSend(t.hub, 'history', { text: "printf '\\033[H\\033[2J\\033[3J'" });
    const cleared = await runRead(t.hub, 'history', { count: 10 });
    assert.ok(cleared.totalLines < 5, `history after erase: ${cleared.totalLines}`);
  });
});

describe('engine: a read is one moment of the screen', () => {
  let t: TestHub;
  before(() => {
    t = makeHub({});
  });
  after(() => t.close());

  it("a read's sequence and viewport belong to its text, while output flows", async () => {
    // A background writer keeps the screen moving between any two moments of the read (it starts once
    // the prompt is back, so the send returns at once).
    await runSend(t.hub, 'moment', {
      text: '(sleep 0.2; i=0; while :; do i=$((i+1)); echo "tick $i"; [ $((i % 100)) = 0 ] && sleep 0.005; done) &',
    });
    const ticks = (text: string) =>
      text
        .split('\n')
        .map((line) => /^tick (\d+)$/.exec(line)?.[1])
        .filter((n) => n !== undefined)
        .map(Number);
    const seen = new Set<number>();
    let compared = 0;
    let mismatches = 0;
    let reads = 0;
    for (; reads < 400 && compared < 40; reads++) {
      // History is what scrolled off the screen: the page's newest line is the one just above the viewport.
      const r = await runRead(t.hub, 'moment', { offset: 0, count: 5 });
      seen.add(r.sequence);
      const above = ticks(r.text).at(-1);
      const top = /^tick (\d+)\n/.exec(r.viewport)?.[1];
      if (above !== undefined && top !== undefined) {
        compared += 1;
        if (Number(top) !== above + 1) mismatches += 1;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const stop = await runSend(t.hub, 'moment', { text: 'kill $!' });
    assert.equal(stop.waitReason, 'prompt');
    assert.ok(seen.size >= 10, `output flowed during the reads (${seen.size} sequences in ${reads} reads)`);
    assert.ok(compared >= 30, `${compared} reads compared`);
    assert.equal(mismatches, 0, `${mismatches} of ${compared} reads had a viewport from another moment than their text`);
  });
});
