/** One notice per burst of idle interactions (HumanSettleBatcher), on a manual clock. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HumanSettleBatcher, type HumanSettled } from '../src/index.ts';
import { ManualClock } from '../src/time.ts';

let lease = 0;
function settled(origin: HumanSettled['origin'], exitCode = 0): HumanSettled {
  return {
    ownerId: 'a',
    leaseId: ++lease,
    origin,
    generation: 1,
    waitReason: 'prompt',
    exitCode,
    began: origin === 'idle' ? 'prompt' : 'program',
  };
}

function setup(quietMs = 3000) {
  const clock = new ManualClock();
  const batches: HumanSettled[][] = [];
  const batcher = new HumanSettleBatcher({ quietMs, clock, deliver: (batch) => batches.push(batch) });
  return { clock, batches, batcher };
}

/** A person types one command at the idle prompt: the lease holds the terminal, then the prompt is back. */
function command(batcher: HumanSettleBatcher, exitCode = 0): void {
  batcher.setHumanActive(true);
  batcher.setHumanActive(false);
  batcher.settled(settled('idle', exitCode));
}

describe('HumanSettleBatcher', () => {
  it('gathers a burst of idle commands into one batch after the quiet period', async () => {
    const { clock, batches, batcher } = setup();
    command(batcher, 0);
    await clock.advance(1000);
    command(batcher, 1);
    await clock.advance(2999);
    command(batcher, 2);
    await clock.advance(2999);
    assert.equal(batches.length, 0, 'still inside the quiet period');
    await clock.advance(1);
    assert.equal(batches.length, 1);
    assert.deepEqual(
      batches[0]!.map((event) => event.exitCode),
      [0, 1, 2],
    );
  });

  it('a lease in progress holds the batch, however long it takes; the quiet period starts when it ends', async () => {
    const { clock, batches, batcher } = setup();
    command(batcher);
    batcher.setHumanActive(true);
    await clock.advance(60_000);
    assert.equal(batches.length, 0);
    batcher.setHumanActive(false);
    batcher.settled(settled('idle'));
    await clock.advance(3000);
    assert.equal(batches.length, 1);
    assert.equal(batches[0]!.length, 2);
  });

  it('a takeover goes at once, with what was gathered before it', async () => {
    const { clock, batches, batcher } = setup();
    command(batcher);
    batcher.settled(settled('takeover'));
    assert.equal(batches.length, 1);
    assert.deepEqual(
      batches[0]!.map((event) => event.origin),
      ['idle', 'takeover'],
    );
    await clock.advance(10_000);
    assert.equal(batches.length, 1, 'nothing left to deliver');
    assert.equal(clock.pendingTimers, 0);
  });

  it('a quiet period of 0 delivers each interaction at once; dispose drops what is gathered', async () => {
    const immediate = setup(0);
    command(immediate.batcher);
    command(immediate.batcher);
    assert.equal(immediate.batches.length, 2);

    const { clock, batches, batcher } = setup();
    command(batcher);
    batcher.dispose();
    await clock.advance(10_000);
    assert.equal(batches.length, 0);
  });
});
