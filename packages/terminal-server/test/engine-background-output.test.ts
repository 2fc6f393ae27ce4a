/**
 * A background job that prints every couple of milliseconds never lets output go quiet: the engine still
 * tells the foreground's input waits, from the kernel's count of the group's context switches
 * (pty/stillness.ts), and still refuses to call a wait whose own output is on its way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runSend, type SendResult } from '../src/index.ts';
import { makeHub, type TestHub } from './helpers/engine.ts';

/** Prints a line every 2 ms, never 8 ms apart (the quiet a wait otherwise needs), without forking. */
const TICKER = `python3 -c "import time
while True: print('tick', flush=True); time.sleep(0.002)" &`;

function withJob(job: string): { send: (text: string, timeoutMs?: number) => Promise<SendResult> } {
  let t: TestHub;
  const send = (text: string, timeoutMs = 15_000): Promise<SendResult> => runSend(t.hub, 'shell', { text, timeoutMs });
  before(async () => {
    t = makeHub();
    assert.equal((await send(job)).waitReason, 'prompt');
  });
  after(async () => {
    await send('kill %1; wait', 10_000).catch(() => undefined);
    await t.close();
  });
  return { send };
}

/** The output without the job's lines. They interleave with everything: the kernel passes a large write
 *  on in pieces, so a tick can land inside another program's line and leave an empty row behind. */
const own = (output: string): string =>
  output
    .split('\n')
    .map((line) => line.replaceAll('tick', ''))
    .filter((line) => line !== '')
    .join('\n');

describe('engine: input waits while a background job keeps printing', () => {
  const { send } = withJob(TICKER);

  it("bash's read builtin is a wait, with its prompt text, and takes the answer", async () => {
    const r = await send('read -p "name? " x');
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.command, 'bash');
    assert.match(own(r.output), /name\? $/);
    assert.equal((await send('bob')).waitReason, 'prompt');
    assert.match(own((await send('echo "[$x]"')).output), /^\[bob\]$/m);
  });

  it('a secret prompt is a secret wait', async () => {
    const r = await send('read -s -p "pass: " p');
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.secret, true);
    assert.equal((await send('hunter2')).waitReason, 'prompt');
  });

  it("a program's own output written just before it reads is in the result, not cut off", async () => {
    const program = `python3 -c "import sys
sys.stdout.write(''.join('own %05d\\\\n' % i for i in range(3000))); print('LAST'); input('q? ')"`;
    const r = await send(program);
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.command, 'python3');
    assert.match(own(r.output), /own 02999\nLAST\nq\? $/);
    assert.equal((await send('fine')).waitReason, 'prompt');
  });

  it('a REPL waits at its prompt, answers and ends at the shell prompt', async () => {
    const r = await send('python3 -q');
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.command, 'python3');
    const sum = await send('6 * 7');
    assert.equal(sum.waitReason, 'stdin_read');
    assert.match(own(sum.output), /^42$/m);
    assert.equal((await send('exit()')).waitReason, 'prompt');
  });

  it('a foreground program that prints and never reads is not a wait', async () => {
    // In front and busy, no reader: the send runs to its deadline, then recovery stops the program.
    const r = await send('python3 -c "while True: print(1)"', 1500);
    assert.equal(r.waitReason, 'timeout');
    assert.equal((await send('echo still-here')).waitReason, 'prompt');
  });
});

describe('engine: input waits while a background job prints flat out', () => {
  // Fast enough to pass the history bound in seconds: what the wait printed may be gone, the wait is not.
  const { send } = withJob('(while :; do echo tick; done) &');

  it('read is a wait, and the answer reaches it', async () => {
    const r = await send('read x');
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.command, 'bash');
    assert.equal((await send('flat')).waitReason, 'prompt');
    // By its exit status: the job can push a command's output past the history bound within a second.
    assert.equal((await send('test "$x" = flat')).exitCode, 0);
  });
});
