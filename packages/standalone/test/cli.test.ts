// The CLI as a process: its one address line, the token, config files, refusals and a clean stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { SendResult } from '@shared-terminal/server';
import { spawn } from 'node:child_process';
import { ADDRESS_LINE, CLI, alive, callTool, runCli, startCli, tempDir, writeConfig } from './helpers/cli.ts';

test('serve prints exactly one stdout line with the address, and a random token per start', async () => {
  const first = await startCli();
  const second = await startCli();
  try {
    assert.match(first.line, ADDRESS_LINE);
    assert.notEqual(first.token, second.token, 'each start draws a new token');
    assert.notEqual(first.port, second.port);
    assert.ok(first.token.length >= 43);
  } finally {
    const exits = await Promise.all([first.stop(), second.stop()]);
    for (const exit of exits) {
      assert.equal(exit.code, 0, `clean exit on SIGTERM; stderr: ${exit.stderr}`);
      assert.equal(exit.stdout.split('\n').filter(Boolean).length, 1, 'nothing but the address line on stdout');
    }
  }
});

test('SHARED_TERMINAL_TOKEN sets the token; a malformed one is refused', async () => {
  const token = 'my-own-token_0123456789';
  const cli = await startCli([], { SHARED_TERMINAL_TOKEN: token });
  try {
    assert.equal(cli.token, token);
    const ok = await fetch(`${cli.base}/api/agents`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
  } finally {
    await cli.stop();
  }
  const bad = await runCli(['serve', '--port', '0'], { SHARED_TERMINAL_TOKEN: 'short' });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /SHARED_TERMINAL_TOKEN must be 16 to 256 characters/);
  assert.equal(bad.stdout, '');
});

test('a config file sets the terminal: the PTY has its rows and columns', async () => {
  const dir = tempDir();
  const cli = await startCli(['--config', writeConfig(dir, { rows: 24, cols: 100 })]);
  rmSync(dir, { recursive: true, force: true }); // read at start only
  try {
    const { status, body } = await callTool<SendResult>(cli, 'geometry', 'shared_terminal_send', { text: 'stty size' });
    assert.equal(status, 200);
    assert.equal(body.rows, 24);
    assert.equal(body.cols, 100);
    assert.match(body.output, /^24 100$/m);
  } finally {
    await cli.stop();
  }
});

test('bad config values are refused with the file, the key and the rule', async () => {
  const dir = tempDir();
  const cases: Array<[unknown, RegExp]> = [
    [{ rows: 1 }, /config\.json: config rows: must be a whole number from 2 to 1000; got 1/],
    [{ shellPath: '/bin/zsh' }, /config shellPath: only bash is supported/],
    [{ maxToolOutputBytes: 9000, scrollbackMaxBytes: 4096 }, /config maxToolOutputBytes: must not exceed scrollbackMaxBytes/],
    [{ row: 40 }, /config row: unknown setting; known settings are shellPath, shellArgs, rows/],
    ['{"rows": 40,', /not valid JSON/],
    [[1, 2], /config \(root\): expected an object of settings/],
  ];
  for (const [config, message] of cases) {
    const exit = await runCli(['serve', '--port', '0', '--config', writeConfig(dir, config)]);
    assert.equal(exit.code, 2, `refused: ${JSON.stringify(config)}`);
    assert.match(exit.stderr, message);
    assert.equal(exit.stdout, '', 'no address line for a refused start');
  }
  const missing = await runCli(['serve', '--port', '0', '--config', `${dir}/nope.json`]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope\.json: cannot read the config file \(ENOENT\)/);
  rmSync(dir, { recursive: true, force: true });
});

test('bad arguments are refused with the usage', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['serve', '--prot', '1'], /Unknown option '--prot'/],
    [['serve', '--port', '99999'], /--port must be a whole number from 0 to 65535/],
    [['serve', 'extra'], /Unexpected argument 'extra'/],
    [['launch'], /unknown command "launch": use "serve" or "mcp"/],
    [['mcp', '--agent', 'no spaces'], /--agent must match \[A-Za-z0-9_-\]\{1,64\}/],
    [['serve', '--agent', 'x'], /Unknown option '--agent'/],
    [['serve', '--port', '0', '--cwd', '/does/not/exist'], /--cwd "\/does\/not\/exist" is not a directory/],
  ];
  for (const [args, message] of cases) {
    const exit = await runCli(args);
    assert.equal(exit.code, 2, args.join(' '));
    assert.match(exit.stderr, message);
  }
  const help = await runCli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /shared-terminal serve \[--host 127\.0\.0\.1\] \[--port 4317\]/);
});

test('a port in use is refused with what to do', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const exit = await runCli(['serve', '--port', String(port)]);
    assert.equal(exit.code, 1);
    assert.match(exit.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use: pass --port 0`));
  } finally {
    blocker.close();
  }
});

test('stopping the CLI ends the shells it started', async () => {
  const cli = await startCli();
  const { body } = await callTool<SendResult>(cli, 'pids', 'shared_terminal_send', { text: 'echo "pid=$$"' });
  const pid = Number(/pid=(\d+)/.exec(body.output)?.[1]);
  assert.ok(pid > 0 && alive(pid), 'the shell runs');
  const exit = await cli.stop();
  assert.equal(exit.code, 0);
  assert.equal(alive(pid), false, 'the shell is gone after the CLI stopped');
});

test('a stop sent the moment the address line is read is a clean stop', async () => {
  // Scripts read the address and may stop the server at once: the signal must find the handler installed.
  const dir = tempDir();
  try {
    const exits = await Promise.all(
      Array.from(
        { length: 6 },
        () =>
          new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
            const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--cwd', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
            child.stdout.on('data', () => child.kill('SIGTERM'));
            child.on('exit', (code, signal) => resolve({ code, signal }));
          }),
      ),
    );
    assert.deepEqual(
      exits,
      exits.map(() => ({ code: 0, signal: null })),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
