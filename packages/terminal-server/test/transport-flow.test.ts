/**
 * Transport, point 5 of issue 3: flow control. A view that never reads while 50 MB stream: the acking
 * controller keeps up, the slow view's send queue stays bounded (server memory is printed), and the slow
 * view is resynced from a snapshot once it reads again. Also: an acking controller that stops acking
 * holds the shell's output after a bounded window, and releases it when it acks again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ManualClock, SEND_QUEUE_BYTES, runSend } from '../src/index.ts';
import { FLOW_WINDOW_CHARS } from '../src/protocol/index.ts';
import { type FreezableProxy, type Harness, assertSameScreen, delay, startHarness, startProxy, until } from './helpers/transport-harness.ts';

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

  test('a view that never reads while 50 MB stream: bounded memory, the controller keeps up, the slow view is resynced', async () => {
    const owner = h.hub.acquire('fifty');
    await owner.ensure();
    const controller = await h.connect('fifty');
    const slow = await h.connect('fifty', { viaPort: proxy.port, readonly: true });
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
    assert.equal(controller.snapshots, 1, 'the controller kept up: no resync');
    assert.ok(controller.outputChars >= 52_428_800, 'the controller saw every byte');

    proxy.thaw();
    await slow.waitFor(() => slow.notices.some((n) => n.code === 'resynced'), 'the resync notice', 120_000);
    await assertSameScreen(h, 'fifty', slow);
    assert.ok(slow.snapshots >= 2, 'the slow view got a fresh snapshot');
    assert.ok(slow.screen().tail.includes('fifty-done'));
    controller.terminate();
    slow.terminate();
  });

  test('an acking controller that stops acking pauses the shell after a bounded window, and releases it', async () => {
    const owner = h.hub.acquire('window');
    await owner.ensure();
    const controller = await h.connect('window');
    await controller.waitFor(() => controller.status !== undefined && controller.settled, 'status and a parsed snapshot');
    controller.ackNow(); // acking mode starts with the first ack
    controller.acksPaused = true;
    const flood = runSend(h.hub, 'window', { text: 'yes "window flood: a line long enough to keep the per-line cost of the emulator small, 0123456789" | head -c 3000000; echo window-done' });
    const held = () => h.transport.stats().views.find((v) => v.ownerId === 'window')!;
    await until(() => held().holding, 'the transport to hold the shell');
    const frozenAt = owner.generation!.sequence;
    const unacked = held().unackedChars;
    assert.ok(unacked > FLOW_WINDOW_CHARS, 'held past the window');
    assert.ok(unacked < FLOW_WINDOW_CHARS + 262_144, `the window overshoots by at most a chunk (${unacked})`);
    await delay(300);
    // Reading stopped (a chunk already in flight may still land).
    assert.ok(owner.generation!.sequence <= frozenAt + 1, 'no output is read while held');
    controller.acksPaused = false;
    controller.ackNow();
    const result = await flood;
    assert.equal(result.waitReason, 'prompt');
    await assertSameScreen(h, 'window', controller);
    assert.equal(held().holding, false);
    controller.terminate();
    // A closed controller releases its hold: a flood completes with nobody attached.
    const alone = await runSend(h.hub, 'window', { text: 'yes | head -n 50000; echo alone-done' });
    assert.equal(alone.waitReason, 'prompt');
  });
});
