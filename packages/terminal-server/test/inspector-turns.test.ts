/**
 * The look at who reads the terminal reads a dozen small /proc files. It must not wait for the event
 * loop between them: with other terminals' output being parsed, each turn of the loop can take tens of
 * ms, and a look that spans many turns made a quiet terminal's prompt and input waits that much later.
 */
import assert from 'node:assert/strict';
import { readlinkSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { LinuxInspector, runSend } from '../src/index.ts';
import { makeHub, type TestHub } from './helpers/engine.ts';

/** How many turns of the event loop `work` spans (each turn runs one setImmediate of the counter). */
async function turnsOf<T>(work: () => Promise<T>): Promise<{ turns: number; value: T }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work();
  done = true;
  return { turns, value };
}

describe('inspector: a look does not wait for the event loop between its reads', { skip: process.platform !== 'linux' }, () => {
  let t: TestHub;
  before(() => {
    t = makeHub();
  });
  after(() => t.close());

  for (const [what, text] of [
    ['bash at its prompt', ''],
    ['bash in its read builtin', 'read x'],
  ] as const) {
    it(`${what}: one look spans at most one turn`, async () => {
      const generation = await t.hub.acquire('a').ensure();
      if (text) assert.equal((await runSend(t.hub, 'a', { text })).waitReason, 'stdin_read');
      const inspector = new LinuxInspector(generation.pid, readlinkSync(`/proc/${generation.pid}/fd/0`));
      const { turns, value } = await turnsOf(() => inspector.inspect({ terminalFlags: false }));
      assert.equal(value?.inputWaiting, true, 'the look saw bash waiting for input');
      assert.equal(value?.inputProcessId, generation.pid);
      assert.ok(turns <= 1, `the look spanned ${turns} turns of the event loop`);
      if (text) await runSend(t.hub, 'a', { text: 'answer' });
    });
  }
});
