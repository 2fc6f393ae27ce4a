// Flood pacing: when output stays on the canvas and when the rows come back, on a manual clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOOD_LINGER_MS, FloodPolicy, type Clock } from '../../src/renderer/flood-policy.ts';
import { ManualTimers } from '../helpers/manual-timers.ts';

function rig(): { timers: ManualTimers; policy: FloodPolicy } {
  const timers = new ManualTimers();
  const clock: Clock = {
    now: () => timers.now,
    setTimeout: (c, ms) => timers.setTimeout(c, ms),
    clearTimeout: (h) => timers.clearTimeout(h),
  };
  return { timers, policy: new FloodPolicy(clock) };
}

const L = FLOOD_LINGER_MS;
// Catch-ups at these times, then output at `outputAt` (the canvas showing): does it stay on the canvas?
const cases: Array<{ name: string; catchUps: number[]; outputAt: number; onCanvas: boolean; state: string }> = [
  { name: 'a single catch-up is no flood', catchUps: [0], outputAt: 10, onCanvas: false, state: 'single' },
  { name: 'two catch-ups close together are a flood', catchUps: [0, 100], outputAt: 110, onCanvas: true, state: 'flooding' },
  {
    name: 'output a linger after the last catch-up goes to the rows',
    catchUps: [0, 100],
    outputAt: 100 + L,
    onCanvas: false,
    state: 'flooding',
  },
  { name: 'catch-ups a linger apart are singles', catchUps: [0, L], outputAt: L + 10, onCanvas: false, state: 'single' },
  { name: 'a flood that goes on stays one', catchUps: [0, 300, 600, 900], outputAt: 1000, onCanvas: true, state: 'flooding' },
];

for (const c of cases) {
  test(`flood pacing: ${c.name}`, () => {
    const { timers, policy } = rig();
    for (const at of c.catchUps) {
      timers.advance(at - timers.now);
      policy.catchUp();
    }
    timers.advance(c.outputAt - timers.now);
    assert.equal(policy.outputOnCanvas(true), c.onCanvas);
    assert.equal(policy.state.kind, c.state);
  });
}

test('flood pacing: output never stays on a canvas that is not the screen', () => {
  const { policy } = rig();
  policy.catchUp();
  policy.catchUp();
  assert.equal(policy.outputOnCanvas(false), false);
});

test('flood pacing: the rows come back a linger after the last catch-up, once', () => {
  const { timers, policy } = rig();
  let left = 0;
  policy.catchUp();
  timers.advance(100);
  policy.catchUp();
  policy.leaveWhenQuiet(() => (left += 1));
  policy.leaveWhenQuiet(() => (left += 1)); // one wait at a time
  timers.advance(300);
  policy.catchUp(); // at 400: the wait moves on
  timers.advance(L - 1);
  assert.equal(left, 0);
  timers.advance(1);
  assert.equal(left, 1);
  timers.advance(10 * L);
  assert.equal(left, 1);
});

test('flood pacing: cancel drops the wait', () => {
  const { timers, policy } = rig();
  let left = 0;
  policy.catchUp();
  policy.leaveWhenQuiet(() => (left += 1));
  policy.cancel();
  timers.advance(10 * L);
  assert.equal(left, 0);
});
