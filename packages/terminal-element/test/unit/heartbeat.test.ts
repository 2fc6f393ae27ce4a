// Heartbeat: which beats ping, when the socket counts as dead, and that frames and stops reset it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Heartbeat } from '../../src/connection/heartbeat.ts';
import { ManualTimers } from '../helpers/manual-timers.ts';

type Step = ['advance', number] | ['heard'] | ['stop'] | ['start'];

const cases: Array<{ name: string; steps: Step[]; pings: number[]; dead: number; state: string }> = [
  { name: 'one quiet interval pings once', steps: [['advance', 1000]], pings: [1], dead: 0, state: 'beating:1' },
  { name: 'two quiet intervals ping twice', steps: [['advance', 2000]], pings: [1, 2], dead: 0, state: 'beating:2' },
  {
    name: 'the third quiet interval is dead, once',
    steps: [
      ['advance', 3000],
      ['advance', 5000],
    ],
    pings: [1, 2],
    dead: 1,
    state: 'stopped',
  },
  {
    name: 'a frame starts the count over',
    steps: [['advance', 2000], ['heard'], ['advance', 2000]],
    pings: [1, 2, 1, 2],
    dead: 0,
    state: 'beating:2',
  },
  {
    name: 'a frame each interval never dies',
    steps: [['advance', 1000], ['heard'], ['advance', 1000], ['heard'], ['advance', 1000], ['heard'], ['advance', 1000]],
    pings: [1, 1, 1, 1],
    dead: 0,
    state: 'beating:1',
  },
  { name: 'stop cancels the next beat', steps: [['advance', 1000], ['stop'], ['advance', 10000]], pings: [1], dead: 0, state: 'stopped' },
  {
    name: 'start again counts from zero',
    steps: [['advance', 2000], ['start'], ['advance', 1000]],
    pings: [1, 2, 1],
    dead: 0,
    state: 'beating:1',
  },
  { name: 'heard while stopped does not start it', steps: [['stop'], ['heard'], ['advance', 5000]], pings: [], dead: 0, state: 'stopped' },
];

for (const c of cases) {
  test(`heartbeat: ${c.name}`, () => {
    const timers = new ManualTimers();
    const pings: number[] = [];
    let dead = 0;
    const heartbeat = new Heartbeat(timers, 1000, { ping: (beat) => pings.push(beat), dead: () => (dead += 1) });
    heartbeat.start();
    for (const step of c.steps) {
      if (step[0] === 'advance') timers.advance(step[1]);
      else if (step[0] === 'heard') heartbeat.heard();
      else if (step[0] === 'stop') heartbeat.stop();
      else heartbeat.start();
    }
    const state = heartbeat.state;
    assert.deepEqual(pings, c.pings);
    assert.equal(dead, c.dead);
    assert.equal(state.kind === 'beating' ? `beating:${state.missed}` : state.kind, c.state);
  });
}

test('heartbeat: an interval of 0 turns it off', () => {
  const timers = new ManualTimers();
  const heartbeat = new Heartbeat(timers, 0, { ping: () => assert.fail('no ping'), dead: () => assert.fail('never dead') });
  heartbeat.start();
  timers.advance(100_000);
  assert.deepEqual(heartbeat.state, { kind: 'stopped' });
  assert.deepEqual(timers.waiting, []);
});
