/**
 * Transport, point 2 of issue 3: attach during a flood. Snapshot first, then outputs with consecutive
 * sequences; once the stream settles the client's own headless replica equals the server's screen. The
 * same holds after 50 random disconnect/reconnect cycles during floods.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ATTACH_HISTORY_LINES, runSend } from '../src/index.ts';
import { type Harness, assertSameScreen, delay, seededRandom, startHarness, testSeed, until } from './helpers/transport-harness.ts';

describe('transport attach during a flood', () => {
  let h: Harness;
  before(async () => {
    // A short grace: a cycle that drops before its role frame arrives loses the rotated proof, and the seat
    // must come free again for later cycles.
    h = await startHarness({ config: { disconnectGraceMs: 150 } });
  });
  after(async () => {
    await h.close();
  });

  test('a view attached mid-flood ends equal to the server screen (controller acking, read-only not)', async () => {
    const owner = h.hub.acquire('flood');
    await owner.ensure();
    const flood = runSend(h.hub, 'flood', { text: 'yes | head -n 200000; echo flood-done' });
    await until(() => owner.generation!.sequence > 20, 'the flood to start');
    const controller = await h.connect('flood');
    const watcher = await h.connect('flood', { readonly: true });
    const result = await flood;
    assert.equal(result.waitReason, 'prompt');
    await assertSameScreen(h, 'flood', controller);
    await assertSameScreen(h, 'flood', watcher);
    assert.equal(controller.role?.role, 'controller');
    assert.equal(watcher.role?.reason, 'readonly-requested');
    // The first snapshot carries the newest rows of history; the full one follows once the view acked it.
    const snapshots = controller.frames.filter((f) => f.type === 'snapshot');
    assert.ok(
      snapshots.length <= 2,
      `the controller kept up: its first snapshot and the backfill, then only outputs (${snapshots.length})`,
    );
    if (snapshots.length === 2) assert.equal(snapshots[0]!.type === 'snapshot' && snapshots[0]!.historyLines, ATTACH_HISTORY_LINES);
    assert.ok(controller.outputs > 0, 'outputs followed the snapshot');
    assert.ok(controller.screen().tail.some((line) => line === 'flood-done'));
    controller.terminate();
    watcher.terminate();
  });

  test('50 random disconnect/reconnect cycles during floods end equal to the server screen', async () => {
    const next = seededRandom(testSeed('reconnect cycles'));
    const owner = h.hub.acquire('cycles');
    await owner.ensure();
    let floods = 0;
    let stop = false;
    // The model floods again and again while views come and go.
    const model = (async () => {
      while (!stop) {
        floods += 1;
        await runSend(h.hub, 'cycles', { text: `yes "cycle flood ${floods}" | head -n 200000` });
      }
    })();
    let resume: string | undefined;
    const roles = { controller: 0, readonly: 0, beforeSnapshot: 0 };
    for (let cycle = 0; cycle < 50; cycle++) {
      const readonly = next() < 0.2;
      const view = await h.connect('cycles', readonly ? { readonly: true } : resume ? { resume } : {});
      const waitMs = Math.floor(next() * 40);
      if (next() < 0.15) {
        // Drop the socket before the snapshot could even arrive.
        view.terminate();
        roles.beforeSnapshot += 1;
        continue;
      }
      await view.waitFor(() => view.role !== undefined, 'the role frame');
      await delay(waitMs);
      if (view.role?.role === 'controller') {
        roles.controller += 1;
        resume = view.resume;
      } else roles.readonly += 1;
      assert.deepEqual(view.violations, [], `cycle ${cycle}: no gap, duplicate or invalid frame`);
      view.terminate();
    }
    stop = true;
    await model;
    const final = await h.connect('cycles', resume ? { resume } : {});
    await assertSameScreen(h, 'cycles', final);
    console.log(`# cycles: ${JSON.stringify(roles)}, floods: ${floods}, final role: ${final.role?.role}/${final.role?.reason}`);
    assert.ok(roles.controller > 0, 'some cycles held control (acking, holding the shell)');
    assert.ok(floods >= 1);
    // Nothing was left holding the shell: a fresh send still completes.
    const echo = await runSend(h.hub, 'cycles', { text: 'echo after-cycles' });
    assert.match(echo.output, /after-cycles/);
    final.terminate();
  });
});
