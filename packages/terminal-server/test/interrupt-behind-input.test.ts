/**
 * An interrupt is heard behind a full input buffer (pty/unread-input.ts): a program that stopped reading
 * with more typed ahead than the line discipline holds used to keep the typed Ctrl-C queued behind it, so a
 * send's deadline could not get the prompt back and the queue blocked until reset. The input a Ctrl-C
 * discards is discarded, never run by the shell once the program is gone.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runSend } from '../src/index.ts';
import { makeHub, type TestHub } from './helpers/engine.ts';

async function interruptedBehindInput(t: TestHub, id: string, program: string, input: string): Promise<void> {
  const started = await runSend(t.hub, id, { text: `python3 -c '${program}'` });
  assert.equal(started.waitReason, 'stdin_read', 'the program waits for its first input');
  // The program reads the first line (or key) and sleeps; the rest waits in the terminal, unread.
  const sent = await runSend(t.hub, id, { text: input, submit: false, timeoutMs: 1500 });
  assert.equal(sent.waitReason, 'timeout');
  assert.match(sent.output, /KeyboardInterrupt/, "the deadline's SIGINT reached the program");
  const after = await runSend(t.hub, id, { text: 'echo alive' });
  assert.equal(after.waitReason, 'prompt');
  assert.equal(after.output, 'echo alive\nalive');
}

describe('an interrupt behind a full input buffer', { skip: process.platform !== 'linux' }, () => {
  it('canonical mode, complete lines never read: the SIGINT lands, and the shell runs none of them', async (context) => {
    const t = makeHub();
    context.after(() => t.close());
    const lines = Array.from({ length: 500 }, (_, i) => `touch leaked-${i}\n`).join('');
    await interruptedBehindInput(t, 'canonical', 'import sys, time; sys.stdin.readline(); time.sleep(600)', `go\n${lines}`);
    assert.deepEqual(
      readdirSync(t.dir).filter((name) => name.startsWith('leaked-')),
      [],
      'what the program had not read was discarded, as a Ctrl-C discards it',
    );
  });

  it('cbreak mode with ISIG, 60 KB never read: the SIGINT lands', async (context) => {
    const t = makeHub();
    context.after(() => t.close());
    const program = 'import sys, time, tty; tty.setcbreak(0); sys.stdin.read(1); time.sleep(600)';
    await interruptedBehindInput(t, 'cbreak', program, `a${'x'.repeat(60_000)}`);
  });
});
