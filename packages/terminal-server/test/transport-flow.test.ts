/**
 * Transport, point 5 of issue 3: flow control. A view that never reads (and never acks) while 50 MB stream:
 * its send queue stays bounded (server memory is printed), the controller ends equal to the server, and the
 * slow view is resynced from a snapshot once it reads again. A view that acks but stops (a page that cannot
 * keep up): it never slows the shell, at most a window of output is in flight to it, it skips the rest, and
 * when it acks again it catches up from the current screen and then gets the whole history back. A view's
 * first snapshot carries the newest ATTACH_HISTORY_LINES of history and the full one follows: at once after
 * its ack, or after quiet output for a view that does not ack.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ATTACH_HISTORY_LINES, SEND_QUEUE_BYTES, runSend, type OutputEvent } from '../src/index.ts';
import { ManualClock } from '../src/time.ts';
import { FLOW_WINDOW_CHARS, type ServerFrame, type SnapshotFrame } from '../src/protocol/index.ts';
import { type FreezableProxy, type Harness, assertSameScreen, startHarness, startProxy } from './helpers/transport-harness.ts';

function mb(bytes: number): string {
  return `${(bytes / 1048576).toFixed(1)} MiB`;
}

describe('transport flow control', () => {
  let h: Harness;
  let proxy: FreezableProxy;
  before(async () => {
    // A manual clock: no heartbeat runs, so the frozen view is kept (a never-reading peer is otherwise
    // dropped after two silent intervals, which is the other bound on its memory).
    h = await startHarness({ clock: new ManualClock(), config: { scrollbackLines: 1000, operationTimeoutMs: 600_000 } });
    proxy = await startProxy(h.port);
  });
  after(async () => {
    await proxy.close();
    await h.close();
  });

  /** A controller view that has parsed and acked its first snapshot (pacing starts with the first ack), then stops acking. */
  async function viewThatStoppedAcking(ownerId: string) {
    const owner = h.hub.acquire(ownerId);
    await owner.ensure();
    const view = await h.connect(ownerId);
    await view.waitFor(() => view.status !== undefined && view.settled, 'status and a parsed snapshot');
    view.ackNow();
    view.acksPaused = true;
    const stats = () => h.transport.stats().views.find((v) => v.ownerId === ownerId)!;
    return { owner, view, stats };
  }

  /** A controller view that stopped acking, skipping a background flood that loops `command` for 8 s. */
  async function viewSkippingAFlood(ownerId: string, command: string) {
    const { owner, view, stats } = await viewThatStoppedAcking(ownerId);
    // It starts once the prompt is back (a send waits for quiet output before it calls the prompt back).
    const started = await runSend(h.hub, ownerId, { text: `(sleep 0.3; exec timeout 8 bash -c 'while :; do ${command}; done') &` });
    assert.equal(started.waitReason, 'prompt');
    await view.waitFor(() => stats().skippedChars > 0, 'the view skipping the flood');
    return { owner, view, stats };
  }

  test('a view that never reads while 50 MB stream: bounded memory, the controller ends equal to the server, the slow view is resynced', async () => {
    const owner = h.hub.acquire('fifty');
    await owner.ensure();
    const controller = await h.connect('fifty');
    const slow = await h.connect('fifty', { viaPort: proxy.port, readonly: true, ack: false });
    await slow.waitFor(() => slow.status !== undefined, 'status on the slow view');
    await controller.waitFor(() => controller.status !== undefined, 'status on the controller');
    proxy.freeze();

    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakHeap = before.heapUsed + before.external + before.arrayBuffers;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peakRss = Math.max(peakRss, m.rss);
      peakHeap = Math.max(peakHeap, m.heapUsed + m.external + m.arrayBuffers);
    }, 100);
    const line = 'the quick brown fox jumps over the lazy dog 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ';
    const result = await runSend(h.hub, 'fifty', { text: `yes '${line}' | head -c 52428800; echo; echo fifty-done` });
    clearInterval(sampler);
    assert.equal(result.waitReason, 'prompt', 'the flood finished although one view never read');

    const slowStats = h.transport.stats().views.find((v) => v.role === 'readonly')!;
    console.log(
      `# 50 MiB flood: slow view peak send queue ${mb(slowStats.peakBufferedAmount)} (phase ${slowStats.phase}); ` +
        `process peak rss ${mb(peakRss)} (start ${mb(before.rss)}), peak heap+external ${mb(peakHeap)} ` +
        `(start ${mb(before.heapUsed + before.external + before.arrayBuffers)}); controller got ${mb(controller.outputChars)} in ${controller.outputs} outputs`,
    );
    assert.equal(slowStats.phase, 'behind', 'the slow view stopped getting output');
    // Its queue never passes the limit plus its last snapshot (and one frame).
    assert.ok(
      slowStats.peakBufferedAmount <= SEND_QUEUE_BYTES + h.config.scrollbackMaxBytes + 65_536,
      `slow view queue ${slowStats.peakBufferedAmount} bytes stays bounded`,
    );

    await assertSameScreen(h, 'fifty', controller);
    const controllerStats = h.transport.stats().views.find((v) => v.role === 'controller')!;
    console.log(`# controller: ${controllerStats.catchUps} catch-ups, ${mb(controllerStats.skippedChars)} skipped`);
    // Its replica parses in this same process, slower than the mirror: it skipped ahead where it fell behind.
    assert.equal(controllerStats.partial, false, 'and got its full history back');

    proxy.thaw();
    await slow.waitFor(() => slow.notices.some((n) => n.code === 'resynced'), 'the resync notice', 120_000);
    await assertSameScreen(h, 'fifty', slow);
    assert.ok(slow.snapshots >= 2, 'the slow view got a fresh snapshot');
    assert.ok(slow.screen().tail.includes('fifty-done'));
    controller.terminate();
    slow.terminate();
  });

  test("a view that stops acking never slows the shell: it holds a window, skips the rest, gets the prompt's screen, then its history back", async () => {
    const { view: controller, stats } = await viewThatStoppedAcking('window');
    const lines = 30_000;
    const charsBefore = controller.outputChars;
    const snapshotsBefore = controller.snapshots;
    const flood = await runSend(h.hub, 'window', {
      text: `seq -f 'window flood line %g of a flood the view cannot keep up with' 1 ${lines}; echo window-done`,
    });
    assert.equal(flood.waitReason, 'prompt', 'the flood finished although the view stopped acking');
    const held = stats();
    assert.ok(held.unackedChars <= FLOW_WINDOW_CHARS + 65_536, `at most a window (and one chunk) in flight (${held.unackedChars})`);
    assert.ok(held.skippedChars > 1_000_000, `the rest was skipped (${held.skippedChars})`);
    // The prompt back is awaited output: its screen comes without an ack.
    await controller.waitFor(() => controller.snapshots > snapshotsBefore, 'a catch-up snapshot');
    const caughtUp = controller.frames.filter((f) => f.type === 'snapshot').at(snapshotsBefore);
    assert.ok(caughtUp && caughtUp.type === 'snapshot' && caughtUp.historyLines === 0, 'the catch-up carries the screen alone');
    assert.match(caughtUp.replay, /window-done/);
    const sent = controller.outputChars - charsBefore;
    assert.ok(sent <= FLOW_WINDOW_CHARS + 65_536, `the skipped output was not sent (${sent} characters were)`);
    assert.ok(!controller.notices.some((n) => n.code === 'resynced'), 'a catch-up is silent');

    // Once the page acks and output is quiet the full snapshot follows: the replica equals the server.
    controller.acksPaused = false;
    controller.ackNow();
    await assertSameScreen(h, 'window', controller);
    const last = controller.frames.filter((f) => f.type === 'snapshot').at(-1);
    assert.ok(
      last && last.type === 'snapshot' && last.historyLines > 900,
      `the history came back (${last?.type === 'snapshot' ? last.historyLines : '?'} lines)`,
    );
    assert.ok(controller.screen().tail.some((line) => line.includes(`window flood line ${lines} of`)));
    assert.equal(stats().holding, false);
    assert.equal(stats().catchUps, 1);
    controller.terminate();
  });

  test('while a flood goes on, a view a catch-up behind gets a screen after each ack (at the flood pace) and no output; once output slows, output follows again', async () => {
    const { view, stats } = await viewSkippingAFlood('screens', 'seq -f "screens flood line %g" 1 5000');

    const framesAfter = (index: number) => view.frames.slice(index).filter((f) => f.type === 'snapshot' || f.type === 'output');
    // Ack like a page: once everything received is parsed.
    const nextSnapshot = async (label: string): Promise<number> => {
      await view.waitFor(() => view.settled, 'everything received parsed');
      const count = view.snapshots;
      const from = view.frames.length;
      view.ackNow();
      await view.waitFor(() => view.snapshots > count, label);
      return view.frames.findIndex((f, i) => i >= from && f.type === 'snapshot');
    };
    const first = await nextSnapshot('a catch-up');
    assert.equal((view.frames[first] as SnapshotFrame).historyLines, 0, 'a catch-up: the screen alone');
    const skippedBefore = stats().skippedChars;
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.ok(stats().heldChars + stats().skippedChars - skippedBefore > 0, 'the flood went on');
    assert.deepEqual(framesAfter(first + 1), [], 'nothing follows a catch-up before its ack although the flood goes on');
    const second = await nextSnapshot('the next catch-up');
    const between = framesAfter(first + 1);
    assert.equal(between[0], view.frames[second], 'the ack brought another screen, not the output of the meantime');
    assert.equal((view.frames[second] as SnapshotFrame).historyLines, 0);

    // The flood ends: the view acks again, catches up and gets its history back.
    view.acksPaused = false;
    view.ackNow();
    await assertSameScreen(h, 'screens', view);

    // A catch-up acked after a little output: that output follows as output (cheaper than another screen),
    // the prompt that ends it too. (The burst's own prompt brought the catch-up, without an ack.)
    view.acksPaused = true;
    const catchUps = stats().catchUps;
    const skipped = stats().skippedChars;
    const beforeBurst = view.frames.length;
    await runSend(h.hub, 'screens', { text: "seq -f 'screens burst line %g' 1 20000" });
    await view.waitFor(
      () => stats().skippedChars > skipped && view.frames.slice(beforeBurst).some((f) => f.type === 'snapshot'),
      "the burst skipped, and its prompt's screen",
    );
    assert.equal(stats().catchUps, catchUps + 1);
    const caughtUp = view.frames.findIndex((f, i) => i >= beforeBurst && f.type === 'snapshot');
    await runSend(h.hub, 'screens', { text: 'echo screens-tail-line' });
    await view.waitFor(() => view.settled, 'the catch-up parsed');
    view.ackNow();
    await view.waitFor(
      () => view.frames.slice(caughtUp + 1).some((f) => f.type === 'output' && f.data.includes('screens-tail-line')),
      'the little output as output',
    );
    assert.equal(stats().catchUps, catchUps + 1, 'no second catch-up');
    view.acksPaused = false;
    view.ackNow();
    await assertSameScreen(h, 'screens', view);
    assert.deepEqual(view.violations, []);
    view.terminate();
  });

  test('a key typed into a flood: the screen with its echo goes out as soon as the server reads the echo, without waiting for the ack of the catch-up in flight', async () => {
    // Digits only: a typed letter in the output is its echo.
    const { owner, view } = await viewSkippingAFlood('typed', 'seq 1 20000');
    await view.waitFor(() => view.settled, 'everything received parsed');
    const count = view.snapshots;
    view.ackNow();
    await view.waitFor(() => view.snapshots > count, 'a catch-up');
    // That catch-up stays unacked: before this change nothing more came until its ack.
    await new Promise((resolve) => setTimeout(resolve, 150));
    assert.equal(view.snapshots, count + 1, 'nothing follows a catch-up before its ack');
    for (const key of ['q', 'w', 'z']) {
      let echoSequence = Infinity;
      const onOutput = (event: { sequence: number; data: string }) => {
        if (echoSequence === Infinity && event.data.includes(key)) echoSequence = event.sequence;
      };
      owner.on('output', onOutput);
      const before = view.snapshots;
      view.type(key);
      await view.waitFor(() => echoSequence !== Infinity, `the server reading the echo of ${key}`);
      await view.waitFor(() => view.snapshots > before, `a screen after the echo of ${key}, unacked`);
      owner.off('output', onOutput);
      const latest = view.frames.filter((f): f is SnapshotFrame => f.type === 'snapshot').at(-1)!;
      assert.ok(
        latest.sequence >= echoSequence,
        `the screen (sequence ${latest.sequence}) is at least as new as the echo (${echoSequence})`,
      );
      assert.equal(latest.historyLines, 0, 'a catch-up: the screen alone');
    }
    // Keys that echo nothing printable (Backspace) send no extra screen.
    const quiet = view.snapshots;
    view.type('\x7f');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(view.snapshots, quiet, 'no screen for a key without a printable echo');
    // Enter draws a new prompt (qw: command not found): awaited output, a screen without an ack.
    view.type('\r');
    await view.waitFor(() => view.snapshots > quiet, 'the screen of the new prompt, unacked');
    view.acksPaused = false;
    view.ackNow();
    await runSend(h.hub, 'typed', { text: 'kill %1 2>/dev/null; true' });
    view.terminate();
  });

  test('while a flood goes on, a page that acks each screen at once gets at most ten screens a second', async () => {
    const { view, stats } = await viewSkippingAFlood('paced', 'seq 1 20000');
    await view.waitFor(() => view.settled, 'everything received parsed');
    // Acks as soon as each screen is parsed, as fast as this process parses them: without the pace the
    // server took the next screen on every ack (dozens a second).
    view.acksPaused = false;
    view.ackNow();
    await view.waitFor(() => stats().catchUps > 0, 'catch-ups');
    const from = stats();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const to = stats();
    const count = to.catchUps - from.catchUps;
    const seconds = (performance.now() - started) / 1000;
    // The flood reached the view in the window, as screens or, where the view kept up for a while (a
    // loaded machine slows the flood more than the view), as live output.
    // (Dropped output alone does not count: a view left skipping without screens is what this catches.)
    const reached = count + (to.outputsSent - from.outputsSent);
    assert.ok(reached > 0, `the flood went on (screens ${count}, outputs ${to.outputsSent - from.outputsSent})`);
    // One per FLOOD_SCREEN_INTERVAL_MS at most, and the first may come at once: a slow machine gets fewer.
    assert.ok(count <= Math.floor(seconds * 10) + 1, `${count} screens in ${seconds.toFixed(2)} s`);
    await runSend(h.hub, 'paced', { text: 'kill %1 2>/dev/null; true' });
    await assertSameScreen(h, 'paced', view);
    assert.deepEqual(view.violations, []);
    view.terminate();
  });

  test('a key whose echo is held behind a full window, when that output is dropped for a flood: its screen goes out at once, without an ack', async () => {
    const { owner, view, stats } = await viewThatStoppedAcking('held-echo');
    // Digits only: a window's worth and a little more (held), then, once the key is typed, a flood that
    // overflows what is held. Each starts when the test creates its file (after the send is back).
    const fill = FLOW_WINDOW_CHARS + 4_000;
    const dir = mkdtempSync(join(tmpdir(), 'held-echo-'));
    const wait = (name: string) => `while [ ! -e ${dir}/${name} ]; do sleep 0.02; done`;
    const job = `(${wait('fill')}; head -c ${fill} /dev/zero | tr '\\0' 1; echo; ${wait('flood')}; exec timeout 8 seq 1 400000) &`;
    const started = await runSend(h.hub, 'held-echo', { text: job });
    assert.equal(started.waitReason, 'prompt');
    writeFileSync(join(dir, 'fill'), '');
    await view.waitFor(() => stats().heldChars > 0, 'output held behind the full window');
    assert.equal(stats().skippedChars, 0, 'nothing dropped yet');
    let echoSequence = Infinity;
    const onOutput = (event: { sequence: number; data: string }) => {
      if (echoSequence === Infinity && event.data.includes('q')) echoSequence = event.sequence;
    };
    owner.on('output', onOutput);
    const before = view.snapshots;
    view.type('q');
    await view.waitFor(() => echoSequence !== Infinity, 'the server reading the echo');
    assert.ok(stats().heldChars > 0 && stats().skippedChars === 0 && view.snapshots === before, 'the echo is held');
    writeFileSync(join(dir, 'flood'), '');
    await view.waitFor(() => stats().skippedChars > 0, 'the flood dropping the held output');
    // Before this change the held echo was dropped with the rest and showed only after the next ack.
    await view.waitFor(() => view.snapshots > before, 'a screen after the dropped echo, unacked');
    owner.off('output', onOutput);
    const latest = view.frames.filter((f): f is SnapshotFrame => f.type === 'snapshot').at(-1)!;
    assert.ok(latest.sequence >= echoSequence, `the screen (sequence ${latest.sequence}) is at least as new as the echo (${echoSequence})`);
    assert.equal(latest.historyLines, 0, 'a catch-up: the screen alone');
    view.type('\r'); // the typed line ends (q: command not found), and with it the person's turn
    view.acksPaused = false;
    view.ackNow();
    await runSend(h.hub, 'held-echo', { text: 'kill %1 2>/dev/null; true' });
    await assertSameScreen(h, 'held-echo', view);
    rmSync(dir, { recursive: true, force: true });
    view.terminate();
  });

  test("a flood that ends at the prompt: the prompt's screen goes out at once, without an ack", async () => {
    const { owner, view, stats } = await viewThatStoppedAcking('prompt-back');
    let promptSequence = Infinity;
    const onOutput = (event: OutputEvent) => {
      if (event.prompt) promptSequence = event.sequence;
    };
    owner.on('output', onOutput);
    const flood = await runSend(h.hub, 'prompt-back', { text: 'seq 1 300000' });
    assert.equal(flood.waitReason, 'prompt');
    assert.ok(stats().skippedChars > 0, 'the view skipped part of the flood');
    assert.notEqual(promptSequence, Infinity, "the prompt's output is marked");
    // Before this change the view waited for the ack of its last catch-up, which never comes here.
    const snapshots = () => view.frames.filter((f): f is SnapshotFrame => f.type === 'snapshot');
    await view.waitFor(() => snapshots().at(-1)!.sequence >= promptSequence, 'a screen with the prompt, unacked');
    owner.off('output', onOutput);
    assert.match(snapshots().at(-1)!.replay, /300000/);
    view.acksPaused = false;
    view.ackNow();
    await assertSameScreen(h, 'prompt-back', view);
    view.terminate();
  });

  test('a first snapshot carries the newest rows of history; the whole history follows after its ack, or after quiet for a view that does not ack', async () => {
    const owner = h.hub.acquire('backfill');
    await owner.ensure();
    const filled = await runSend(h.hub, 'backfill', { text: "seq -f 'backfill row %g' 1 3000; echo backfill-done" });
    assert.equal(filled.waitReason, 'prompt');
    const firstSnapshots = (client: { frames: ServerFrame[] }) => client.frames.filter((f): f is SnapshotFrame => f.type === 'snapshot');

    const acking = await h.connect('backfill');
    await acking.waitFor(() => acking.snapshots >= 2, 'the full snapshot after the ack');
    const [first, full] = firstSnapshots(acking);
    assert.equal(first!.historyLines, ATTACH_HISTORY_LINES, 'the first snapshot has the newest rows alone');
    assert.equal(first!.truncated, true);
    assert.ok(
      first!.replay.includes('backfill row 3000') && !first!.replay.includes('backfill row 2000\r'),
      'the newest rows, not the oldest',
    );
    assert.ok(full!.historyLines >= 990, `then the whole history (${full!.historyLines} lines)`);
    assert.ok(full!.replay.length > first!.replay.length);
    await assertSameScreen(h, 'backfill', acking);

    // A client that never acks gets the rest once output has been quiet (SETTLE_MS).
    const silent = await h.connect('backfill', { ack: false, readonly: true });
    await silent.waitFor(() => silent.snapshots >= 2, 'the full snapshot after quiet output');
    const [silentFirst, silentFull] = firstSnapshots(silent);
    assert.equal(silentFirst!.historyLines, ATTACH_HISTORY_LINES);
    assert.ok(silentFull!.historyLines >= 990);
    await assertSameScreen(h, 'backfill', silent);

    // A short history fits the first snapshot: nothing follows.
    const small = h.hub.acquire('backfill-small');
    await small.ensure();
    await runSend(h.hub, 'backfill-small', { text: 'seq 1 100' });
    const single = await h.connect('backfill-small');
    await assertSameScreen(h, 'backfill-small', single);
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(single.snapshots, 1, 'one snapshot when the history fits');
    for (const client of [acking, silent, single]) {
      assert.deepEqual(client.violations, []);
      client.terminate();
    }
  });
});
