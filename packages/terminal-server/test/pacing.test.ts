/**
 * The pacer on its own, table-driven, with a manual clock: what a paced view sends, holds, drops and
 * catches up, step by step.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flushMicrotasks, ManualClock } from '../src/time.ts';
import { FLOOD_SCREEN_INTERVAL_MS, Pacer } from '../src/transport/pacing.ts';
import type { OutputEvent } from '../src/terminal/generation.ts';

/**
 * Steps: `out N` (N characters of output), `out N prompt` (output that draws the prompt), `out N x` (N
 * characters ending in x), `type x` (a person typed x), `ack` (the renderer parsed all that was sent),
 * `catch-up` (the view sends the catch-up it was asked for), `wait MS`.
 */
interface Case {
  name: string;
  /** The view never acked: it is not paced. */
  unpaced?: boolean;
  steps: string[];
  /** What the view was told to do (`send #n`, `catch-up`), between the waits. */
  log: string[];
  state: 'open' | 'holding' | 'skipping';
}

const cases: Case[] = [
  { name: 'output within the window goes out', steps: ['out 1000', 'out 1000'], log: ['send #1', 'send #2'], state: 'open' },
  {
    name: 'a view that never acked is not paced',
    unpaced: true,
    steps: ['out 30000', 'out 30000', 'out 30000'],
    log: ['send #1', 'send #2', 'send #3'],
    state: 'open',
  },
  {
    name: 'past the window output is held until an ack',
    steps: ['out 30000', 'out 5000', 'ack'],
    log: ['send #1', 'send #2'],
    state: 'open',
  },
  {
    name: 'held output keeps its order behind the window',
    steps: ['out 30000', 'out 5000', 'out 5000'],
    log: ['send #1'],
    state: 'holding',
  },
  {
    name: 'more held than HELD_MAX_CHARS: dropped, and a catch-up once acked',
    steps: ['out 30000', 'out 30000', 'out 30000', 'out 30000', 'out 100', 'ack'],
    log: ['send #1', 'catch-up'],
    state: 'skipping',
  },
  {
    name: 'after a catch-up, held output heavier than it brings another, at the flood pace',
    steps: [
      'out 30000',
      'out 30000',
      'out 30000',
      'out 30000',
      'ack',
      'catch-up',
      'out 30000',
      'out 30000',
      'ack',
      `wait ${FLOOD_SCREEN_INTERVAL_MS - 1}`,
      'wait 1',
    ],
    log: ['send #1', 'catch-up', `wait ${FLOOD_SCREEN_INTERVAL_MS - 1}`, 'wait 1', 'catch-up'],
    state: 'skipping',
  },
  {
    name: 'after a catch-up, lighter held output follows its ack',
    steps: ['out 30000', 'out 30000', 'out 30000', 'out 30000', 'ack', 'catch-up', 'out 10', 'ack'],
    log: ['send #1', 'catch-up', 'send #5'],
    state: 'open',
  },
  {
    name: 'the prompt while skipping: a catch-up at once',
    steps: ['out 30000', 'out 30000', 'out 30000', 'out 30000', 'out 10 prompt'],
    log: ['send #1', 'catch-up'],
    state: 'skipping',
  },
  {
    name: 'a held prompt that is dropped: a catch-up at once',
    steps: ['out 32000', 'out 1000 prompt', 'out 30000', 'out 30000', 'out 30000'],
    log: ['send #1', 'catch-up'],
    state: 'skipping',
  },
  {
    name: 'a typed key whose echo is dropped: a catch-up at once',
    steps: ['type x', 'out 30000', 'out 30000', 'out 30000', 'out 30000', 'out 10 x'],
    log: ['send #1', 'catch-up'],
    state: 'skipping',
  },
  {
    name: 'an echo does not wait for the catch-up in flight',
    steps: ['out 30000', 'out 30000', 'out 30000', 'out 30000', 'ack', 'catch-up', 'type x', 'out 10 x'],
    log: ['send #1', 'catch-up', 'catch-up'],
    state: 'skipping',
  },
  {
    name: 'an echo looked for too long is no longer awaited',
    steps: ['type x', 'wait 1001', 'out 30000', 'out 30000', 'out 30000', 'out 30000', 'out 10 x'],
    log: ['wait 1001', 'send #1'],
    state: 'skipping',
  },
];

async function run(c: Case): Promise<{ log: string[]; state: string }> {
  const clock = new ManualClock();
  await clock.advance(1000);
  const log: string[] = [];
  let sequence = 0;
  let lastSent = 0;
  const pacer: Pacer = new Pacer(clock, {
    send: (event) => {
      log.push(`send #${event.sequence}`);
      lastSent = event.sequence;
      pacer.sent(event.sequence, event.data.length);
    },
    catchUp: () => log.push('catch-up'),
  });
  // The attach snapshot, acked: from then on the view is paced (unless it never acks).
  pacer.snapshotSent(0, 10, false);
  if (!c.unpaced) pacer.acked(0);
  for (const step of c.steps) {
    const [verb, arg, extra] = step.split(' ');
    if (verb === 'out') {
      sequence += 1;
      const event: OutputEvent = {
        generation: 1,
        sequence,
        data: extra === 'prompt' || extra === undefined ? 'a'.repeat(Number(arg)) : `${'a'.repeat(Number(arg) - 1)}${extra}`,
      };
      if (extra === 'prompt') event.prompt = true;
      if (pacer.admit(event)) {
        log.push(`send #${event.sequence}`);
        lastSent = event.sequence;
        pacer.sent(event.sequence, event.data.length);
      }
    } else if (verb === 'type') pacer.expectEcho(arg!);
    else if (verb === 'ack') {
      pacer.acked(lastSent);
      if (pacer.resumable) pacer.resume();
    } else if (verb === 'catch-up') {
      lastSent = sequence;
      pacer.snapshotSent(sequence, 2000, true);
    } else if (verb === 'wait') {
      log.push(step);
      await clock.advance(Number(arg));
    }
    await flushMicrotasks();
  }
  const state = pacer.kind;
  pacer.dispose();
  assert.equal(clock.pendingTimers, 0, 'dispose leaves no timer');
  return { log, state };
}

describe('pacing', () => {
  for (const c of cases) {
    it(c.name, async () => {
      assert.deepEqual(await run(c), { log: c.log, state: c.state });
    });
  }
});
