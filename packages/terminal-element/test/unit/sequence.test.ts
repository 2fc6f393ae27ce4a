// Output sequencing and acks: each step of a stream and what the view does with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OutputSequence, type OutputVerdict, type StreamState } from '../../src/connection/sequence.ts';

type Step =
  | { snapshot: [generation: number, sequence: number] }
  | { output: [generation: number, sequence: number]; verdict: OutputVerdict }
  | { attach: true };

const streams: Array<{ name: string; steps: Step[]; state: StreamState; sequence: number }> = [
  { name: 'output before a snapshot is ignored', steps: [{ output: [1, 1], verdict: 'ignore' }], state: 'no-snapshot', sequence: 0 },
  {
    name: 'output in order applies',
    steps: [{ snapshot: [1, 4] }, { output: [1, 5], verdict: 'apply' }, { output: [1, 6], verdict: 'apply' }],
    state: 'in-step',
    sequence: 6,
  },
  {
    name: 'a duplicate is skipped',
    steps: [{ snapshot: [1, 4] }, { output: [1, 4], verdict: 'duplicate' }, { output: [1, 2], verdict: 'duplicate' }],
    state: 'in-step',
    sequence: 4,
  },
  {
    name: 'a gap asks for a resync and waits',
    steps: [{ snapshot: [1, 4] }, { output: [1, 6], verdict: 'resync' }, { output: [1, 5], verdict: 'ignore' }],
    state: 'resyncing',
    sequence: 4,
  },
  {
    name: 'another generation asks for a resync',
    steps: [{ snapshot: [1, 4] }, { output: [2, 5], verdict: 'resync' }],
    state: 'resyncing',
    sequence: 4,
  },
  {
    name: 'the next snapshot ends the resync',
    steps: [{ snapshot: [1, 4] }, { output: [1, 9], verdict: 'resync' }, { snapshot: [1, 9] }, { output: [1, 10], verdict: 'apply' }],
    state: 'in-step',
    sequence: 10,
  },
  {
    name: 'a new socket waits for its own snapshot',
    steps: [{ snapshot: [1, 4] }, { attach: true }, { output: [1, 5], verdict: 'ignore' }],
    state: 'no-snapshot',
    sequence: 4,
  },
];

for (const s of streams) {
  test(`sequence: ${s.name}`, () => {
    const stream = new OutputSequence(100);
    for (const step of s.steps) {
      if ('snapshot' in step) stream.snapshot(...step.snapshot);
      else if ('attach' in step) stream.attach();
      else assert.equal(stream.output(...step.output), step.verdict, `output ${step.output.join('/')}`);
    }
    assert.equal(stream.state, s.state);
    assert.equal(stream.sequence, s.sequence);
  });
}

// [parsed sequence, chars] → the ack sent (null: none), after a snapshot at 0 and output up to `latest`.
const acks: Array<{ name: string; latest: number; parsed: Array<[number, number, number | null]> }> = [
  {
    name: 'caught up: ack at once',
    latest: 2,
    parsed: [
      [1, 10, null],
      [2, 10, 2],
    ],
  },
  {
    name: 'behind: ack every ackEveryChars characters',
    latest: 5,
    parsed: [
      [1, 60, null],
      [2, 60, 2],
      [3, 60, null],
      [4, 60, 4],
    ],
  },
  {
    name: 'never the same sequence twice',
    latest: 1,
    parsed: [
      [1, 10, 1],
      [1, 10, null],
    ],
  },
  {
    name: 'a parse report older than the last never goes back',
    latest: 3,
    parsed: [
      [3, 10, 3],
      [2, 200, null],
    ],
  },
];

for (const a of acks) {
  test(`acks: ${a.name}`, () => {
    const stream = new OutputSequence(100);
    stream.snapshot(1, 0);
    for (let sequence = 1; sequence <= a.latest; sequence++) stream.output(1, sequence);
    for (const [sequence, chars, expected] of a.parsed) assert.equal(stream.parsed(sequence, chars), expected, `parsed ${sequence}`);
  });
}

test('acks: a snapshot is acked once parsed even at a sequence already acked', () => {
  const stream = new OutputSequence(100);
  stream.snapshot(1, 0);
  stream.output(1, 1);
  assert.equal(stream.parsed(1, 5), 1);
  stream.snapshot(1, 1); // a full snapshot after a catch-up, at the same sequence
  assert.equal(stream.parsed(1, 0), 1);
});
