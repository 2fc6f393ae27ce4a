// Retry backoff: the delays in a row, the cap, a reset, and that only one retry ever waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RetrySchedule } from '../../src/connection/retry.ts';
import { ManualTimers } from '../helpers/manual-timers.ts';

const cases: Array<{ name: string; ops: Array<'fail' | 'reset'>; delays: number[] }> = [
  { name: 'doubles from the initial delay', ops: ['fail', 'fail', 'fail', 'fail'], delays: [250, 500, 1000, 2000] },
  {
    name: 'stops at the cap',
    ops: ['fail', 'fail', 'fail', 'fail', 'fail', 'fail', 'fail', 'fail'],
    delays: [250, 500, 1000, 2000, 4000, 8000, 8000, 8000],
  },
  { name: 'a reset starts over', ops: ['fail', 'fail', 'fail', 'reset', 'fail', 'fail'], delays: [250, 500, 1000, 250, 500] },
];

for (const c of cases) {
  test(`retry: ${c.name}`, () => {
    const retry = new RetrySchedule(new ManualTimers(), { initialMs: 250, maxMs: 8000 });
    const delays: number[] = [];
    for (const op of c.ops) {
      if (op === 'reset') retry.reset();
      else delays.push(retry.schedule(() => {}));
    }
    assert.deepEqual(delays, c.delays);
  });
}

test('retry: fires once after its delay, then is idle', () => {
  const timers = new ManualTimers();
  const retry = new RetrySchedule(timers, { initialMs: 250, maxMs: 8000 });
  let fired = 0;
  retry.schedule(() => (fired += 1));
  assert.deepEqual(retry.state, { kind: 'waiting', delayMs: 250 });
  timers.advance(249);
  assert.equal(fired, 0);
  timers.advance(1);
  assert.equal(fired, 1);
  assert.deepEqual(retry.state, { kind: 'idle' });
  timers.advance(100_000);
  assert.equal(fired, 1);
});

test('retry: a second schedule replaces the first; cancel leaves none', () => {
  const timers = new ManualTimers();
  const retry = new RetrySchedule(timers, { initialMs: 250, maxMs: 8000 });
  const fired: string[] = [];
  retry.schedule(() => fired.push('first'));
  retry.schedule(() => fired.push('second'));
  assert.deepEqual(timers.waiting, [500]);
  timers.advance(10_000);
  assert.deepEqual(fired, ['second']);
  retry.schedule(() => fired.push('third'));
  retry.cancel();
  timers.advance(10_000);
  assert.deepEqual(fired, ['second']);
  assert.deepEqual(retry.state, { kind: 'idle' });
});
