/** A settled human interaction says what the person's input first went to: the prompt, or a waiting program. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { once } from 'node:events';
import { runSend, type HumanSettled } from '../src/index.ts';
import { makeHub, type TestHub } from './helpers/engine.ts';

describe('human-settled: began', () => {
  let t: TestHub;
  before(() => {
    t = makeHub({});
  });
  after(() => t.close());

  async function settle(text: string): Promise<HumanSettled> {
    const owner = t.hub.acquire('began');
    const settled = once(owner, 'human-settled') as Promise<[HumanSettled]>;
    const lease = await owner.beginHuman(text);
    await lease.result;
    return (await settled)[0];
  }

  it('typing a command line at the idle prompt began at the prompt', async () => {
    await runSend(t.hub, 'began', { text: 'true' });
    const event = await settle('echo typed\r');
    assert.equal(event.origin, 'idle');
    assert.equal(event.began, 'prompt');
    assert.equal(event.exitCode, 0);
  });

  it('answering a program the model left waiting for input began at that program', async () => {
    const waiting = await runSend(t.hub, 'began', { text: 'read -p \'name? \' x; echo "got:$x"' });
    assert.equal(waiting.waitReason, 'stdin_read');
    const event = await settle('ada\r');
    assert.equal(event.origin, 'idle');
    assert.equal(event.began, 'program');
  });
});
