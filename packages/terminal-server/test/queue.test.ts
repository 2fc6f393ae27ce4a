/**
 * The queue on its own: pure, with an injected clock, so every rule is checked deterministically.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { QueueError } from '../src/index.ts';
import { flushMicrotasks, ManualClock } from '../src/time.ts';
import { OperationQueue } from '../src/queue/queue.ts';
import { type OperationView, GrantRefused } from '../src/queue/operation.ts';

function setup(
  options: { maxQueued?: number; grant?: (op: OperationView) => Promise<void>; interrupt?: (op: OperationView) => Promise<void> } = {},
) {
  const clock = new ManualClock();
  const log: string[] = [];
  const queue = new OperationQueue({
    maxQueuedOperations: options.maxQueued ?? 8,
    operationTimeoutMs: 1000,
    interruptTimeoutMs: 500,
    clock,
    hooks: {
      grant: async (op) => {
        log.push(`grant ${op.kind}#${op.id}`);
        await options.grant?.(op);
      },
      interrupt: async (op) => {
        log.push(`interrupt #${op.id}`);
        await options.interrupt?.(op);
      },
      changed: () => undefined,
    },
  });
  const prompt = () => queue.observe('prompt', queue.currentDispatch);
  return { clock, log, queue, prompt };
}

describe('queue', () => {
  it('grants strictly in acceptance order, one at a time', async () => {
    const { queue, log, prompt } = setup();
    const a = queue.enqueue('model-send');
    const b = queue.enqueue('signal');
    const c = queue.enqueue('model-send');
    await flushMicrotasks();
    assert.deepEqual(log, ['grant model-send#1']);
    assert.equal(queue.pendingCount, 2);
    prompt();
    await flushMicrotasks();
    assert.deepEqual(log, ['grant model-send#1', 'grant signal#2']);
    prompt();
    await flushMicrotasks();
    prompt();
    assert.deepEqual(
      (await Promise.all([a.result, b.result, c.result])).map((r) => r.waitReason),
      ['prompt', 'prompt', 'prompt'],
    );
    assert.equal(queue.status, 'ready');
  });

  it('ignores an observation made before the latest write (stale dispatch)', async () => {
    const { queue } = setup();
    const a = queue.enqueue('model-send');
    await flushMicrotasks();
    assert.equal(queue.observe('prompt', queue.currentDispatch - 1), false);
    assert.equal(queue.observe('prompt', queue.currentDispatch), true);
    assert.equal((await a.result).waitReason, 'prompt');
  });

  it('stdin_read completes model sends and signals but never a human lease', async () => {
    const { queue } = setup();
    const lease = queue.beginHuman();
    await flushMicrotasks();
    assert.equal(queue.observe('stdin_read', queue.currentDispatch), false);
    assert.equal(queue.observe('prompt', queue.currentDispatch), true);
    assert.equal((await lease.result).waitReason, 'prompt');
    const send = queue.enqueue('model-send');
    await flushMicrotasks();
    assert.equal(queue.observe('stdin_read', queue.currentDispatch, { command: 'cat' }), true);
    assert.deepEqual(await send.result, { waitReason: 'stdin_read', detail: { command: 'cat' }, queueTimeMs: 0 });
  });

  it('a deadline starts recovery: SIGINT, then the prompt settles it as timeout', async () => {
    const { queue, clock, log, prompt } = setup();
    const a = queue.enqueue('model-send');
    await flushMicrotasks();
    await clock.advance(999);
    assert.deepEqual(log, ['grant model-send#1']);
    await clock.advance(1);
    assert.deepEqual(log, ['grant model-send#1', 'interrupt #1']);
    assert.equal(queue.takeoverId, undefined);
    prompt();
    assert.equal((await a.result).waitReason, 'timeout');
    assert.equal(queue.status, 'ready');
    assert.equal(clock.pendingTimers, 0);
  });

  it('a program that took the SIGINT and reads input again ends a recovery too, with its wait', async () => {
    let releaseInterrupt!: () => void;
    const { queue, clock, log } = setup({ interrupt: () => new Promise((resolve) => (releaseInterrupt = resolve)) });
    const a = queue.enqueue('model-send');
    await flushMicrotasks();
    await clock.advance(1000);
    assert.deepEqual(log, ['grant model-send#1', 'interrupt #1']);
    // A wait or a prompt seen while the SIGINT is on its way may be one from before it (the prompt of a
    // command that ended just then, which bash follows with a fresh one for the SIGINT).
    assert.equal(queue.observe('stdin_read', queue.currentDispatch, { command: 'python3' }), false);
    assert.equal(queue.observe('prompt', queue.currentDispatch), false);
    releaseInterrupt();
    await flushMicrotasks();
    assert.equal(queue.observe('stdin_read', queue.currentDispatch, { command: 'python3' }), true);
    assert.deepEqual(await a.result, { waitReason: 'timeout', detail: { command: 'python3' }, recoveredAt: 'stdin_read', queueTimeMs: 0 });
    assert.equal(queue.status, 'ready');
    assert.equal(clock.pendingTimers, 0);
    // A person's lease is never ended by a wait, unless abandoned and recovering.
    const lease = queue.beginHuman();
    await lease.granted;
    assert.equal(queue.observe('stdin_read', queue.currentDispatch), false);
    lease.abandon();
    await flushMicrotasks();
    releaseInterrupt();
    await flushMicrotasks();
    assert.equal(queue.observe('stdin_read', queue.currentDispatch), true);
    assert.equal((await lease.result).recoveredAt, 'stdin_read');
  });

  it('a send that asks for its own deadline keeps running past operationTimeoutMs until that one', async () => {
    const { queue, clock, log, prompt } = setup();
    const a = queue.enqueue('model-send', undefined, { timeoutMs: 5000 });
    await flushMicrotasks();
    await clock.advance(4999);
    assert.deepEqual(log, ['grant model-send#1'], 'no SIGINT at the default deadline');
    await clock.advance(1);
    assert.deepEqual(log, ['grant model-send#1', 'interrupt #1']);
    prompt();
    assert.equal((await a.result).waitReason, 'timeout');
    const b = queue.enqueue('model-send');
    await flushMicrotasks();
    await clock.advance(1000);
    assert.deepEqual(log.slice(2), ['grant model-send#2', 'interrupt #2'], 'the next send has the default again');
    prompt();
    assert.equal((await b.result).waitReason, 'timeout');
  });

  it('a failed recovery blocks the queue; pending mutations are refused in order; the earliest reset runs', async () => {
    let releaseReset!: () => void;
    const resetGate = new Promise<void>((r) => (releaseReset = r));
    const { queue, clock, log } = setup({ grant: (op) => (op.kind === 'reset' ? resetGate : Promise.resolve()) });
    const a = queue.enqueue('model-send');
    const b = queue.enqueue('model-send');
    const r1 = queue.enqueue('reset');
    const c = queue.enqueue('signal');
    const r2 = queue.enqueue('reset');
    await flushMicrotasks();
    await clock.advance(1000 + 500);
    await assert.rejects(a.result, /recovery failed after timeout.*queue is blocked until reset/);
    await assert.rejects(b.result, /terminal queue is blocked until reset/);
    await assert.rejects(c.result, /terminal queue is blocked until reset/);
    assert.equal(queue.status, 'blocked');
    assert.throws(
      () => queue.enqueue('model-send'),
      (e: unknown) => e instanceof QueueError && e.code === 'blocked',
    );
    releaseReset();
    assert.equal((await r1.result).waitReason, 'prompt');
    assert.equal((await r2.result).waitReason, 'prompt');
    assert.deepEqual(log, ['grant model-send#1', 'interrupt #1', 'grant reset#3', 'grant reset#5']);
    assert.equal(queue.status, 'ready');
  });

  it('SIGINT waits for a write in flight, even past the deadline', async () => {
    let release!: () => void;
    const { queue, clock, log, prompt } = setup({ grant: () => new Promise<void>((r) => (release = r)) });
    const a = queue.enqueue('model-send');
    await flushMicrotasks();
    await clock.advance(1500);
    assert.deepEqual(log, ['grant model-send#1']);
    release();
    await flushMicrotasks();
    assert.deepEqual(log, ['grant model-send#1', 'interrupt #1']);
    prompt();
    assert.equal((await a.result).waitReason, 'timeout');
  });

  it('cancel of a queued operation removes it; cancel of the active one recovers as cancelled', async () => {
    const { queue, prompt } = setup();
    const controller = new AbortController();
    const a = queue.enqueue('model-send', undefined, { signal: controller.signal });
    const b = queue.enqueue('model-send');
    b.cancel();
    assert.equal((await b.result).waitReason, 'cancelled');
    assert.equal(queue.pendingCount, 0);
    await flushMicrotasks();
    controller.abort();
    await flushMicrotasks();
    prompt();
    assert.equal((await a.result).waitReason, 'cancelled');
  });

  it('takeover turns the active send into a human lease in place; followers wait; no signal', async () => {
    const { queue, clock, log, prompt } = setup();
    const send = queue.enqueue('model-send');
    const follower = queue.enqueue('model-send');
    await flushMicrotasks();
    const id = queue.takeoverId!;
    const lease = queue.takeover(id);
    assert.deepEqual(await send.result, { waitReason: 'human_handoff', queueTimeMs: 0 });
    assert.equal(queue.holder?.kind, 'human');
    assert.equal(queue.takeoverId, undefined);
    await clock.advance(5000); // the model's deadline is gone
    assert.deepEqual(log, ['grant model-send#1']);
    await lease.input(() => undefined);
    prompt();
    assert.equal((await lease.result).waitReason, 'prompt');
    await flushMicrotasks();
    assert.deepEqual(log, ['grant model-send#1', 'grant model-send#2']);
    prompt();
    assert.equal((await follower.result).waitReason, 'prompt');
    assert.throws(() => queue.takeover(id), /takeover is not available/);
  });

  it('after takeover, the program reaching its prompt first ends the lease and drops later answers', async () => {
    const { queue } = setup();
    queue.enqueue('model-send');
    await flushMicrotasks();
    const dispatch = queue.currentDispatch;
    const lease = queue.takeover(queue.takeoverId!);
    queue.observe('prompt', dispatch);
    assert.equal((await lease.result).waitReason, 'prompt');
    await assert.rejects(
      lease.input(() => assert.fail('a stale answer reached the terminal')),
      /human lease is closed/,
    );
  });

  it('human begin is refused unless idle; interrupt keeps the lease', async () => {
    const { queue, log, prompt } = setup();
    const send = queue.enqueue('model-send');
    assert.throws(
      () => queue.beginHuman(),
      (e: unknown) => e instanceof QueueError && e.code === 'busy',
    );
    await flushMicrotasks();
    prompt();
    await send.result;
    const lease = queue.beginHuman();
    await lease.granted;
    await lease.interrupt();
    assert.equal(log.at(-1), 'interrupt #2');
    assert.equal(lease.closed, false);
    prompt();
    assert.equal((await lease.result).waitReason, 'prompt');
  });

  it('an abandoned lease recovers like a cancel', async () => {
    const { queue, clock } = setup();
    const lease = queue.beginHuman();
    await lease.granted;
    lease.abandon();
    await flushMicrotasks();
    await clock.advance(500);
    await assert.rejects(lease.result, /recovery failed/);
    assert.equal(queue.status, 'blocked');
  });

  it('session exit settles active and pending operations, but a queued reset still runs', async () => {
    const { queue, log } = setup();
    const a = queue.enqueue('model-send');
    const b = queue.enqueue('signal');
    const r = queue.enqueue('reset');
    await flushMicrotasks();
    queue.exited();
    assert.equal((await a.result).waitReason, 'session_exit');
    assert.equal((await b.result).waitReason, 'session_exit');
    assert.equal((await r.result).waitReason, 'prompt');
    assert.deepEqual(log, ['grant model-send#1', 'grant reset#3']);
    assert.equal(queue.status, 'ready');
  });

  it('an exited queue refuses mutations but accepts a reset', async () => {
    const { queue } = setup();
    queue.exited();
    assert.equal(queue.status, 'exited');
    assert.throws(() => queue.enqueue('model-send'), /terminal is exited/);
    assert.equal((await queue.enqueue('reset').result).waitReason, 'prompt');
  });

  it('maxQueuedOperations counts the active operation', () => {
    const { queue } = setup({ maxQueued: 2 });
    queue.enqueue('model-send');
    queue.enqueue('model-send');
    assert.throws(() => queue.enqueue('signal'), /terminal queue is full/);
  });

  it('a refused grant fails only its own operation', async () => {
    const { queue, prompt } = setup({
      grant: async (op) => {
        if (op.kind === 'signal') throw new GrantRefused('signal-refused', 'refused');
      },
    });
    const s = queue.enqueue('signal');
    const a = queue.enqueue('model-send');
    await assert.rejects(s.result, /refused/);
    await flushMicrotasks();
    prompt();
    assert.equal((await a.result).waitReason, 'prompt');
    assert.equal(queue.status, 'ready');
  });

  it('dispose cancels everything and leaves no timer', async () => {
    const { queue, clock } = setup();
    const a = queue.enqueue('model-send');
    const b = queue.enqueue('model-send');
    await flushMicrotasks();
    queue.dispose();
    assert.equal((await a.result).waitReason, 'cancelled');
    assert.equal((await b.result).waitReason, 'cancelled');
    assert.equal(clock.pendingTimers, 0);
    assert.throws(() => queue.enqueue('reset'), /disposed/);
  });

  describe('an operation walks its phases (recovery included) one step at a time', () => {
    type Step = 'grant-done' | 'deadline' | 'cancel' | 'prompt' | 'interrupt-timeout';
    const cases: { name: string; holdGrant: boolean; steps: Step[]; phases: string[]; result: string }[] = [
      { name: 'granted, then the prompt', holdGrant: false, steps: ['prompt'], phases: ['holding', 'settled'], result: 'prompt' },
      {
        name: 'deadline: SIGINT at once, then the prompt',
        holdGrant: false,
        steps: ['deadline', 'prompt'],
        phases: ['holding', 'recovering/sent', 'settled'],
        result: 'timeout',
      },
      {
        name: 'deadline during the grant: SIGINT after the write',
        holdGrant: true,
        steps: ['deadline', 'prompt', 'grant-done', 'prompt'],
        phases: ['granting', 'recovering/after-writes', 'recovering/after-writes', 'recovering/sent', 'settled'],
        result: 'timeout',
      },
      {
        name: 'cancel, then the prompt',
        holdGrant: false,
        steps: ['cancel', 'prompt'],
        phases: ['holding', 'recovering/sent', 'settled'],
        result: 'cancelled',
      },
      {
        name: 'recovery fails',
        holdGrant: false,
        steps: ['cancel', 'interrupt-timeout'],
        phases: ['holding', 'recovering/sent', 'settled'],
        result: 'recovery-failed',
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        let release: () => void = () => undefined;
        const { queue, clock } = setup({ grant: () => (c.holdGrant ? new Promise<void>((r) => (release = r)) : Promise.resolve()) });
        const phase = () => {
          const p = queue.holder?.phase;
          if (!p) return 'settled';
          return p.kind === 'recovering' ? `recovering/${p.interrupt.kind}` : p.kind;
        };
        const controller = new AbortController();
        const op = queue.enqueue('model-send', undefined, { signal: controller.signal });
        const outcome = op.result.then(
          (r) => r.waitReason as string,
          (e: unknown) => (e instanceof QueueError ? e.code : 'other'),
        );
        await flushMicrotasks();
        const seen = [phase()];
        for (const step of c.steps) {
          if (step === 'grant-done') release();
          if (step === 'deadline') await clock.advance(1000);
          if (step === 'cancel') controller.abort();
          if (step === 'prompt') queue.observe('prompt', queue.currentDispatch);
          if (step === 'interrupt-timeout') await clock.advance(500);
          await flushMicrotasks();
          seen.push(phase());
        }
        assert.deepEqual(seen, c.phases);
        assert.equal(await outcome, c.result);
        assert.equal(clock.pendingTimers, 0);
      });
    }
  });
});
