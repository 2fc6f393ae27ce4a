/**
 * Issue 2, points 1-6 and 11: the engine on a real PTY with real bash, python3 and node.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runRead, runReset, runSend, runSignal, type SendResult } from '../src/index.ts';
import { makeHub, type TestHub } from './helpers/engine.ts';

describe('engine: commands at the prompt', () => {
  let t: TestHub;
  before(() => {
    t = makeHub();
  });
  after(() => t.close());
  const send = (text: string, submit = true) => runSend(t.hub, 'shell', { text, submit });

  it('echo hello returns prompt with its output and exit status 0', async () => {
    const r = await send('echo hello');
    assert.equal(r.waitReason, 'prompt');
    assert.match(r.output, /^echo hello\nhello$/);
    assert.equal(r.exitCode, 0);
    assert.equal(r.generation, 1);
    assert.equal(r.queueStatus, 'ready');
    assert.equal(r.holder, null);
    assert.equal(r.rows, 40);
    assert.equal(r.cols, 160);
  });

  it('false gives exit status 1, a missing command 127', async () => {
    assert.equal((await send('false')).exitCode, 1);
    assert.equal((await send('no-such-command-here')).exitCode, 127);
  });

  it('an empty line runs nothing and reports no status; an answer, a held line and a syntax error do', async () => {
    assert.equal((await send('false')).exitCode, 1);
    // bash keeps `$?` across an empty line: 1 here would be the last command's, not this line's.
    for (const text of ['', '   ', '# a comment']) {
      const empty = await send(text);
      assert.equal(empty.waitReason, 'prompt');
      assert.equal(empty.exitCode, undefined, JSON.stringify(empty));
    }
    assert.equal((await send('read x; (exit 3)')).waitReason, 'stdin_read');
    assert.equal((await send('')).exitCode, 3, 'an empty answer ends a command line that did run');
    assert.equal((await send('(exit 4)', false)).waitReason, 'stdin_read');
    assert.equal((await send('')).exitCode, 4, 'Enter runs the line held at the prompt');
    assert.equal((await send('echo (')).exitCode, 2, 'a syntax error runs nothing, but bash sets its status');
    // Without interactive comments, `#` is a command like any other, and its status is reported.
    assert.equal((await send('shopt -u interactive_comments; false')).exitCode, 1);
    assert.equal((await send('# not a comment now')).exitCode, 127);
    assert.equal((await send('shopt -s interactive_comments')).exitCode, 0);
  });

  it('cd and export persist between sends', async () => {
    await send(`cd ${t.dir} && mkdir -p sub && cd sub && export SHARED_TEST_VALUE=kept`);
    const r = await send('pwd; echo "$SHARED_TEST_VALUE"');
    assert.match(r.output, new RegExp(`${t.dir}/sub\\nkept$`));
  });

  it('multi-line input completes once, at the final prompt, with no line lost', async () => {
    const heredoc = await send("cat <<'EOF'\nline one\nline two\nline three\nEOF");
    assert.equal(heredoc.waitReason, 'prompt');
    assert.match(heredoc.output, /line one\nline two\nline three$/);

    const loop = await send('for i in 1 2 3; do\n  echo "n=$i"\ndone');
    assert.match(loop.output, /n=1\nn=2\nn=3$/);

    const sub = await send('( cd / && echo "in $(pwd)" )\necho "out $(pwd | wc -c)"');
    assert.match(sub.output, /in \/\n.*\nout \d+$/s);

    const chain = await send('echo a && echo b && false || echo c');
    assert.match(chain.output, /\na\nb\nc$/);

    // Several commands in one send: every line's output is there, and the send ends after the last one.
    const many = await send('echo first\nsleep 0.3\necho second\necho third');
    assert.match(many.output, /first[\s\S]*second[\s\S]*third$/);
    assert.equal(many.queueStatus, 'ready');
  });

  it('text typed without Enter: bash waits for the rest of its line (unsubmitted), and Enter runs it', async () => {
    const typed = await send('echo typed-then-run', false);
    assert.equal(typed.waitReason, 'stdin_read');
    assert.deepEqual(typed.inputWait, {
      command: 'bash',
      secret: false,
      processGroupId: typed.inputWait?.processGroupId,
      unsubmitted: true,
    });
    assert.equal(typed.output, 'echo typed-then-run');
    // Waiting for what runs: nothing does, the line is still open.
    const waited = await send('', false);
    assert.equal(waited.waitReason, 'stdin_read');
    assert.equal(waited.inputWait?.unsubmitted, true);
    const completed = await send(' && echo $((6 * 7))\t', false);
    assert.equal(completed.inputWait?.unsubmitted, true, 'a Tab at the prompt is still a line being typed');
    const ran = await send('');
    assert.equal(ran.waitReason, 'prompt');
    assert.equal(ran.exitCode, 0);
    assert.match(ran.output, /\ntyped-then-run\n42$/);
    // Its command line is the whole line typed over three sends, not the part after the cursor.
    assert.match(ran.output, /^echo typed-then-run && echo \$\(\(6 \* 7\)\)/);
    // Lines run, and the last one is left typed: the send ends at the wait for it, after the lines ran.
    const mixed = await send('sleep 0.3; echo ran-first\necho left-typed', false);
    assert.equal(mixed.waitReason, 'stdin_read');
    assert.equal(mixed.inputWait?.unsubmitted, true);
    assert.match(mixed.output, /\nran-first\n.*echo left-typed$/s);
    // Erased again (Ctrl-U; backspaces; Ctrl-A Ctrl-K): bash is back at its prompt with nothing to run.
    for (const erase of ['\x15', '\x7f'.repeat('echo left-typed'.length), '\x01\x0b']) {
      if (erase !== '\x15') assert.equal((await send('echo left-typed', false)).inputWait?.unsubmitted, true);
      const erased = await send(erase, false);
      assert.equal(erased.waitReason, 'prompt', `${JSON.stringify(erase)}: ${erased.waitReason} ${JSON.stringify(erased.inputWait)}`);
      assert.equal(erased.exitCode, undefined, 'nothing ran');
      assert.equal((await send('', false)).waitReason, 'prompt', 'nothing to wait for');
    }
    // Input the line discipline takes itself (Ctrl-S and Ctrl-Q, output flow control) never reaches the line.
    for (const flow of ['\x13', '\x11']) assert.equal((await send(flow, false)).waitReason, 'prompt', JSON.stringify(flow));
    // Spaces typed are still typed: the cursor stands past the prompt.
    assert.equal((await send('  ', false)).inputWait?.unsubmitted, true);
    assert.equal((await send('\x15', false)).waitReason, 'prompt');
    assert.equal((await send('echo left-typed', false)).inputWait?.unsubmitted, true);
    const dropped = await send('\x03', false);
    assert.equal(dropped.waitReason, 'prompt', 'Ctrl-C drops the line: a fresh prompt');
    assert.equal((await send('echo after')).output, 'echo after\nafter');
  });

  it('a history line bash puts back to edit (histverify, histreedit) waits unsubmitted; Enter runs it', async () => {
    assert.equal((await send('shopt -s histverify; echo verified')).waitReason, 'prompt');
    // bash expands `!!` and draws its prompt again with the line on it, for the person to check: nothing ran.
    const back = await send('!!');
    assert.equal(back.waitReason, 'stdin_read', `reported ${back.waitReason}: ${back.output}`);
    assert.equal(back.inputWait?.command, 'bash');
    assert.equal(back.inputWait?.unsubmitted, true);
    assert.match(back.output, /^!!\n.*shopt -s histverify; echo verified$/);
    const ran = await send('');
    assert.equal(ran.waitReason, 'prompt');
    assert.equal(ran.exitCode, 0);
    assert.equal(ran.output, 'shopt -s histverify; echo verified\nverified', 'the command line is the one bash put back');
    // A failed expansion with histreedit: the line comes back to be mended.
    assert.equal((await send('shopt -u histverify; shopt -s histreedit')).waitReason, 'prompt');
    const failed = await send('echo !?qq-no-such-event-zz?');
    assert.equal(failed.waitReason, 'stdin_read');
    assert.equal(failed.inputWait?.unsubmitted, true);
    assert.match(failed.output, /event not found/);
    assert.equal((await send('\x03', false)).waitReason, 'prompt');
    assert.equal((await send('shopt -u histreedit; echo done')).output, 'shopt -u histreedit; echo done\ndone');
  });

  it('a command left open (PS2) is a wait of bash, not a prompt, wherever bash reads the rest', async () => {
    // bash reads the rest of an open `for` or a line ending in a backslash at its prompt's own depth, and
    // a quote or here-document deeper: either way no prompt was drawn and nothing started.
    for (const [open, rest, output] of [
      ['for i in 1 2', 'do echo "item $i"; done', 'item 1\nitem 2'],
      ['echo joined \\', 'line', 'joined line'],
      ['cat <<EOF', 'EOF', ''],
      ['echo "open', 'quote"', 'open\nquote'],
    ]) {
      const first = await send(open!);
      assert.equal(first.waitReason, 'stdin_read', `${open}: ${first.waitReason} ${first.output}`);
      assert.equal(first.inputWait?.command, 'bash');
      assert.equal(first.inputWait?.unsubmitted, undefined, 'the line was submitted');
      assert.match(first.output, /\n> $/, 'the continuation prompt is in the output');
      const done = await send(rest!);
      assert.equal(done.waitReason, 'prompt', `${rest}: ${done.waitReason}`);
      assert.equal(done.exitCode, 0);
      assert.ok(done.output.endsWith(output!), `${rest}: ${done.output}`);
    }
    const interrupted = await send('if true');
    assert.equal(interrupted.waitReason, 'stdin_read');
    assert.equal((await runSignal(t.hub, 'shell', { signal: 'SIGINT' })).waitReason, 'prompt');
  });

  it('a background job that never stops printing does not hold the line that started it', async () => {
    // The job prints from its first moment, every few milliseconds, so the prompt mark is seldom the last
    // thing drawn for long: bash asleep in its line editor at its prompt's depth, after the mark, says the
    // line ended. (A job printing flat out can push a later command's output out of the history bound,
    // which the result reports as truncated; a few milliseconds apart keeps this test about completion.)
    const job = '(while :; do echo tick; sleep 0.005; done) &';
    const started = await runSend(t.hub, 'shell', { text: job, timeoutMs: 10_000 });
    try {
      assert.equal(started.waitReason, 'prompt');
      assert.equal(started.exitCode, 0);
      // The job may print before bash reports it: every other line is the job's.
      const [typed, ...rest] = started.output.split('\n');
      assert.equal(typed, job);
      assert.equal(rest.filter((line) => /^\[1\] \d+$/.test(line)).length, 1, started.output);
      assert.deepEqual(
        rest.filter((line) => !/^\[1\] \d+$/.test(line) && line !== 'tick'),
        [],
        started.output,
      );
      const next = await runSend(t.hub, 'shell', { text: 'echo after-the-job', timeoutMs: 10_000 });
      assert.equal(next.waitReason, 'prompt');
      assert.match(next.output, /^after-the-job$/m);
    } finally {
      await runSend(t.hub, 'shell', { text: 'kill %1; wait', timeoutMs: 10_000 });
    }
  });

  it('a background job printing flat out does not hold the line either; lost output is said to be lost', async () => {
    const started = await runSend(t.hub, 'shell', { text: '(while :; do echo tick; done) &', timeoutMs: 10_000 });
    try {
      assert.equal(started.waitReason, 'prompt');
      // On a loaded machine the job can print past the history bound before bash runs the next line:
      // the result then says its output was truncated rather than passing the loss over in silence.
      const next = await runSend(t.hub, 'shell', { text: 'echo after-the-job', timeoutMs: 10_000 });
      assert.equal(next.waitReason, 'prompt');
      assert.ok(/^after-the-job$/m.test(next.output) || next.truncated, next.output.slice(-200));
    } finally {
      await runSend(t.hub, 'shell', { text: 'kill %1; wait', timeoutMs: 10_000 });
    }
  });

  it('carriage-return progress bars are folded to their final state', async () => {
    const r = await send("for i in 10 50 100; do printf '\\rprogress %3d%%' $i; sleep 0.05; done; echo");
    assert.match(r.output, /\nprogress 100%$/);
    assert.doesNotMatch(r.output, /progress {2}10%/);
  });

  it('a shell that stops itself (suspend, kill -STOP $$) is continued, with its state kept', async () => {
    // No job control above the terminal's shell would continue it: the terminal would stay frozen and
    // the queue blocked until a reset threw away the directory and the variables below.
    await send(`cd ${t.dir} && STOPPED_VALUE=kept`);
    const suspended = await runSend(t.hub, 'shell', { text: 'suspend', timeoutMs: 4000 });
    assert.equal(suspended.waitReason, 'prompt', JSON.stringify(suspended));
    assert.equal(suspended.exitCode, 0);
    const stopped = await runSend(t.hub, 'shell', { text: 'kill -STOP $$; echo "$STOPPED_VALUE $PWD"', timeoutMs: 4000 });
    assert.equal(stopped.waitReason, 'prompt', JSON.stringify(stopped));
    assert.equal(stopped.output, `kill -STOP $$; echo "$STOPPED_VALUE $PWD"\nkept ${t.dir}`);
  });
});

describe('engine: the environment names the shell that runs', () => {
  let t: TestHub;
  before(() => {
    // The server itself runs under /bin/sh (a CI runner, a service manager) and names bash by its bare name.
    t = makeHub({ shellPath: 'bash' }, undefined, { ...process.env, SHELL: '/bin/sh' });
  });
  after(() => t.close());

  it('SHELL is the absolute path of the bash in the terminal, so programs that start $SHELL start bash', async () => {
    const r = await runSend(t.hub, 'shell-var', { text: `echo "[$SHELL]"; "$SHELL" -c 'echo "bash=$BASH_VERSION"'`, submit: true });
    assert.equal(r.waitReason, 'prompt');
    const shell = /^\[(.*)\]$/m.exec(r.output)?.[1] ?? '';
    assert.match(shell, /^\/.*\/bash$/);
    assert.match(r.output, /bash=\d/);
  });
});

describe('engine: input waits', () => {
  let t: TestHub;
  before(() => {
    t = makeHub();
  });
  after(() => t.close());
  const send = (text: string) => runSend(t.hub, 'waits', { text });

  it("read -p 'name? ' x returns stdin_read, then the answer returns prompt", async () => {
    const r = await send("read -p 'name? ' x");
    assert.equal(r.waitReason, 'stdin_read');
    assert.match(r.output, /name\? $/);
    assert.equal(r.inputWait?.secret, false);
    const answer = await send('Ada');
    assert.equal(answer.waitReason, 'prompt');
    assert.match(answer.output, /^Ada$/);
    assert.match((await send('echo "got $x"')).output, /got Ada$/);
  });

  it('a program reading /dev/tty directly is seen', async () => {
    const r = await send(
      `python3 -c "import sys; t=open('/dev/tty'); sys.stdout.write('tty? '); sys.stdout.flush(); print('read:'+t.readline().strip())" < /dev/null`,
    );
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.command, 'python3');
    const done = await send('from-tty');
    assert.equal(done.waitReason, 'prompt');
    assert.match(done.output, /read:from-tty$/);
  });

  it('python3 -q: three rounds of stdin_read, then exit() returns prompt', async () => {
    const start = await send('python3 -q');
    assert.equal(start.waitReason, 'stdin_read');
    assert.match(start.output, />>> $/);
    const rounds: SendResult[] = [];
    for (const line of ['6*7', 'x = "abc"', 'print(x.upper())']) rounds.push(await send(line));
    assert.deepEqual(
      rounds.map((r) => r.waitReason),
      ['stdin_read', 'stdin_read', 'stdin_read'],
    );
    assert.match(rounds[0]!.output, /6\*7\n42\n>>> $/);
    assert.match(rounds[2]!.output, /ABC\n>>> $/);
    const exit = await send('exit()');
    assert.equal(exit.waitReason, 'prompt');
  });

  it('the node REPL: two rounds of stdin_read, then .exit returns prompt', async () => {
    const start = await send('node');
    assert.equal(start.waitReason, 'stdin_read');
    assert.match(start.output, /> $/);
    const one = await send('1 + 41');
    assert.equal(one.waitReason, 'stdin_read');
    assert.match(one.output, /42/);
    const two = await send('"shared".toUpperCase()');
    assert.equal(two.waitReason, 'stdin_read');
    assert.match(two.output, /'SHARED'/);
    const exit = await send('.exit');
    assert.equal(exit.waitReason, 'prompt', JSON.stringify({ ...exit, viewport: undefined }));
  });

  it('getpass is reported as a secret input wait', async () => {
    const r = await send(`python3 -c "import getpass; print('len', len(getpass.getpass('Password: ')))"`);
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.secret, true);
    assert.match(r.output, /Password: $/);
    const done = await send('hunter2');
    assert.equal(done.waitReason, 'prompt');
    assert.match(done.output, /len 7$/);
    assert.doesNotMatch(done.output, /hunter2/);
  });

  it('read -s is a secret wait of the shell itself', async () => {
    const r = await send("read -s -p 'pin: ' pin");
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.secret, true);
    await send('1234');
  });
});

describe('engine: natural exit', () => {
  let t: TestHub;
  before(() => {
    t = makeHub();
  });
  after(() => t.close());

  it('exit 3 returns session_exit with 3; later sends fail clearly; read works; reset restores', async () => {
    await runSend(t.hub, 'exit', { text: 'echo before-exit' });
    const r = await runSend(t.hub, 'exit', { text: 'exit 3' });
    assert.equal(r.waitReason, 'session_exit');
    assert.equal(r.exitCode, 3);
    assert.deepEqual(r.status, { kind: 'exited', exitCode: 3, signal: null });
    assert.equal(r.queueStatus, 'exited');
    await assert.rejects(runSend(t.hub, 'exit', { text: 'echo nope' }), /terminal is exited.*shared_terminal_reset/);
    const read = await runRead(t.hub, 'exit', {});
    assert.match(read.viewport, /before-exit/);
    const reset = await runReset(t.hub, 'exit', {});
    assert.equal(reset.generation, 2);
    assert.equal(reset.queueStatus, 'ready');
    assert.deepEqual(reset.status, { kind: 'running' });
    const again = await runSend(t.hub, 'exit', { text: 'echo alive' });
    assert.match(again.output, /alive$/);
    assert.equal(again.generation, 2);
  });
});
