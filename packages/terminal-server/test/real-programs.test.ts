/**
 * Issue 16: the engine tells the truth on real programs nobody here wrote, one describe per class of the
 * issue: whole output, the prompt found however the shell changes, every input wait seen wherever the
 * reader is, no false waits, a marker that counts once. The programs come from Debian (`npm test`
 * installs the missing ones); a missing program fails its test with the command that installs it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { runRead, runSend, runSignal, type SendResult } from '../src/index.ts';
import { sleep, waitFor } from './helpers/engine.ts';
import { requirePrograms, useHub } from './helpers/real-programs.ts';

describe('class 1: output is whole, newline or not', () => {
  const { send } = useHub('whole');

  it('printf abc: the text without a final newline is the output', async () => {
    const r = await send('printf abc');
    assert.equal(r.waitReason, 'prompt');
    assert.equal(r.output, 'printf abc\nabc');
    assert.equal(r.truncated, false);
  });

  it("printf 'a\\nb': the last line stays", async () => {
    const r = await send("printf 'a\\nb'");
    assert.equal(r.output, "printf 'a\\nb'\na\nb");
  });

  it('a 1 MB line without a newline comes back with its end, marked truncated', async () => {
    const r = await send("head -c 1000000 /dev/zero | tr '\\0' x");
    assert.equal(r.waitReason, 'prompt');
    assert.equal(r.truncated, true);
    assert.match(r.output, /x{1000}$/);
  });

  it('a last line the prompt was drawn over (a closing carriage return, backspaces) is output as the command left it', async () => {
    // bash draws its prompt from the cursor and does not clear the row: a person sees the text for a
    // moment, then the prompt over it.
    const progress = await send("printf 'line1\\nprogress 100%%\\r'");
    assert.equal(progress.output, "printf 'line1\\nprogress 100%%\\r'\nline1\nprogress 100%");
    assert.equal((await send("printf 'abcdef\\b\\b'")).output, "printf 'abcdef\\b\\b'\nabcdef");
    // Text that stood on the row before the command is not what it wrote (dialog left its box there).
    await send("clear; printf '\\n%70s\\r\\033[A' box");
    const mine = await send("printf 'mine\\r'");
    assert.match(mine.viewport, /# +box$/m, 'the prompt drawn over mine, beside the box');
    assert.equal(mine.output, "printf 'mine\\r'\nmine");
    // Up onto the command line itself: the prompt drawn over its own line leaves the line as output.
    assert.equal((await send("printf '\\033[A'")).output, "printf '\\033[A'");
  });

  it("tabs in the text are text, not readline's completion; a tab ending a text without Enter completes", async () => {
    const file = `/tmp/st-tabs-${process.pid}.mk`;
    try {
      // A Makefile's recipe needs its tab; on an empty word a Tab would also list every command.
      await send(`cat > ${file} <<'EOF'\nall:\n\techo hi\nEOF`);
      assert.equal(readFileSync(file, 'utf8'), 'all:\n\techo hi\n');
      assert.equal((await send('printf "%s\\n" "x\ty" | od -c | head -n 1')).output.split('\n')[1], '0000000   x  \\t   y  \\n');
      const completed = await send('ech\t', false);
      assert.equal(completed.inputWait?.unsubmitted, true);
      assert.equal((await send('completed')).output, 'echo completed\ncompleted');
    } finally {
      rmSync(file, { force: true });
    }
  });

  it('text printed above where the command began (the cursor moved up) is its output', async () => {
    await send('clear');
    assert.equal((await send("printf '\\033[H\\033[2K'; echo top")).output, 'top');
    await send('seq 1 5');
    assert.equal((await send("printf '\\033[3A'; echo up3")).output, 'up3');
    // A person sees the same: the row keeps what the shorter text did not cover.
    await send('seq 100 105');
    assert.equal((await send("printf '\\033M\\033M\\033M'; echo R")).output, 'R04');
  });

  it('dialog leaves its box and the shell goes on at the top: what was printed there is the output', async () => {
    requirePrograms('dialog');
    const asked = await send("dialog --inputbox 'Name' 8 40 2>/dev/null; echo rc=$?");
    assert.equal(asked.waitReason, 'stdin_read');
    assert.match(asked.output, /Name/);
    const r = await send('bob');
    assert.equal(r.waitReason, 'prompt');
    assert.equal(r.output, 'rc=0');
  });

  it('text printed without a newline before a prompt of its own stays (python3 -c)', async () => {
    const r = await send(`python3 -c "import sys; sys.stdout.write('no newline here')"`);
    assert.match(r.output, /\nno newline here$/);
  });
});

describe("the user's shell options and the hook", () => {
  const { send } = useHub('options');

  it('set -x traces the commands typed, never the hook; set -u finds nothing of the hook unset', async () => {
    assert.equal((await send('set -x')).output, 'set -x');
    const traced = await send('echo traced');
    assert.equal(traced.output, 'echo traced\n+ echo traced\ntraced', 'no line of the hook, no nonce');
    const failed = await send('false');
    assert.equal(failed.exitCode, 1);
    assert.equal(failed.output, 'false\n+ false');
    await send('set +x; set -u');
    const strict = await send('unset PS0; echo strict');
    assert.equal(strict.output, 'unset PS0; echo strict\nstrict', 'no "unbound variable" at the prompt');
    assert.equal((await send('(exit 4)')).exitCode, 4);
    assert.equal((await send('set +u')).waitReason, 'prompt');
  });

  it('shopt -u promptvars: nothing of the marks shows, and prompts and statuses are still found', async () => {
    // PS1 and PS0 are no longer expanded: the marks' text reaches the terminal as it is written.
    await send('shopt -u promptvars');
    const echoed = await send('echo plain');
    assert.equal(echoed.output, 'echo plain\nplain');
    assert.equal((await send('false')).exitCode, 1);
    const asked = await send('read -e v');
    assert.equal(asked.waitReason, 'stdin_read');
    assert.equal((await send('given')).waitReason, 'prompt');
    const shown = await send('shopt -s promptvars; echo "v=$v"');
    assert.equal(shown.output, 'shopt -s promptvars; echo "v=$v"\nv=given');
    assert.doesNotMatch(shown.viewport, /__st_|\$\{/);
  });

  it('a prompt framework\'s PROMPT_COMMAND="mine;$PROMPT_COMMAND" does not change the exit status', async () => {
    // The framework's function runs first in slot 0 and does not keep $? (starship, direnv put theirs there).
    await send('_frame() { PS1="[frame] \\W\\$ "; }; PROMPT_COMMAND="_frame;${PROMPT_COMMAND}"');
    const failed = await send('false');
    assert.equal(failed.waitReason, 'prompt');
    assert.equal(failed.exitCode, 1, 'the status of false, not of _frame');
    assert.equal((await send('(exit 7)')).exitCode, 7);
    assert.equal((await send('true')).exitCode, 0);
    assert.match((await send('echo framed')).viewport, /\[frame\] \S+\$\s*$/);
  });
});

describe('a prompt the user made read-only', () => {
  const { send } = useHub('read-only');

  it('readonly PS0 and PS1: the hook cannot mark them, and exit statuses still come', async () => {
    // Assigning a read-only variable aborts the function doing it: the hook marks the status first and
    // leaves a read-only prompt as it is.
    await send('readonly PS0=""');
    assert.equal((await send('(exit 3)')).exitCode, 3);
    assert.equal((await send('read -e v')).waitReason, 'stdin_read');
    assert.equal((await send('given')).exitCode, 0);
    await send('readonly PS1="ro$ "');
    const failed = await send('false');
    assert.equal(failed.waitReason, 'prompt');
    assert.equal(failed.exitCode, 1);
    assert.equal(failed.promptEvidence, 'kernel');
    const shown = await send('echo "v=$v"');
    assert.equal(shown.output, 'echo "v=$v"\nv=given');
    assert.equal(shown.exitCode, 0);
    assert.doesNotMatch(shown.viewport, /readonly variable/);
  });
});

describe("bash's job notices", () => {
  const { send } = useHub('notices');

  // bash prints them after PROMPT_COMMAND (the exit-status mark) and before PS1: they are what the
  // command line's result has to carry, and the prompt, however many lines, is not.
  it('a job that ended or stopped meanwhile is reported with the next command, a prompt of any size left out', async () => {
    const jobPid = (r: SendResult): number => Number(/^\[1\] (\d+)$/m.exec(r.output)?.[1]);
    // bash reaps a job as it ends (its SIGCHLD handler) and says so before its next prompt.
    const endedJob = async (ps1: string, line: string): Promise<SendResult> => {
      await send(`PS1='${ps1}'`);
      const job = jobPid(await send('sleep 0.2 &'));
      await waitFor(() => !existsSync(`/proc/${job}`), 'the job reaped');
      return send(line);
    };
    const plain = await endedJob(String.raw`\w\$ `, 'echo next');
    assert.equal(plain.exitCode, 0);
    assert.match(plain.output, /^echo next\nnext\n\[1\]\+ +Done +sleep 0\.2$/);
    const tall = await endedJob(String.raw`\n[\w]\n> `, 'echo tall');
    assert.match(tall.output, /^echo tall\ntall\n\[1\]\+ +Done +sleep 0\.2$/, 'no line of the prompt');
    // An empty prompt: its start and end marks stand at one place.
    const empty = await endedJob('', 'echo empty');
    assert.match(empty.output, /^echo empty\nempty\n\[1\]\+ +Done +sleep 0\.2$/);

    // cat stops on SIGTTIN as it reads the terminal from the background.
    await send(String.raw`PS1='\n[\w]\n> '`);
    const started = await send('cat &');
    const reader = jobPid(started);
    await waitFor(() => /\) T /.test(readFileSync(`/proc/${reader}/stat`, 'utf8')), 'cat stopped');
    const stopped = await send('true');
    // Said once: with the next line, or with `cat &` itself when cat stopped before bash's prompt.
    assert.match(stopped.output, /^true(\n\n?\[1\]\+ +Stopped +cat)?$/);
    assert.equal(`${started.output}\n${stopped.output}`.match(/^\[1\]\+ +Stopped +cat$/gm)?.length, 1);
    // Last: bash may leave a stopped job it killed unreaped for a while, and say so with any later line.
    await send('kill -9 %1');
  });
});

describe("readline's mode string", () => {
  const { send } = useHub('mode-string');

  it('show-mode-in-prompt: readline draws (ins) or @ in front of PS1, after the status; it is the prompt, not output', async () => {
    await send('set -o vi; bind "set show-mode-in-prompt on"');
    assert.equal((await send('echo hi')).output, 'echo hi\nhi');
    assert.equal((await send('printf abc')).output, 'printf abc\nabc', 'output without a final newline stays');
    const job = await send('sleep 0.2 & sleep 0.5');
    assert.match(job.output, /\n\[1\]\+ +Done +sleep 0\.2$/, 'a job notice stays');
    // emacs mode's string is `@`; with two lines of PS1 it stands on the last one.
    await send(String.raw`set -o emacs; PS1='top\nend$ '`);
    assert.equal((await send('echo two-lines')).output, 'echo two-lines\ntwo-lines');
    assert.equal((await send('printf xyz')).output, 'printf xyz\nxyz');
  });
});

describe('the shell replaced by another program', () => {
  const { send } = useHub('exec-other');

  it('exec python3: its REPL is a wait of python3, not a prompt found from the kernel', async () => {
    const started = await send('exec python3 -q');
    assert.equal(started.waitReason, 'stdin_read', JSON.stringify(started));
    assert.equal(started.inputWait?.command, 'python3');
    const answered = await send('print(6 * 7)');
    assert.equal(answered.waitReason, 'stdin_read');
    assert.match(answered.output, /^print\(6 \* 7\)\n42\n>>> $/);
    assert.equal((await send('exit()')).waitReason, 'session_exit');
  });
});

describe('a host that names no locale', () => {
  const withoutLocale = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(LANG|LC_ALL|LC_CTYPE)$/.test(name)));
  const { send } = useHub('no-locale', {}, undefined, withoutLocale);

  it('the shell gets a UTF-8 one: readline takes é as text, not as Meta keys', async () => {
    assert.match((await send('locale charmap')).output, /\nUTF-8$/);
    assert.equal((await send('read -e x')).waitReason, 'stdin_read');
    assert.equal((await send('ü é 日本')).waitReason, 'prompt');
    assert.equal((await send('printf "[%s]\\n" "$x"')).output.split('\n')[1], '[ü é 日本]');
  });
});

describe('the shell without line editing', () => {
  const { send } = useHub('unedited');

  it('set +o emacs: bash reads command lines in read(), like its read builtin; prompts and statuses are still found', async () => {
    // With neither emacs nor vi mode bash takes each command line from the terminal's own line
    // discipline, asleep in read(); only the prompt mark before it says it is no `read`.
    assert.equal((await send('set +o emacs')).waitReason, 'prompt');
    const failed = await send('echo a; (exit 4)');
    assert.equal(failed.waitReason, 'prompt', JSON.stringify(failed));
    assert.equal(failed.exitCode, 4);
    assert.equal(failed.output, 'echo a; (exit 4)\na');
    const read = await send('read x');
    assert.equal(read.waitReason, 'stdin_read');
    assert.equal(read.inputWait?.command, 'bash');
    assert.equal((await send('v')).exitCode, 0);
    const asked = await send(`python3 -c 'print(input("q? "))'`);
    assert.equal(asked.waitReason, 'stdin_read');
    assert.equal(asked.inputWait?.command, 'python3');
    const answered = await send('ans');
    assert.equal(answered.waitReason, 'prompt');
    assert.equal(answered.output, 'ans\nans');
    assert.equal((await send('set -o emacs; echo "x=$x"')).output, 'set -o emacs; echo "x=$x"\nx=v');
    assert.equal((await send('false')).exitCode, 1);
  });
});

describe("the shell's own stdout or stderr sent elsewhere", () => {
  const { send, hub } = useHub('redirected');

  it('stderr sent to a file: no prompt or echo reaches the terminal, the status marks do', async () => {
    // readline draws the prompt and echoes the line on stderr; the hook's status mark goes to stdout.
    const log = `/tmp/st-stderr-${process.pid}.log`;
    try {
      assert.equal((await send(`exec 2>${log}`)).waitReason, 'prompt');
      const silent = await send('false', true, 5000);
      assert.equal(silent.waitReason, 'prompt', JSON.stringify(silent));
      assert.equal(silent.exitCode, 1);
      const printed = await send('echo out; ls /no-such-path', true, 5000);
      assert.equal(printed.exitCode, 2);
      assert.equal(printed.output, 'out');
      const read = await send('read v', true, 5000);
      assert.equal(read.waitReason, 'stdin_read');
      assert.equal((await send('given', true, 5000)).waitReason, 'prompt');
      assert.equal((await send('exec 2>/dev/tty; echo "v=$v"')).output, 'v=given');
      assert.match(readFileSync(log, 'utf8'), /false\n[\s\S]*No such file/);
    } finally {
      rmSync(log, { force: true });
    }
  });

  it("stdout through a pipe: the output and status that come after the prompt are still the command line's", async () => {
    // `exec > >(tee log)` logs stdout: the hook's status mark goes through the pipe behind the command's
    // output, while readline draws the prompt on stderr at once. This relay passes each chunk on 30 ms
    // late, as a loaded machine can run tee late.
    const relay = 'python3 -c \'import os,time;[(time.sleep(0.03),os.write(1,d)) for d in iter(lambda:os.read(0,4096),b"")]\'';
    await send(`exec > >(${relay})`, true, 5000);
    // Once python3 has started, the relay passes output on.
    await send('echo relay-$((40 + 2))', true, 5000);
    await waitFor(async () => /relay-42/.test((await runRead(hub().hub, 'redirected', {})).viewport), 'the relay started');
    // The prompt bash drew before that output came is not output: the screen shows `dir# piped-1`.
    for (let i = 1; i <= 3; i++) {
      const r = await send(`echo piped-${i}; (exit ${i})`, true, 5000);
      assert.equal(r.exitCode, i, JSON.stringify(r));
      assert.equal(r.output, `echo piped-${i}; (exit ${i})\npiped-${i}`);
    }
    assert.equal((await send("printf 'no newline'", true, 5000)).output, "printf 'no newline'\nno newline");
    await send("PS1='\\n[two rows]\\n> '", true, 5000);
    const twoRows = await send('seq 2', true, 5000);
    assert.equal(twoRows.output, 'seq 2\n1\n2', JSON.stringify(twoRows));
    const plain = await send('echo last', true, 5000);
    assert.equal(plain.exitCode, 0, JSON.stringify(plain));
    const plainStatus = await send('(exit 4)', true, 5000);
    assert.equal(plainStatus.exitCode, 4, JSON.stringify(plainStatus));
  });

  it('stdout to a file or /dev/null: the status still comes, and the file gets no mark', async () => {
    const log = `/tmp/st-stdout-${process.pid}.log`;
    try {
      await send(`exec >${log}`, true, 5000);
      const unseen = await send('echo unseen; false', true, 5000);
      assert.equal(unseen.waitReason, 'prompt');
      assert.equal(unseen.exitCode, 1, JSON.stringify(unseen));
      assert.equal(unseen.output, 'echo unseen; false');
      assert.equal((await send('(exit 3)', true, 5000)).exitCode, 3);
      await send('exec >/dev/null 2>&1', true, 5000);
      // Neither stdout nor stderr is the terminal: no prompt is drawn, the kernel finds it, the status comes.
      const both = await send('ls /no-such-path', true, 5000);
      assert.equal(both.waitReason, 'prompt', JSON.stringify(both));
      assert.equal(both.exitCode, 2, JSON.stringify(both));
      assert.equal((await send('exec >/dev/tty 2>&1; echo back')).output, 'back');
      assert.equal(readFileSync(log, 'utf8'), 'unseen\n');
    } finally {
      rmSync(log, { force: true });
    }
  });
});

describe('class 2: the prompt is found however the shell changes', () => {
  const { send, hub } = useHub('changes');

  it('PS1 and PROMPT_COMMAND set together keep the prompt and the exit status', async () => {
    const set = await send(`PS1='custom> '; PROMPT_COMMAND='printf ""'`);
    assert.equal(set.waitReason, 'prompt');
    const r = await send('false');
    assert.equal(r.waitReason, 'prompt');
    assert.equal(r.exitCode, 1);
    assert.match((await send('echo still')).output, /^echo still\nstill$/);
  });

  it('a PROMPT_COMMAND array replaced or unset heals: exit statuses keep coming', async () => {
    assert.equal((await send('PROMPT_COMMAND=(true)')).waitReason, 'prompt');
    assert.equal((await send('false')).exitCode, 1);
    assert.equal((await send('unset PROMPT_COMMAND')).waitReason, 'prompt');
    assert.equal((await send('(exit 4)')).exitCode, 4);
  });

  it('with the hook removed altogether, bash idle at its prompt is found from the kernel, without an exit status', async () => {
    const r = await send('unset PROMPT_COMMAND PS0; PS1="plain$ "');
    assert.equal(r.waitReason, 'prompt');
    const next = await send('echo from-kernel');
    assert.equal(next.waitReason, 'prompt');
    assert.equal(next.promptEvidence, 'kernel');
    assert.equal(next.exitCode, undefined);
    assert.equal(next.output, 'echo from-kernel\nfrom-kernel');
    const partial = await send('printf tail');
    assert.equal(partial.output, 'printf tail\ntail');
  });

  it('without the hook, a person typing at the prompt keeps the input until Enter', async () => {
    const owner = hub().hub.acquire('changes');
    const lease = await owner.beginHuman('echo typed-by-');
    await lease.granted;
    let settled = false;
    void lease.result.then(() => (settled = true));
    await lease.input('a-');
    await sleep(400); // far past the quiet an unmarked prompt needs
    await lease.input('person');
    await sleep(400);
    assert.equal(settled, false, 'the half-typed line did not end the lease');
    await lease.input('\r');
    const result = await lease.result;
    assert.equal(result.waitReason, 'prompt');
    assert.match((await send('echo next')).output, /^echo next\nnext$/);
  });

  it('a person typing at a marked prompt keeps the lease, and no program is said to wait', async () => {
    const owner = hub().hub.acquire('person-typing');
    await runSend(hub().hub, 'person-typing', { text: 'true' });
    const lease = await owner.beginHuman('echo half-');
    await lease.granted;
    let settled = false;
    void lease.result.then(() => (settled = true));
    await lease.input('typed');
    await sleep(400);
    assert.equal(settled, false, 'the half-typed line did not end the lease');
    assert.equal(owner.state().inputWait, null, 'bash at its prompt with a line being typed is not a program waiting');
    await lease.input('\r');
    assert.equal((await lease.result).waitReason, 'prompt');
    assert.match((await runSend(hub().hub, 'person-typing', { text: 'echo next' })).output, /^echo next\nnext$/);
  });

  it('exec bash: the new shell is found at its prompt, its hook restored unseen, and the queue keeps working', async () => {
    const r = await send('exec bash');
    assert.equal(r.waitReason, 'prompt');
    assert.equal(r.exitCode, undefined, 'the exec has no exit status of its own');
    assert.doesNotMatch(r.output, /shared-terminal-restore/, 'the restore line is not part of the output');
    const failed = await send('false');
    assert.equal(failed.waitReason, 'prompt');
    assert.equal(failed.exitCode, 1, 'exit statuses are back: the hook was restored in the new bash');
    assert.equal(failed.promptEvidence, undefined);
    for (const word of ['one', 'two']) {
      const next = await send(`echo ${word}`);
      assert.equal(next.waitReason, 'prompt');
      assert.match(next.output, new RegExp(`^echo ${word}\\n${word}$`));
      assert.equal(next.queueStatus, 'ready');
    }
    const read = await send("read -e -p 'after exec? ' v");
    assert.equal(read.waitReason, 'stdin_read', 'read -e in the new bash is still a wait');
    await send('v');
    const screen = await runRead(hub().hub, 'changes', {});
    assert.doesNotMatch(screen.text, /shared-terminal-restore/, 'the restore line was erased from the screen');
  });
});

describe('class 3: every input wait is seen, wherever the reader is', () => {
  const { send } = useHub('waits');

  it('read -t 10 (a timed select) is a wait of the shell; its answer ends it', async () => {
    const r = await send("read -t 10 -p 'timed? ' x");
    assert.equal(r.waitReason, 'stdin_read');
    assert.match(r.output, /timed\? $/);
    const done = await send('yes');
    assert.equal(done.waitReason, 'prompt');
    assert.match((await send('echo "[$x]"')).output, /\[yes\]$/);
  });

  it('read -e (readline inside a command) is a wait, not the prompt', async () => {
    const r = await send("read -e -p 'edit? ' x");
    assert.equal(r.waitReason, 'stdin_read');
    const done = await send('typed');
    assert.equal(done.waitReason, 'prompt');
    assert.match((await send('echo "[$x]"')).output, /\[typed\]$/);
  });

  it('read -s -t 20: a timed secret wait keeps its secret flag', async () => {
    const r = await send("read -s -t 20 -p 'pin: ' pin");
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.secret, true);
    await send('4321');
  });

  it('a short optional read (read -t 0.3) ends by itself and is not reported as a wait', async () => {
    const r = await send('read -t 0.3 -n 1 key; echo "after [$key]"');
    assert.equal(r.waitReason, 'prompt');
    assert.match(r.output, /after \[\]$/);
  });

  it('gpg asking a passphrase through pinentry (started by gpg-agent, outside the job) is a secret wait', async () => {
    requirePrograms('gpg', 'gpg-agent', 'pinentry-curses', 'gpgconf');
    await send(
      'export GNUPGHOME="$PWD/gnupg" GPG_TTY="$(tty)"; mkdir -m 700 gnupg; echo pinentry-program "$(command -v pinentry-curses)" > gnupg/gpg-agent.conf; echo secret > s.txt',
    );
    try {
      const ask = await send('gpg --pinentry-mode ask -c s.txt');
      assert.equal(ask.waitReason, 'stdin_read');
      assert.equal(ask.inputWait?.secret, true);
      assert.match(ask.inputWait?.command ?? '', /pinentry/);
      const again = await send('Correct-Horse-Battery-99!');
      assert.equal(again.waitReason, 'stdin_read');
      assert.equal(again.inputWait?.secret, true);
      const done = await send('Correct-Horse-Battery-99!');
      assert.equal(done.waitReason, 'prompt');
      assert.equal(done.exitCode, 0);
      assert.match((await send('ls s.txt.gpg')).output, /s\.txt\.gpg$/);
    } finally {
      await send('gpgconf --kill gpg-agent');
    }
  });

  it('python3 asking through input() on a REPL-free script is a wait; its answer ends it', async () => {
    const r = await send(`python3 -c "print('got', input('value? '))"`);
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal((await send('42')).waitReason, 'prompt');
  });

  it('sqlite3 at its own prompt is a wait', async () => {
    requirePrograms('sqlite3');
    const r = await send('sqlite3');
    assert.equal(r.waitReason, 'stdin_read');
    const q = await send('select 6*7;');
    assert.equal(q.waitReason, 'stdin_read');
    assert.match(q.output, /42/);
    assert.equal((await send('.quit')).waitReason, 'prompt');
  });

  it('top and less read keys: they wait', async () => {
    requirePrograms('top', 'less');
    const top = await send('top -d 2');
    assert.equal(top.waitReason, 'stdin_read');
    assert.equal(top.inputWait?.command, 'top');
    assert.equal((await send('q', false)).waitReason, 'prompt');
    await send('seq 1 500 > lines.txt');
    const less = await send('less lines.txt');
    assert.equal(less.waitReason, 'stdin_read');
    assert.equal((await send('q', false)).waitReason, 'prompt');
  });

  it("more's next page, written over its own --More-- line, is output from that line's first column", async () => {
    requirePrograms('more');
    await send("seq -f 'line-%04g-abcdefghijklmnop' 1 300 > more.txt");
    assert.equal((await send('more more.txt')).waitReason, 'stdin_read');
    const page = await send(' ', false);
    assert.equal(page.waitReason, 'stdin_read');
    const first = page.output.split('\n')[0];
    assert.match(first ?? '', /^line-\d{4}-abcdefghijklmnop$/, `the first line whole: ${JSON.stringify(first)}`);
    assert.equal((await send('q', false)).waitReason, 'prompt');
  });
});

describe('class 3: confirmation and passphrase prompts of real tools', () => {
  const { send } = useHub('prompts');

  it('rm -i asks, and the answer ends it', async () => {
    const ask = await send('touch doomed; rm -i doomed');
    assert.equal(ask.waitReason, 'stdin_read');
    assert.equal(ask.inputWait?.command, 'rm');
    assert.equal(ask.inputWait?.secret, false);
    assert.equal((await send('y')).waitReason, 'prompt');
  });

  it('ssh-keygen and openssl ask passphrases as secrets, twice', async () => {
    requirePrograms('ssh-keygen', 'openssl');
    for (const [command, name] of [
      ['ssh-keygen -q -t ed25519 -f ./key', 'ssh-keygen'],
      ['openssl passwd -1', 'openssl'],
    ] as const) {
      const first = await send(command);
      assert.equal(first.waitReason, 'stdin_read', command);
      assert.equal(first.inputWait?.command, name);
      assert.equal(first.inputWait?.secret, true);
      const second = await send('a-long-pass-phrase');
      assert.equal(second.waitReason, 'stdin_read');
      assert.equal(second.inputWait?.secret, true);
      const done = await send('a-long-pass-phrase');
      assert.equal(done.waitReason, 'prompt', command);
      assert.equal(done.exitCode, 0);
      assert.doesNotMatch(done.output, /a-long-pass-phrase/);
    }
  });

  it('git commit opens the editor (a wait); :wq with a message ends at the prompt', async () => {
    requirePrograms('git', 'vim');
    const open = await send(
      'git init -q repo && cd repo && GIT_EDITOR="vim -N -u NONE -i NONE" git -c user.name=t -c user.email=t@example.com commit -q --allow-empty',
    );
    assert.equal(open.waitReason, 'stdin_read');
    const saved = await send('ifirst commit\x1b:wq');
    assert.equal(saved.waitReason, 'prompt');
    assert.equal(saved.exitCode, 0);
    assert.match((await send('git log --format=%s')).output, /first commit$/);
  });
});

describe('class 3: a program that redraws and never reads is not waiting', () => {
  const { send } = useHub('watch', { operationTimeoutMs: 2500 });

  it('watch runs until the deadline and is interrupted; the screen it showed then is its output', async () => {
    requirePrograms('watch');
    const r = await send('echo before; watch -n 0.2 "echo tick-$((6 * 7))"');
    assert.equal(r.waitReason, 'timeout');
    // The interrupt takes watch off its screen; what it showed goes after what came before it.
    const lines = r.output.split('\n');
    assert.equal(lines[0], 'echo before; watch -n 0.2 "echo tick-$((6 * 7))"');
    assert.equal(lines[1], 'before');
    assert.match(lines[2] ?? '', /^Every 0\.2s: echo tick-/);
    assert.ok(lines.includes('tick-42'), r.output);
    const after = await send('echo after');
    assert.equal(after.waitReason, 'prompt');
    assert.equal(after.output, 'echo after\nafter');
  });
});

describe('class 4: no false waits', () => {
  const { send, hub } = useHub('false-waits');

  it('vim after :wq (it asks the terminal its colours while exiting) returns at the prompt', async () => {
    requirePrograms('vim');
    const open = await send('vim -N -u NONE -i NONE note.txt');
    assert.equal(open.waitReason, 'stdin_read');
    // vim paints its rows to the last column: the spaces it writes say nothing and are left out.
    const rows = [...open.output.split('\n'), ...open.viewport.split('\n')];
    assert.deepEqual(
      rows.filter((row) => row.endsWith(' ')),
      [],
    );
    assert.ok(rows.some((row) => row === '~'));
    const written = await send('ihello from vim\x1b:wq');
    assert.equal(written.waitReason, 'prompt');
    assert.equal(written.exitCode, 0);
    assert.equal(written.output, '');
    assert.match((await send('cat note.txt')).output, /hello from vim$/);
  });

  it('vim killed leaves the alternate screen in front: each later output still runs from its command to its prompt', async () => {
    requirePrograms('vim');
    assert.equal((await send('vim -N -u NONE -i NONE -n killed.txt')).waitReason, 'stdin_read');
    const killed = await runSignal(hub().hub, 'false-waits', { signal: 'SIGKILL' });
    assert.equal(killed.waitReason, 'prompt', 'the wait of the killed vim does not count');
    assert.equal(killed.output, 'Killed');
    const echo = await send('echo hi');
    assert.equal(echo.output, 'echo hi\nhi', 'not the whole screen vim left');
    assert.equal((await send('seq 1 60 | tail -n 3')).output, 'seq 1 60 | tail -n 3\n58\n59\n60');
    assert.equal((await send("printf 'a\\nb'")).output, "printf 'a\\nb'\na\nb", 'the end cut where the prompt began');
    // More than a screen: the start scrolled off a screen that keeps no history.
    const long = await send('seq 1 100');
    assert.match(long.output, /\n99\n100$/);
    assert.doesNotMatch(long.output, /seq 1 100|tmp#|\$ $/);
    assert.equal(long.truncated, true, 'the rows scrolled off are said to be lost');
    assert.equal((await send('echo after-long')).output, 'echo after-long\nafter-long');
    // A program that enters the alternate screen and leaves it to bash: its text there is its output.
    assert.equal((await send("tput rmcup; printf '\\e[?1049h'; echo entered")).output, 'entered');
    assert.equal((await send('echo there')).output, 'echo there\nthere');
    assert.equal((await send('tput rmcup; echo back')).waitReason, 'prompt');
  });

  it('colour queries (OSC 11 and 4) are answered once, by the server, ending as the query ended', async () => {
    // OSC 11 ended by ST is answered with ST (read up to its backslash); OSC 4 ended by BEL with BEL.
    const r = await send(
      `printf '\\033]11;?\\033\\\\'; IFS= read -rs -d '\\' -t 2 bg; printf '\\033]4;1;?\\007'; IFS= read -rs -d $'\\a' -t 2 c1; ` +
        `extra=; IFS= read -rs -t 0.3 -n 1 extra; echo; echo "bg=\${bg:2:16} c1=\${c1:2:30} extra=[\${extra}]"`,
    );
    assert.equal(r.waitReason, 'prompt');
    assert.match(r.output, /bg=11;rgb:[0-9a-f]{4}\/[0-9a-f]{4} c1=4;1;rgb:[0-9a-f]{4}\/[0-9a-f]{4}\/[0-9a-f]{4} extra=\[\]$/);
  });

  it('script: the command inside runs to its end before the send returns', async () => {
    requirePrograms('script');
    const open = await send('script -q /dev/null');
    assert.equal(open.waitReason, 'stdin_read');
    assert.equal(open.inputWait?.relay, 'script');
    const inner = await send('sleep 1; echo inner-done');
    assert.equal(inner.waitReason, 'stdin_read');
    assert.match(inner.output, /inner-done/);
    const question = await send("read -p 'inside? ' v");
    assert.equal(question.waitReason, 'stdin_read');
    assert.match(question.output, /inside\? $/);
    await send('ok');
    assert.equal((await send('exit')).waitReason, 'prompt');
  });

  it('a relay passes interrupts in: a deadline or SIGINT stops what runs inside tmux or script, and the relay stays', async () => {
    requirePrograms('tmux', 'script');
    // Both read their input raw: a kill would hit the relay itself (tmux's client ignores SIGINT), while
    // a person's Ctrl-C goes through to the terminal inside.
    assert.equal((await send(`tmux -L shared-terminal-relay-${process.pid} -f /dev/null new-session`)).waitReason, 'stdin_read');
    try {
      const late = await send('sleep 100', true, 1500);
      assert.equal(late.waitReason, 'timeout', JSON.stringify(late));
      assert.ok(late.inputWait?.relay, 'back at the prompt inside tmux');
      assert.equal(late.inputWait?.command, 'bash');
      assert.match((await send('echo in-$((6 * 7))')).output, /in-42/);
      assert.equal((await send('python3 -q')).inputWait?.command, 'python3');
      const stopped = await runSignal(hub().hub, 'false-waits', { signal: 'SIGINT' });
      assert.match(stopped.output, /KeyboardInterrupt/);
      assert.equal(stopped.inputWait?.command, 'python3', JSON.stringify(stopped));
      assert.equal((await send('exit()')).inputWait?.command, 'bash');
    } finally {
      await send('exit');
      execFileSync('bash', ['-c', `tmux -L shared-terminal-relay-${process.pid} kill-server 2>/dev/null || true`]);
    }
    assert.equal((await send('script -q /dev/null')).inputWait?.relay, 'script');
    const late = await send('sleep 100', true, 1500);
    assert.equal(late.waitReason, 'timeout', JSON.stringify(late));
    assert.equal(late.inputWait?.relay, 'script');
    assert.equal((await send('exit')).waitReason, 'prompt');
  });

  it('tmux: the command inside runs to its end before the send returns', async () => {
    requirePrograms('tmux');
    const open = await send('tmux -L shared-terminal-test -f /dev/null new-session');
    try {
      assert.equal(open.waitReason, 'stdin_read');
      assert.ok(open.inputWait?.relay, 'the wait names the relay');
      const inner = await send('sleep 1; echo inner-done');
      assert.equal(inner.waitReason, 'stdin_read');
      assert.match(inner.output, /inner-done/);
    } finally {
      await send('exit');
      execFileSync('bash', ['-c', 'tmux -L shared-terminal-test kill-server 2>/dev/null || true']);
    }
  });
});

describe('class 4: a program reading its own /dev/tty in another terminal is no reader of this one', () => {
  const { hub } = useHub('own-tty');

  it('while the other terminal waits on /dev/tty, a sleep here runs to its end', async () => {
    // less, vim and pinentry read /dev/tty: that names their own terminal, not every terminal.
    const other = await runSend(hub().hub, 'own-tty-other', { text: 'read -r x < /dev/tty', submit: true });
    assert.equal(other.waitReason, 'stdin_read');
    const here = await runSend(hub().hub, 'own-tty-here', { text: 'sleep 1.5; echo slept', submit: true });
    assert.equal(here.waitReason, 'prompt');
    assert.match(here.output, /\nslept$/);
    await runSend(hub().hub, 'own-tty-other', { text: 'done', submit: true });
  });
});

describe('class 4: an event loop polling a socket beside the terminal', () => {
  const { send } = useHub('event-loops');
  // asyncio wakes its selector through a socketpair it holds both ends of (ipython and every
  // prompt_toolkit REPL poll one beside the terminal): a wait of its own, not a relay.
  const asyncioReader = [
    'import asyncio, sys',
    'async def main():',
    '    loop = asyncio.get_running_loop(); reader = asyncio.StreamReader()',
    '    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)',
    "    print('line', (await reader.readline()).decode().strip())",
    'asyncio.run(main())',
  ].join('\n');
  // The same poll, but the socketpair's other end is also held by a child that prints what comes
  // through it: input goes elsewhere, a relay.
  const childRelay = [
    'import os, select, socket, sys',
    'ours, theirs = socket.socketpair()',
    'child = os.fork()',
    'if child == 0:',
    "    print('child got', theirs.recv(100).decode().strip(), flush=True); os._exit(0)",
    'while True:',
    '    ready, _, _ = select.select([sys.stdin, ours], [], [])',
    '    if sys.stdin in ready:',
    '        ours.send(sys.stdin.readline().encode()); os.waitpid(child, 0); break',
  ].join('\n');

  // A launcher hands both ends to two children: one polls the terminal and its end (keeping the other
  // end too), its sibling prints what comes through.
  const siblingRelay = [
    'import os, select, socket, sys',
    'ours, theirs = socket.socketpair()',
    'listener = os.fork()',
    'if listener == 0:',
    "    print('sibling got', theirs.recv(100).decode().strip(), flush=True); os._exit(0)",
    'reader = os.fork()',
    'if reader == 0:',
    '    ready, _, _ = select.select([sys.stdin, ours], [], [])',
    '    ours.send(sys.stdin.readline().encode()); os._exit(0)',
    'os.waitpid(reader, 0); os.waitpid(listener, 0)',
  ].join('\n');

  /** `script` run as `python3 <file>`: its wait (a relay or not), then `hello` answered and `answered` seen. */
  async function pythonWait(file: string, script: string, relay: string | undefined, answered: RegExp): Promise<SendResult> {
    requirePrograms('python3', 'ss');
    await send(`cat > ${file} <<'EOF'\n${script}\nEOF`);
    const r = await send(`python3 ${file}`);
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.command, 'python3');
    assert.equal(r.inputWait?.relay, relay, `relay ${relay}: ${JSON.stringify(r.inputWait)}`);
    const done = await send('hello');
    assert.equal(done.waitReason, 'prompt');
    assert.match(done.output, answered);
    return r;
  }

  it('asyncio reading stdin is a wait of its own, not a relay', async () => {
    const r = await pythonWait('reader.py', asyncioReader, undefined, /line hello$/);
    assert.equal(r.inputWait?.uncertain, undefined);
  });

  it('a socketpair shared with a child is still a way out: a relay', async () => {
    await pythonWait('relay.py', childRelay, 'python3', /child got hello$/);
  });

  it('a socketpair a sibling inherited is a way out too: a relay', async () => {
    await pythonWait('sibling.py', siblingRelay, 'python3', /sibling got hello$/);
  });
});

describe('class 4: relays whose inner terminal belongs to a server (screen) or a script (expect)', () => {
  const { send } = useHub('relays');

  it('screen: the command inside runs to its end, and a secret prompt inside is secret', async () => {
    requirePrograms('screen');
    const open = await send('screen -S shared-terminal-test');
    try {
      assert.equal(open.waitReason, 'stdin_read');
      assert.equal(open.inputWait?.relay, 'screen');
      const inner = await send('sleep 1; echo inner-done');
      assert.equal(inner.waitReason, 'stdin_read');
      assert.match(inner.output, /inner-done/);
      const secret = await send("read -s -p 'pin: ' pin");
      assert.equal(secret.waitReason, 'stdin_read');
      assert.equal(secret.inputWait?.secret, true);
      const answered = await send('1234');
      assert.equal(answered.inputWait?.secret, false);
    } finally {
      assert.equal((await send('exit')).waitReason, 'prompt');
    }
  });

  it('expect interact: the command inside runs to its end', async () => {
    requirePrograms('expect');
    const open = await send(`expect -c 'spawn bash --norc; interact'`);
    assert.equal(open.waitReason, 'stdin_read');
    assert.equal(open.inputWait?.relay, 'expect');
    const inner = await send('sleep 1; echo via-expect');
    assert.equal(inner.waitReason, 'stdin_read');
    assert.match(inner.output, /via-expect/);
    assert.equal((await send('exit')).waitReason, 'prompt');
  });
});

describe('class 4: a relay to a server started outside this terminal', () => {
  const { send } = useHub('outside-server');

  it('tmux attach to a session started elsewhere: the command inside runs to its end', async () => {
    requirePrograms('tmux');
    // The server is started by the test, not by the terminal: it carries no mark of the terminal's tree
    // and started before the shell; it reads the terminal through the descriptor its client passed it.
    const env = { ...process.env };
    delete env['SHARED_TERMINAL_TREE'];
    execFileSync('tmux', ['-L', 'shared-terminal-outside', '-f', '/dev/null', 'new-session', '-d', '-x', '100', '-y', '30'], { env });
    try {
      const attach = await send('tmux -L shared-terminal-outside attach');
      assert.equal(attach.waitReason, 'stdin_read');
      const inner = await send('sleep 1; echo inner-outside');
      assert.equal(inner.waitReason, 'stdin_read');
      assert.match(inner.output, /inner-outside/);
      assert.equal((await send('exit')).waitReason, 'prompt');
    } finally {
      execFileSync('bash', ['-c', 'tmux -L shared-terminal-outside kill-server 2>/dev/null || true']);
    }
  });
});

describe('class 5: a marker counts once', () => {
  const { send } = useHub('once');

  it("the shell's rendered prompt printed before read -e is not the prompt", async () => {
    const r = await send('printf %s "${PS1@P}"; read -e x');
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal((await send('a')).waitReason, 'prompt');
  });

  it("the shell's rendered prompt printed before a plain read is not the prompt", async () => {
    const r = await send('printf %s "${PS1@P}"; read x');
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal((await send('b')).waitReason, 'prompt');
  });

  it('echo "$PS1" does not hand out the marker secret', async () => {
    const r = await send('echo "$PS1"');
    assert.match(r.output, /\$\{__st_n\}/);
    assert.doesNotMatch(r.output, /633;B;[A-Za-z0-9_-]{20,}/);
  });
});

describe("a person's input allowance at the prompt", () => {
  const { hub } = useHub('allowance', { maxInputBytes: 64 });

  it('a line typed at the prompt keeps counting until Enter, however slowly it is typed', async () => {
    await runSend(hub().hub, 'allowance', { text: 'true' });
    const owner = hub().hub.acquire('allowance');
    const lease = await owner.beginHuman('echo ');
    await lease.granted;
    await lease.input('a'.repeat(30));
    await sleep(300); // bash has read every key, and the line is still open
    await assert.rejects(lease.input('b'.repeat(30)), (error: Error & { code?: string }) => error.code === 'input-limit');
    await lease.input('\r');
    assert.equal((await lease.result).waitReason, 'prompt');
  });
});
