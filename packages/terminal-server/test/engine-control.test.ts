/**
 * Issue 2, points 6-10, 12 and 13: forgery, recovery, signals, takeover, truncation, limits, disposal,
 * on real PTYs.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROCESS_TREE_VARIABLE, runRead, runReset, runSend, runSignal, utf8Length } from '../src/index.ts';
import { descendantPids } from '../src/pty/procfs.ts';
import { markedProcesses } from '../src/pty/process-tree.ts';
import {
  makeHub,
  overridingProvider,
  pidAlive,
  processesRunning,
  recordingProvider,
  sleep,
  type TestHub,
  waitFor,
} from './helpers/engine.ts';
import { useHub } from './helpers/real-programs.ts';

describe('engine: the prompt cannot be forged', () => {
  let t: TestHub;
  const provider = recordingProvider();
  before(() => {
    t = makeHub({}, provider);
  });
  after(() => t.close());
  const send = (text: string) => runSend(t.hub, 'forge', { text });

  it('children see neither the nonce nor the prompt hook', async () => {
    await send('true');
    const nonce = provider.writes[0]!.trim();
    assert.match(nonce, /^[A-Za-z0-9_-]{24}$/);
    const r = await send(`env; bash -c 'echo "hook=[$PROMPT_COMMAND] ps1=[$PS1]"'; cat /proc/self/environ | tr '\\0' '\\n'`);
    assert.ok(!r.output.includes(nonce), 'the nonce leaked into a child environment');
    assert.match(r.output, /hook=\[\] ps1=\[\]/);
  });

  it('a printf of a marker, even with the real nonce, does not end the operation', async () => {
    const nonce = provider.writes[0]!.trim();
    const started = performance.now();
    const r = await send(`printf '\\033]633;D;${nonce};0\\007\\033]633;B;${nonce}\\007fake$ '; sleep 1; echo done`);
    assert.ok(performance.now() - started >= 900, 'released before the command finished');
    assert.match(r.output, /done$/);
  });

  it('a cat of a log full of markers does not end the operation', async () => {
    const nonce = provider.writes[0]!.trim();
    const log = join(t.dir, 'markers.log');
    const lines: string[] = [];
    for (let i = 0; i < 200; i++) lines.push(`line ${i} \x1b]633;D;${nonce};0\x07\x1b]633;B;${nonce}\x07$ \x1b]633;D;other;0\x07`);
    writeFileSync(log, lines.join('\n'));
    const started = performance.now();
    const r = await send(`cat ${log}; sleep 1; echo after-cat`);
    assert.ok(performance.now() - started >= 900, 'released before the command finished');
    assert.match(r.output, /after-cat$/);
  });

  it('a nested bash is a program waiting for input, not the prompt', async () => {
    const nested = await send('bash --norc');
    assert.equal(nested.waitReason, 'stdin_read');
    assert.notEqual(nested.inputWait?.processGroupId, undefined);
    const inner = await send('echo inside');
    assert.equal(inner.waitReason, 'stdin_read');
    const out = await send('exit');
    assert.equal(out.waitReason, 'prompt');
  });
});

describe('engine: deadlines and recovery', () => {
  let t: TestHub;
  before(() => {
    t = makeHub({ operationTimeoutMs: 1000, interruptTimeoutMs: 1000 });
  });
  after(() => t.close());

  it('sleep 100 with a 1 s deadline returns timeout once SIGINT brought the prompt back', async () => {
    const started = performance.now();
    const r = await runSend(t.hub, 'recover', { text: 'sleep 100' });
    assert.equal(r.waitReason, 'timeout');
    // The prompt came back: the command's status is known, and the output ends where the prompt began.
    assert.equal(r.exitCode, 130);
    assert.match(r.output, /^sleep 100\n\^C$/);
    assert.equal(r.queueStatus, 'ready');
    assert.ok(performance.now() - started < 5000);
    assert.match((await runSend(t.hub, 'recover', { text: 'echo still-here' })).output, /still-here$/);
  });

  it('a program that ignores SIGINT blocks the queue until reset; reset gives the next generation', async () => {
    await assert.rejects(runSend(t.hub, 'recover', { text: `bash -c "trap '' INT; sleep 100"` }), /queue is blocked until reset/);
    await assert.rejects(runSend(t.hub, 'recover', { text: 'echo queued' }), /queue is blocked until reset/);
    const read = await runRead(t.hub, 'recover', {});
    assert.equal(read.queueStatus, 'blocked');
    const reset = await runReset(t.hub, 'recover', {});
    assert.equal(reset.generation, 2);
    assert.equal(reset.queueStatus, 'ready');
    assert.match((await runSend(t.hub, 'recover', { text: 'echo fresh' })).output, /fresh$/);
  });

  it('a cancelled send is interrupted and reports cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const r = await runSend(t.hub, 'recover', { text: 'sleep 50' }, controller.signal);
    assert.equal(r.waitReason, 'cancelled');
  });

  it('the rest of a send typed ahead of a command that timed out does not run once the prompt is back', async () => {
    // bash reads the first line and runs sleep; the second line waits unread in the terminal (a kill would
    // leave it to run after the prompt). Recovery types Ctrl-C, so the line discipline drops it.
    const r = await runSend(t.hub, 'recover', { text: 'sleep 100\necho typed-ahead-$((40+2))' });
    assert.equal(r.waitReason, 'timeout');
    const next = await runSend(t.hub, 'recover', { text: 'echo next-command' });
    assert.match(next.output, /^echo next-command\nnext-command$/);
    const read = await runRead(t.hub, 'recover', { offset: 0, count: 200 });
    const screen = `${read.text}\n${read.viewport}`;
    assert.doesNotMatch(screen, /typed-ahead-42/);
  });
});

describe('engine: recovery ends where the interrupted program reads input again', () => {
  const { send } = useHub('repl', { operationTimeoutMs: 1500, interruptTimeoutMs: 5000 });

  it('a REPL interrupted in a long statement: timeout, with the REPL waiting at its own prompt, its state kept', async () => {
    for (const [start, define, long, check, quit, command] of [
      ['python3 -q', 'kept = 6 * 7', 'import time; time.sleep(100)', 'kept', 'exit()', 'python3'],
      ['node', 'var kept = 6 * 7', 'while (true) {}', 'kept', '.exit', 'node'],
    ] as const) {
      assert.equal((await send(start)).waitReason, 'stdin_read');
      assert.equal((await send(define)).waitReason, 'stdin_read');
      const interrupted = await send(long);
      assert.equal(interrupted.waitReason, 'timeout', `${command}: ${interrupted.output}`);
      assert.equal(interrupted.queueStatus, 'ready');
      assert.equal(interrupted.inputWait?.command, command);
      assert.equal(interrupted.exitCode, undefined);
      const answer = await send(check);
      assert.equal(answer.waitReason, 'stdin_read');
      assert.match(answer.output, /42/, `${command} kept its state`);
      assert.equal((await send(quit)).waitReason, 'prompt');
    }
  });

  it('a program that ignores SIGINT and then reads: timeout, with its wait, not a blocked queue', async () => {
    const r = await send(`bash -c "trap '' INT; sleep 2.5; read -p 'value? ' v; echo got-\\$v"`);
    assert.equal(r.waitReason, 'timeout');
    assert.equal(r.inputWait?.command, 'bash');
    assert.match(r.output, /value\? $/);
    const answered = await send('x');
    assert.equal(answered.waitReason, 'prompt');
    assert.match(answered.output, /got-x$/);
  });

  it('a command that ends at the SIGINT still gives the prompt, with no wait', async () => {
    const r = await send('sleep 100');
    assert.equal(r.waitReason, 'timeout');
    assert.equal(r.inputWait, undefined);
  });
});

describe("engine: a command that ends while its deadline's SIGINT is on its way", () => {
  // The SIGINT's way is slowed (the terminal's flags are read late), so the command ends before it lands:
  // the race a real machine loses now and then (2 of 40 sends racing a 1 s deadline), here on demand.
  const slowInterrupt = overridingProvider((handle) => ({
    async terminalModes() {
      await sleep(400);
      return handle.terminalModes?.();
    },
  }));
  const { send } = useHub('late', { operationTimeoutMs: 1000, interruptTimeoutMs: 5000 }, slowInterrupt);

  it("the recovery ends after the SIGINT, with the command's own status, and the next send is untouched", async () => {
    const ended = await send('sleep 1.1; echo ended-first');
    assert.equal(ended.waitReason, 'timeout');
    assert.match(ended.output, /\nended-first\n/);
    assert.equal(ended.exitCode, 0, "the command's own status, not the 130 bash gives the SIGINT that found its prompt");
    const next = await send('for i in 1 2 3; do sleep 0.2; done; echo loop-done');
    assert.equal(next.waitReason, 'prompt', next.output);
    assert.equal(next.exitCode, 0, 'the late SIGINT did not interrupt it');
    assert.match(next.output, /^for i in .*\nloop-done$/);
  });
});

describe('engine: a line longer than a canonical-mode reader takes', () => {
  const { send } = useHub('long');

  it('is refused with nothing typed while the program reads line by line; a line that fits goes in whole', async () => {
    assert.equal((await send('head -c 100000 | wc -c')).waitReason, 'stdin_read');
    // The kernel would keep 4095 bytes of it and drop the rest, echoing all of it all the same.
    await assert.rejects(send('é'.repeat(2048)), (error: Error & { code?: string }) => {
      assert.equal(error.code, 'line-too-long');
      assert.match(error.message, /line 1 of the text is 4096 bytes/);
      assert.match(error.message, /nothing was typed/);
      return true;
    });
    await assert.rejects(send(`short\n${'y'.repeat(5000)}`), /line 2 of the text is 5000 bytes/);
    const fits = await send('z'.repeat(4095));
    assert.equal(fits.waitReason, 'stdin_read');
    assert.equal(fits.queueStatus, 'ready');
    const counted = await send('\x04', false);
    assert.equal(counted.waitReason, 'prompt');
    assert.match(counted.output, /^4096$/m, 'only the line that fits reached head, all of it');
  });

  it('goes in whole where bash edits the line itself (its prompt, a here-document)', async () => {
    const written = await send(`cat > long.txt <<'EOF'\n${'w'.repeat(6000)}\nEOF`);
    assert.equal(written.waitReason, 'prompt');
    assert.match((await send('wc -c < long.txt')).output, /\n6001$/);
  });
});

describe('engine: a send that types nothing waits for what runs', () => {
  const provider = recordingProvider();
  const { send } = useHub('empty', {}, provider);

  it('at an idle prompt it returns at once, with nothing written', async () => {
    await send('echo ready');
    const writes = provider.writes.length;
    const r = await send('', false);
    assert.equal(r.waitReason, 'prompt');
    assert.equal(r.output, '');
    assert.equal(r.exitCode, undefined);
    assert.equal(provider.writes.length, writes);
  });

  it('while a program waits for input it says so again', async () => {
    const asked = await send('read -r line');
    assert.equal(asked.waitReason, 'stdin_read');
    const again = await send('', false);
    assert.equal(again.waitReason, 'stdin_read');
    assert.equal(again.inputWait?.command, 'bash');
    assert.equal((await send('done')).waitReason, 'prompt');
  });
});

describe('engine: signals', () => {
  let t: TestHub;
  before(() => {
    t = makeHub();
  });
  after(() => t.close());

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGKILL', 'SIGTSTP'] as const) {
    it(`${signal} reaches the foreground group and reports it`, async () => {
      const started = await runSend(t.hub, 'signals', { text: 'cat' });
      assert.equal(started.waitReason, 'stdin_read');
      const group = started.inputWait!.processGroupId;
      const r = await runSignal(t.hub, 'signals', { signal });
      assert.equal(r.processGroupId, group);
      assert.equal(r.waitReason, 'prompt');
      assert.ok(!pidAlive(group) || signal === 'SIGTSTP');
      if (signal === 'SIGTSTP') {
        assert.match(r.output, /Stopped/);
        await runSend(t.hub, 'signals', { text: 'kill -9 %1; wait' });
      }
    });
  }

  it('a loop of short programs: each signal reaches the group in front at that moment (one that just ended is read again)', async () => {
    const generation = await t.hub.acquire('loop').ensure();
    const loop = runSend(t.hub, 'loop', { text: 'while :; do /bin/true; done' });
    let settled = false;
    void loop.then(() => (settled = true));
    await sleep(300);
    const failures: string[] = [];
    let signals = 0;
    // Groups live for a millisecond or two here: a group read before a slow inspection has often ended by
    // the kill. Keep interrupting until the loop ends (bash may also lose a SIGINT that lands in a child
    // before its exec, which is why one is not always enough); none of the signals may fail.
    for (let i = 0; i < 200 && !settled; i++) {
      signals += 1;
      await generation.signalForeground('SIGINT').catch((error: unknown) => failures.push(String(error)));
      await sleep(10);
    }
    const result = await loop;
    assert.deepEqual(failures, [], `signals that failed (of ${signals})`);
    assert.equal(result.waitReason, 'prompt', 'the loop ended and the prompt came back');
  });

  it('Interrupt input, clicked once, stops a loop of short programs and brings the prompt back', async () => {
    // One SIGINT loses a race with bash in a good share of rounds (a child forked and not yet exec'd).
    for (let round = 0; round < 8; round++) {
      const owner = t.hub.acquire(`human-loop-${round}`);
      await owner.ensure();
      const lease = await owner.beginHuman('while :; do /bin/true; done\r');
      await lease.granted;
      await sleep(200);
      await lease.interrupt();
      const outcome = await Promise.race([lease.result.then((r) => r.waitReason), sleep(5000).then(() => 'still running after 5 s')]);
      assert.equal(outcome, 'prompt', `round ${round}`);
    }
  });

  it('SIGKILL to the shell itself is refused', async () => {
    await assert.rejects(runSignal(t.hub, 'signals', { signal: 'SIGKILL' }), /SIGKILL to the shell itself is refused/);
    assert.match((await runSend(t.hub, 'signals', { text: 'echo alive' })).output, /\nalive/);
  });

  it('an unknown signal is a clear argument error', async () => {
    await assert.rejects(runSignal(t.hub, 'signals', { signal: 'SIGUSR1' }), /must be one of SIGINT, SIGTERM/);
  });
});

describe('engine: takeover', () => {
  let t: TestHub;
  before(() => {
    t = makeHub();
  });
  after(() => t.close());

  it('a running model send is handed to a human in place, with FIFO followers after it', async () => {
    const owner = t.hub.acquire('takeover');
    await owner.ensure();
    const send = runSend(t.hub, 'takeover', { text: `sleep 0.5; read -p 'first? ' a; read -p 'second? ' b; echo "$a|$b"` });
    const id = await waitFor(() => owner.state().takeoverId, 'a takeover id');
    const lease = owner.takeover(Number(id));
    const follower = runSend(t.hub, 'takeover', { text: 'echo follower-ran' });
    const handed = await send;
    assert.equal(handed.waitReason, 'human_handoff');
    assert.equal(handed.holder, 'human');
    assert.equal(owner.state().pendingCount, 1);
    assert.deepEqual(owner.state().pendingKinds, ['model-send']);
    await lease.granted;
    await waitFor(async () => (await owner.generation!.allText()).includes('first? '), 'the first prompt');
    await lease.input('你好\r');
    await waitFor(async () => (await owner.generation!.allText()).includes('second? '), 'the second prompt');
    await lease.input('🙂\r');
    const settled = await lease.result;
    assert.equal(settled.waitReason, 'prompt');
    const next = await follower;
    assert.match(next.output, /follower-ran$/);
    const read = await runRead(t.hub, 'takeover', {});
    assert.match(read.viewport, /你好\|🙂/);
  });

  it('a takeover after the program already finished is refused', async () => {
    const owner = t.hub.acquire('takeover');
    await runSend(t.hub, 'takeover', { text: 'true' });
    assert.throws(() => owner.takeover(999), /takeover is not available/);
  });
});

describe('engine: bounded results', () => {
  let t: TestHub;
  before(() => {
    t = makeHub();
  });
  after(() => t.close());

  it('seq 1 300000: truncated, newest suffix, valid UTF-8, whole JSON within the limit', async () => {
    const r = await runSend(t.hub, 'big', { text: 'seq 1 300000' });
    assert.equal(r.waitReason, 'prompt');
    assert.equal(r.truncated, true);
    assert.match(r.output, /\n299999\n300000$/);
    assert.ok(utf8Length(JSON.stringify(r)) <= 262144);
    const read = await runRead(t.hub, 'big', { count: 100000 });
    assert.ok(utf8Length(JSON.stringify(read)) <= 262144);
    assert.equal(read.totalLines, 10000);
  });

  it('CJK and emoji split across chunks stay intact; a tight limit keeps the newest valid suffix', async () => {
    const small = makeHub({ maxToolOutputBytes: 4096 });
    try {
      const script = join(small.dir, 'split.py');
      writeFileSync(
        script,
        "import sys,time\nb=('你好🙂'*400).encode()\nfor i in range(0,len(b),7):\n  sys.stdout.buffer.write(b[i:i+7]); sys.stdout.flush()\n  if i % 700 == 0: time.sleep(0.001)\nprint()\n",
      );
      const r = await runSend(small.hub, 'cjk', { text: `python3 ${script}` });
      assert.equal(r.waitReason, 'prompt');
      assert.ok(utf8Length(JSON.stringify(r)) <= 4096);
      assert.equal(r.truncated, true);
      assert.ok(!r.output.includes('\ufffd'), 'a character was split');
      assert.match(r.output, /你好🙂$/);
      assert.ok(r.output.length > 100);
    } finally {
      await small.close();
    }
  });
});

describe('engine: limits', () => {
  it('maxSessions, maxQueuedOperations and maxInputBytes are enforced before anything is written', async () => {
    const provider = recordingProvider();
    const t = makeHub({ maxSessions: 2, maxQueuedOperations: 2, maxInputBytes: 64 }, provider);
    try {
      await runSend(t.hub, 'one', { text: 'true' });
      await runSend(t.hub, 'two', { text: 'true' });
      await assert.rejects(runSend(t.hub, 'three', { text: 'true' }), /terminal capacity reached/);

      const writes = provider.writes.length;
      await assert.rejects(runSend(t.hub, 'one', { text: 'x'.repeat(100) }), /over maxInputBytes \(64\)/);
      assert.equal(provider.writes.length, writes, 'an oversized input reached the PTY');

      const first = runSend(t.hub, 'one', { text: 'sleep 0.5' });
      const second = runSend(t.hub, 'one', { text: 'true' });
      await sleep(50);
      await assert.rejects(runSend(t.hub, 'one', { text: 'true' }), /terminal queue is full/);
      await Promise.all([first, second]);

      // An exited terminal no longer counts against capacity.
      await runSend(t.hub, 'two', { text: 'exit' });
      assert.match((await runSend(t.hub, 'three', { text: 'echo third' })).output, /third$/);
    } finally {
      await t.close();
    }
  });
});

describe('engine: disposal', () => {
  it('disposing every owner ends their terminals at once, not one grace after another', async () => {
    // Each terminate is counted while it runs; the terminals hold a program that ignores the polite
    // signals, so each terminate lasts its whole grace.
    let running = 0;
    let most = 0;
    const provider = overridingProvider((handle) => ({
      async terminate() {
        running += 1;
        most = Math.max(most, running);
        try {
          await handle.terminate();
        } finally {
          running -= 1;
        }
      },
    }));
    const t = makeHub({ disposeGraceMs: 1000 }, provider);
    const ids = ['all-1', 'all-2', 'all-3', 'all-4'];
    for (const id of ids) {
      const started = await runSend(t.hub, id, { text: 'bash -c \'trap "" TERM HUP; echo stubborn; read -r x\'', submit: true });
      assert.equal(started.waitReason, 'stdin_read');
    }
    const stubborn = processesRunning(['bash', '-c', 'trap "" TERM HUP; echo stubborn; read -r x']);
    assert.equal(stubborn.length, ids.length);
    await t.hub.disposeAll();
    assert.equal(most, ids.length, 'every terminal was being ended at the same time');
    assert.deepEqual(stubborn.filter(pidAlive), []);
    await t.close();
  });

  it('the process-tree mark matches whole entries only', async () => {
    const mark = 'f00d'.repeat(6);
    const envs = [
      { [PROCESS_TREE_VARIABLE]: mark },
      { [PROCESS_TREE_VARIABLE]: `${mark}0` },
      { [`X${PROCESS_TREE_VARIABLE}`]: mark },
      { OTHER: `${PROCESS_TREE_VARIABLE}=${mark}` },
    ];
    const children = envs.map((env) => spawn('sleep', ['30'], { env, stdio: 'ignore' }));
    try {
      // Until exec, a child's /proc environ is still this process's.
      const started = (pid: number | undefined) => pid !== undefined && readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\0');
      await waitFor(() => children.every((child) => started(child.pid)), 'the children to start');
      assert.deepEqual(await markedProcesses(mark), [children[0]!.pid]);
    } finally {
      for (const child of children) child.kill('SIGKILL');
    }
  });

  it('disposing an owner leaves no process of its tree alive, and other owners intact', async () => {
    const t = makeHub({ disposeGraceMs: 500 });
    // Durations unique to this run name the four background jobs, so the check below finds them wherever
    // they went, whether the engine knew of them or not.
    const tag = 5000 + Math.floor(Math.random() * 4000);
    const jobs = [1, 2, 3, 4].map((n) => ['sleep', `${tag}.${n}`]);
    try {
      await runSend(t.hub, 'keep', { text: 'echo kept' });
      await runSend(t.hub, 'gone', {
        text: `sleep ${tag}.1 & (trap "" HUP TERM; sleep ${tag}.2) & setsid sleep ${tag}.3 & nohup sleep ${tag}.4 >/dev/null 2>&1 &`,
      });
      const owner = t.hub.get('gone')!;
      const shell = owner.generation!.pid;
      // Wait until every job runs and setsid's parent has exited: its child then belongs to init, outside
      // both the shell's tree and its session (the case a tree walk alone misses).
      await waitFor(
        () => jobs.every((argv) => processesRunning(argv).length === 1) && processesRunning(['setsid', ...jobs[2]!]).length === 0,
        'the four background jobs to run',
      );
      const escaped = processesRunning(jobs[2]!)[0]!;
      assert.ok(!(await descendantPids(shell)).includes(escaped), 'the setsid job is still a descendant of the shell');
      await t.hub.dispose('gone');
      await waitFor(
        () => !pidAlive(shell) && jobs.every((argv) => processesRunning(argv).length === 0),
        'every process of the tree to end',
        5000,
      );
      assert.match((await runSend(t.hub, 'keep', { text: 'echo still' })).output, /still$/);
      await assert.rejects(owner.ensure(), /disposed/);
    } finally {
      await t.close();
    }
  });
});
