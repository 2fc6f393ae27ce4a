/**
 * Transport, points 3 and 4 of issue 3: roles and heartbeats. A second view is read only and its write
 * attempt closes it with nothing reaching the PTY; the controller resumes within grace with its lease (and
 * a rotated proof); after grace the lease is abandoned and another view takes control. A controller whose
 * socket stops answering loses control within two heartbeat intervals.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HumanSettled } from '../src/index.ts';
import { ManualClock } from '../src/time.ts';
import { type FreezableProxy, type Harness, type ViewClient, startHarness, startProxy, until } from './helpers/transport-harness.ts';

async function serverText(h: Harness, ownerId: string): Promise<string> {
  return h.hub.get(ownerId)!.generation!.allText();
}

async function idle(h: Harness, ownerId: string): Promise<void> {
  await until(() => h.hub.get(ownerId)!.state().queueStatus === 'ready' && h.hub.get(ownerId)!.state().holder === null, 'an idle queue');
}

describe('transport roles, resume and grace', () => {
  let h: Harness;
  const clock = new ManualClock();
  const settled: HumanSettled[] = [];
  before(async () => {
    h = await startHarness({ clock, config: { disconnectGraceMs: 5000 } });
    h.transport.on('human-settled', (event) => settled.push(event));
  });
  after(async () => {
    await h.close();
  });

  test('a second view is read only; its write closes it with 1008 and the PTY receives nothing', async () => {
    const a = await h.connect('r');
    await a.waitFor(() => a.status !== undefined, 'status on A');
    const b = await h.connect('r');
    await b.waitFor(() => b.status !== undefined, 'status on B');
    assert.equal(a.role?.role, 'controller');
    assert.deepEqual([b.role?.role, b.role?.reason, b.role?.resume], ['readonly', 'controller-busy', undefined]);

    b.send({ v: 1, type: 'begin', generation: b.generation!, input: 'echo PWNED-BY-B\r' });
    await b.waitClosed();
    assert.equal(b.close?.code, 1008);
    assert.match(b.close?.reason ?? '', /read-only/);

    // A read-only reset is refused the same way.
    const c = await h.connect('r', { readonlyToken: true });
    await c.waitFor(() => c.status !== undefined, 'status on C');
    assert.equal(c.role?.reason, 'readonly-requested');
    c.send({ v: 1, type: 'reset', generation: c.generation!, confirmed: true });
    await c.waitClosed();
    assert.equal(c.close?.code, 1008);

    // The controller's own input, sent after, goes through; B's never appeared.
    a.type('echo ok-from-A\r');
    await a.waitFor(() => a.lease?.state === 'revoked', 'the lease to end at the prompt');
    assert.equal(a.lease?.reason, 'prompt');
    const text = await serverText(h, 'r');
    assert.match(text, /ok-from-A/);
    assert.doesNotMatch(text, /PWNED/);
    assert.equal(h.hub.get('r')!.generation!.generation, 1, 'no reset happened');
    await until(() => settled.length === 1, 'the settled event');
    assert.deepEqual(
      settled.map((e) => [e.origin, e.waitReason, e.exitCode]),
      [['idle', 'prompt', 0]],
    );
    a.terminate();
    await clock.advance(5000); // let A's grace pass
  });

  test('the controller resumes within grace with its lease; the proof rotates; after grace another view takes control', async () => {
    settled.length = 0;
    const a = await h.connect('g');
    await a.waitFor(() => a.status !== undefined, 'status');
    a.type('cat\r');
    await a.waitFor(() => a.lease?.state === 'granted', 'the lease grant');
    const leaseId = a.lease!.leaseId;
    const firstProof = a.resume!;

    a.terminate();
    await until(() => h.transport.stats().views.every((v) => v.ownerId !== 'g'), 'the server to see the drop');
    const busy = await h.connect('g');
    await busy.waitFor(() => busy.role !== undefined, 'role');
    assert.equal(busy.role?.reason, 'controller-busy', 'the seat is kept for the controller during grace');
    await clock.advance(4999);

    const back = await h.connect('g', { resume: firstProof });
    await back.waitFor(() => back.status !== undefined, 'status after resume');
    assert.deepEqual([back.role?.role, back.role?.reason], ['controller', 'resumed']);
    assert.notEqual(back.resume, firstProof, 'the proof rotates on every claim');
    const order = back.frames.map((f) => f.type);
    assert.deepEqual(order.slice(0, 4), ['snapshot', 'role', 'lease', 'status'], 'the lease is announced before the first status');
    assert.deepEqual([back.lease?.state, back.lease?.leaseId], ['granted', leaseId]);

    back.type('hello-cat\r');
    await back.waitFor(() => back.screen().tail.filter((l) => l.includes('hello-cat')).length >= 2, 'cat to echo the line');

    // The rotated-away proof no longer resumes.
    const replay = await h.connect('g', { resume: firstProof });
    await replay.waitFor(() => replay.role !== undefined, 'role');
    assert.deepEqual([replay.role?.role, replay.role?.reason], ['readonly', 'invalid-resume']);

    back.send({ v: 1, type: 'interrupt', generation: back.generation! });
    await back.waitFor(() => back.lease?.state === 'revoked', 'the lease to end after the interrupt');
    assert.equal(back.lease?.reason, 'prompt', 'Interrupt input keeps the lease until the prompt is back');
    await until(() => settled.length === 1, 'one settled event');
    assert.deepEqual([settled[0]!.origin, settled[0]!.waitReason, settled[0]!.leaseId], ['idle', 'prompt', leaseId]);

    // A lease held past grace is abandoned (SIGINT recovery) and the seat comes free.
    back.type('cat\r');
    await back.waitFor(() => back.lease?.state === 'granted' && back.lease.leaseId !== leaseId, 'a second lease');
    const second = back.lease!.leaseId;
    back.terminate();
    await until(() => h.transport.stats().views.filter((v) => v.ownerId === 'g').length === 2, 'the server to see the drop');
    await clock.advance(5000);
    await replay.waitFor(() => replay.notices.some((n) => n.code === 'controller-available'), 'the controller-available notice');
    await until(() => settled.length === 2, 'the abandoned lease to settle');
    assert.deepEqual([settled[1]!.leaseId, settled[1]!.origin, settled[1]!.waitReason], [second, 'idle', 'cancelled']);
    await idle(h, 'g');

    const next = await h.connect('g');
    await next.waitFor(() => next.status !== undefined, 'status');
    assert.deepEqual([next.role?.role, next.role?.reason], ['controller', 'granted']);
    next.type('echo new-controller\r');
    await next.waitFor(() => next.lease?.state === 'revoked', 'the lease to end');
    assert.match(await serverText(h, 'g'), /new-controller/);
    assert.equal(settled.length, 3, 'exactly one settled event per interaction');
    for (const view of [busy, replay, next]) view.terminate();
  });
});

describe('transport: a controller page that leaves on purpose', () => {
  let h: Harness;
  const clock = new ManualClock();
  before(async () => {
    h = await startHarness({ clock, config: { disconnectGraceMs: 5000 } });
  });
  after(async () => {
    await h.close();
  });

  test('holding no input, it frees the seat at once (a reload gets control back); holding a lease, it keeps grace', async () => {
    const a = await h.connect('left');
    await a.waitFor(() => a.status !== undefined, 'status');
    assert.equal(a.role?.role, 'controller');
    a.leave();
    await until(() => h.transport.stats().views.every((v) => v.ownerId !== 'left'), 'the server to see the close');
    const reloaded = await h.connect('left');
    await reloaded.waitFor(() => reloaded.status !== undefined, 'status after the reload');
    assert.deepEqual([reloaded.role?.role, reloaded.role?.reason], ['controller', 'granted'], 'no grace to wait out');

    reloaded.type('cat\r');
    await reloaded.waitFor(() => reloaded.lease?.state === 'granted', 'a lease');
    reloaded.leave();
    await until(() => h.transport.stats().views.every((v) => v.ownerId !== 'left'), 'the server to see the close');
    const other = await h.connect('left');
    await other.waitFor(() => other.role !== undefined, 'role');
    assert.deepEqual([other.role?.role, other.role?.reason], ['readonly', 'controller-busy'], 'a held lease keeps the grace');
    assert.equal(h.hub.get('left')!.state().holder, 'human', 'the program was not interrupted');
    await clock.advance(5000);
    await idle(h, 'left');
    other.terminate();
  });
});

describe('transport heartbeats', () => {
  let h: Harness;
  let proxy: FreezableProxy;
  const clock = new ManualClock();
  const interval = 1000;
  before(async () => {
    h = await startHarness({ clock, config: { heartbeatIntervalMs: interval, disconnectGraceMs: 0 } });
    proxy = await startProxy(h.port);
  });
  after(async () => {
    await proxy.close();
    await h.close();
  });

  async function beat(times: number): Promise<void> {
    for (let i = 0; i < times; i++) {
      await clock.advance(interval);
      // The pong travels in real time: wait until the server has heard it for this ping.
      const pinged = clock.now();
      await until(() => h.transport.stats().views.every((v) => v.lastSeen >= pinged), 'the pong to the ping');
    }
  }

  test('a controller whose socket stops answering loses control within two heartbeat intervals', async () => {
    const a: ViewClient = await h.connect('hb', { viaPort: proxy.port });
    await a.waitFor(() => a.status !== undefined, 'status');
    assert.equal(a.role?.role, 'controller');
    await beat(5);
    assert.equal(a.close, undefined, 'a socket that answers pings stays');
    assert.equal(h.transport.stats().views.length, 1);

    proxy.freeze();
    await clock.advance(1.5 * interval);
    assert.equal(h.transport.stats().views.length, 1, 'still the controller after one and a half silent intervals');
    await clock.advance(0.5 * interval);
    assert.equal(h.transport.stats().views.length, 0, 'dropped after two silent intervals');

    const b = await h.connect('hb');
    await b.waitFor(() => b.role !== undefined, 'role');
    assert.deepEqual([b.role?.role, b.role?.reason], ['controller', 'granted'], 'another view takes control');
    proxy.thaw();
    await a.waitClosed();
    b.terminate();
  });
});
