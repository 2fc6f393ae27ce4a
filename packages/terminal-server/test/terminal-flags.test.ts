/**
 * The terminal's flags (ECHO, ICANON: a secret prompt) come from `stty`, run by one long-lived shell
 * rather than a fork of the server per read (a fork of a large process blocks its event loop for
 * milliseconds). A look may start the read ahead of a confirming look; the confirming look takes it only
 * for the same sleep of the same reader. And output that arrives while a slow look is pending brings the
 * next look forward.
 */
import assert from 'node:assert/strict';
import { readFileSync, readlinkSync, readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { LinuxInspector, runSend } from '../src/index.ts';
import { readTerminalFlags } from '../src/pty/procfs.ts';
import { makeHub, pidAlive, waitFor, type TestHub } from './helpers/engine.ts';

/** Children of this process that run the stty shell (its loop is in its command line). */
function sttyShells(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (ppid === process.pid && cmdline.includes('stty -a -F') && pidAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return found;
}

describe('terminal flags', { skip: process.platform !== 'linux' }, () => {
  let t: TestHub;
  before(() => {
    t = makeHub();
  });
  after(() => t.close());

  it('are read through one long-lived shell, in order, and a killed shell is replaced', async () => {
    const generation = await t.hub.acquire('flags').ensure();
    const pts = readlinkSync(`/proc/${generation.pid}/fd/0`);
    assert.equal((await runSend(t.hub, 'flags', { text: 'read -s x' })).waitReason, 'stdin_read');
    // Several reads at once, of a terminal with echo off and of one that does not exist, answered in order.
    const answers = await Promise.all([readTerminalFlags(pts), readTerminalFlags('/dev/pts/999999'), readTerminalFlags(pts)]);
    assert.deepEqual(
      answers.map((a) => a && { echo: a.echo, icanon: a.icanon }),
      [{ echo: false, icanon: true }, undefined, { echo: false, icanon: true }],
    );
    const shells = sttyShells();
    assert.equal(shells.length, 1, `one stty shell, found ${shells.length}`);
    for (let i = 0; i < 5; i++) await readTerminalFlags(pts);
    assert.deepEqual(sttyShells(), shells, 'the same shell answered every read');
    process.kill(shells[0]!, 'SIGKILL');
    await waitFor(() => !pidAlive(shells[0]!), 'the shell is gone');
    // The first read may race the shell's death (then it spawns stty itself); the next runs in a new shell.
    assert.equal((await readTerminalFlags(pts))?.echo, false, 'a read after the kill is answered');
    assert.equal((await readTerminalFlags(pts))?.echo, false);
    const next = sttyShells();
    assert.equal(next.length, 1);
    assert.notEqual(next[0], shells[0]);
    await runSend(t.hub, 'flags', { text: 'secret' });
  });

  it('read ahead are not reused once the reader woke and changed them', async () => {
    const generation = await t.hub.acquire('ahead').ensure();
    const inspector = new LinuxInspector(generation.pid, readlinkSync(`/proc/${generation.pid}/fd/0`));
    assert.equal((await runSend(t.hub, 'ahead', { text: 'read a; stty -echo; read b; stty echo' })).waitReason, 'stdin_read');
    // Asleep in `read a` with echo on: this look starts reading the flags for that sleep.
    assert.equal((await inspector.inspect({ terminalFlags: 'ahead' }))?.inputWaiting, true);
    // The same bash wakes, turns echo off and sleeps in `read b`: a new sleep, read afresh.
    const answer = await runSend(t.hub, 'ahead', { text: 'one' });
    assert.equal(answer.waitReason, 'stdin_read');
    assert.equal(answer.inputWait?.secret, true);
    const look = await inspector.inspect();
    assert.equal(look?.echo, false, 'the confirming look saw echo off');
    assert.equal(look?.secret, true);
    await runSend(t.hub, 'ahead', { text: 'two' });
  });
});

describe('output brings a pending look forward', { skip: process.platform !== 'linux' }, () => {
  let t: TestHub;
  // Looks at the poll's own pace would come 20 s apart: only output can bring one sooner.
  before(() => {
    t = makeHub({ pollIntervalMs: 20_000 });
  });
  after(() => t.close());

  it('a prompt printed after a silent start is seen long before the next paced look', async () => {
    await t.hub.acquire('slow').ensure();
    const started = performance.now();
    const answer = await runSend(t.hub, 'slow', { text: "sleep 0.5; read -p 'name? ' x", timeoutMs: 60_000 });
    const elapsed = performance.now() - started;
    assert.equal(answer.waitReason, 'stdin_read');
    assert.ok(elapsed < 10_000, `seen after ${Math.round(elapsed)} ms: it waited for the paced look`);
    await runSend(t.hub, 'slow', { text: 'me' });
  });
});
