/**
 * Transport, point 6 of issue 3, and the rest of human input: takeover of a model send (the model gets
 * human_handoff, the person answers both prompts, the settled event fires exactly once), a model operation
 * queued behind a human shows in status frames, the human input cap, refusals with notices, and Reset
 * Terminal with confirmation.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type HumanSettled, runSend } from '../src/index.ts';
import { type Harness, delay, startHarness, until } from './helpers/transport-harness.ts';

describe('transport human input', () => {
  let h: Harness;
  const settled: HumanSettled[] = [];
  before(async () => {
    h = await startHarness({ config: { maxInputBytes: 64 } });
    h.transport.on('human-settled', (event) => settled.push(event));
  });
  after(async () => {
    await h.close();
  });

  test('takeover: the model gets human_handoff, the view answers both prompts, settled fires once', async () => {
    settled.length = 0;
    const marker = join(h.cwd, 'go');
    const script = join(h.cwd, 'two-prompts.py');
    writeFileSync(
      script,
      [
        'import os, time',
        `while not os.path.exists(${JSON.stringify(marker)}): time.sleep(0.02)`,
        "a = input('first? ')",
        "b = input('second? ')",
        "print('answers:', a, b)",
      ].join('\n'),
    );
    const view = await h.connect('take');
    await view.waitFor(() => view.status !== undefined, 'status');
    const model = runSend(h.hub, 'take', { text: `python3 ${script}` });
    await view.waitFor(() => view.status?.takeoverId != null, 'a takeover id in the status');
    assert.equal(view.status?.holder, 'model-send');
    view.send({ v: 1, type: 'takeover', generation: view.generation!, takeoverId: view.status!.takeoverId! });
    const result = await model;
    assert.equal(result.waitReason, 'human_handoff', "the model's send returns human_handoff");
    await view.waitFor(() => view.lease?.state === 'granted', 'the takeover lease');
    assert.equal(view.lease?.origin, 'takeover');
    await view.waitFor(() => view.status?.holder === 'human' && view.status.takeoverId === null, 'the status to show the human');

    writeFileSync(marker, '');
    await view.waitFor(() => view.screen().viewport.some((l) => l.includes('first? ')), 'the first prompt');
    view.type('one\r');
    await view.waitFor(() => view.screen().viewport.some((l) => l.includes('second? ')), 'the second prompt');
    view.type('two\r');
    await view.waitFor(() => view.lease?.state === 'revoked', 'the lease to end at the prompt');
    assert.equal(view.lease?.reason, 'prompt');
    assert.ok(view.screen().viewport.some((l) => l.includes('answers: one two')));
    await until(() => settled.length >= 1, 'the settled event');
    // Another, idle interaction afterwards: the takeover is still reported exactly once.
    view.type('echo after-takeover\r');
    await until(() => settled.length >= 2, 'the second settled event');
    await delay(200);
    assert.deepEqual(
      settled.map((e) => [e.ownerId, e.origin, e.waitReason, e.exitCode]),
      [
        ['take', 'takeover', 'prompt', 0],
        ['take', 'idle', 'prompt', 0],
      ],
    );
    view.terminate();
  });

  test('a model send queued behind a human shows in status frames (pendingKinds)', async () => {
    const view = await h.connect('queue');
    const watcher = await h.connect('queue', { readonly: true });
    await view.waitFor(() => view.status !== undefined, 'status');
    view.type('cat\r');
    await view.waitFor(() => view.lease?.state === 'granted', 'the lease');
    const model = runSend(h.hub, 'queue', { text: 'echo queued-model' });
    for (const v of [view, watcher]) {
      await v.waitFor(
        () => v.status?.holder === 'human' && v.status.pendingKinds.join() === 'model-send',
        'the queued model send in the status',
      );
      assert.equal(v.status?.pendingCount, 1);
    }
    view.send({ v: 1, type: 'interrupt', generation: view.generation! });
    await view.waitFor(() => view.lease?.state === 'revoked', 'the lease to end');
    const result = await model;
    assert.equal(result.waitReason, 'prompt');
    assert.match(result.output, /queued-model/);
    await watcher.waitFor(() => watcher.status?.pendingCount === 0 && watcher.status.holder === null, 'an idle status');
    view.terminate();
    watcher.terminate();
  });

  test('refusals come as notices that say what to do, and nothing reaches the PTY', async () => {
    const view = await h.connect('refuse');
    await view.waitFor(() => view.status !== undefined, 'status');
    const generation = view.generation!;
    const noticeCount = () => view.notices.length;

    let count = noticeCount();
    view.send({ v: 1, type: 'input', generation, input: 'echo no-lease\r' });
    await view.waitFor(() => noticeCount() > count, 'a notice');
    assert.equal(view.notices.at(-1)?.code, 'lease-closed');
    assert.match(view.notices.at(-1)!.message, /Type at the prompt/);

    count = noticeCount();
    view.send({ v: 1, type: 'interrupt', generation });
    await view.waitFor(() => noticeCount() > count, 'a notice');
    assert.equal(view.notices.at(-1)?.code, 'lease-closed');

    count = noticeCount();
    view.send({ v: 1, type: 'begin', generation: generation + 1, input: 'echo stale\r' });
    await view.waitFor(() => noticeCount() > count, 'a notice');
    assert.equal(view.notices.at(-1)?.code, 'stale-generation');
    assert.match(view.notices.at(-1)!.message, /reconnect/);

    count = noticeCount();
    view.send({ v: 1, type: 'begin', generation, input: `echo ${'x'.repeat(70)}\r` });
    await view.waitFor(() => noticeCount() > count, 'a notice');
    assert.equal(view.notices.at(-1)?.code, 'input-limit', 'over maxInputBytes (64)');
    assert.match(view.notices.at(-1)!.message, /smaller parts/);

    count = noticeCount();
    view.send({ v: 1, type: 'takeover', generation, takeoverId: '999' });
    await view.waitFor(() => noticeCount() > count, 'a notice');
    assert.equal(view.notices.at(-1)?.code, 'takeover-unavailable');

    // While the model holds the terminal, typing is refused with "busy" (nothing becomes a hidden answer).
    const model = runSend(h.hub, 'refuse', { text: 'sleep 0.6' });
    await view.waitFor(() => view.status?.holder === 'model-send', 'the model to hold the terminal');
    count = noticeCount();
    view.send({ v: 1, type: 'begin', generation, input: 'echo busy\r' });
    await view.waitFor(() => noticeCount() > count, 'a notice');
    assert.equal(view.notices.at(-1)?.code, 'busy');
    assert.match(view.notices.at(-1)!.message, /Take over input/);
    await model;

    const after = await h.hub.get('refuse')!.generation!.allText();
    assert.equal(
      after
        .replace(/\s+$/, '')
        .split('\n')
        .filter((l) => /no-lease|stale|busy|xxxx/.test(l)).length,
      0,
      'no refused input reached the terminal',
    );
    assert.equal(view.close, undefined, 'refusals do not close the controller');
    view.terminate();
  });

  test('Reset Terminal needs confirmed: true; it replaces the shell and closes views with 4001', async () => {
    const view = await h.connect('reset');
    await view.waitFor(() => view.status !== undefined, 'status');
    const unconfirmed = await h.connect('reset', { resume: view.resume! });
    await unconfirmed.waitFor(() => unconfirmed.role !== undefined, 'role');
    unconfirmed.sendRaw(JSON.stringify({ v: 1, type: 'reset', generation: unconfirmed.generation, confirmed: false }));
    await unconfirmed.waitClosed();
    assert.equal(unconfirmed.close?.code, 1008);
    assert.equal(h.hub.get('reset')!.generation!.generation, 1);

    const controller = await h.connect('reset', { resume: unconfirmed.resume! });
    await controller.waitFor(() => controller.status !== undefined, 'status');
    assert.equal(controller.role?.reason, 'resumed');
    controller.type('sleep 30\r');
    await controller.waitFor(() => controller.lease?.state === 'granted', 'a lease');
    controller.send({ v: 1, type: 'reset', generation: controller.generation!, confirmed: true });
    await controller.waitClosed();
    assert.equal(controller.close?.code, 4001);
    assert.equal(h.hub.get('reset')!.generation!.generation, 2, 'a new generation');
    const fresh = await h.connect('reset');
    await fresh.waitFor(() => fresh.status !== undefined, 'status');
    assert.deepEqual([fresh.generation, fresh.role?.role], [2, 'controller']);
    fresh.terminate();
  });

  test('Reset Terminal is accepted when the shell has exited: the state the element must offer it in', async () => {
    const controller = await h.connect('reset-exited');
    await controller.waitFor(() => controller.status !== undefined, 'status');
    controller.type('exit\r');
    await controller.waitFor(() => controller.status?.process.kind === 'exited', 'the shell to exit');
    assert.equal(controller.status?.queueStatus, 'exited', 'neither ready nor idle');
    controller.send({ v: 1, type: 'reset', generation: controller.generation!, confirmed: true });
    await controller.waitClosed();
    assert.equal(controller.close?.code, 4001);
    assert.equal(h.hub.get('reset-exited')!.generation!.generation, 2, 'a new generation');
  });
});

describe('transport human input: a line too long for a line-by-line reader', () => {
  test("a person's paste of a line over 4095 bytes into cat is refused whole, with a notice; short lines go", async () => {
    // The kernel keeps at most 4095 bytes of a canonical line and drops the rest as it arrives, still
    // echoing it: the person would see the whole paste, and the file would hold its first 4095 bytes.
    // The default maxInputBytes: the describe above caps input at 64 bytes.
    const h = await startHarness();
    try {
      const file = join(h.cwd, 'pasted.txt');
      const view = await h.connect('paste');
      await view.waitFor(() => view.status !== undefined, 'status');
      const started = await runSend(h.hub, 'paste', { text: `cat > ${file}` });
      assert.equal(started.waitReason, 'stdin_read');
      const long = `${'a'.repeat(5000)}\r`;
      let count = view.notices.length;
      view.type(long);
      await view.waitFor(() => view.notices.length > count, 'a notice for the first paste');
      assert.equal(view.notices.at(-1)?.code, 'line-too-long');
      assert.match(view.notices.at(-1)!.message, /5000 bytes.*4095 bytes/);
      view.type('short\r');
      await view.waitFor(() => view.lease?.state === 'granted', 'a lease for the short line');
      count = view.notices.length;
      view.type(long);
      await view.waitFor(() => view.notices.length > count, 'a notice for the paste inside the lease');
      assert.equal(view.notices.at(-1)?.code, 'line-too-long');
      view.type('\x04');
      await view.waitFor(() => view.lease?.state === 'revoked', 'cat to end at the prompt');
      assert.equal(readFileSync(file, 'utf8'), 'short\n');
      view.terminate();
    } finally {
      await h.close();
    }
  });
});
