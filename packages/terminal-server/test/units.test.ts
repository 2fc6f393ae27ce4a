/**
 * Stateless pieces: config rules, the marker filter at every split, UTF-8 tails, result bounding.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boundResult, ConfigError, DEFAULT_CONFIG, MarkerFilter, parseReadArgs, parseSendArgs, resolveConfig, utf8Length, utf8Tail, type BaseResult } from '../src/index.ts';

describe('config', () => {
  it('an empty config resolves to the documented defaults', () => {
    const config = resolveConfig({}, 'linux');
    assert.deepEqual(
      { ...config, env: undefined, term: undefined, heartbeatIntervalMs: undefined },
      {
        shellPath: '/bin/bash',
        shellArgs: ['--noprofile', '--norc', '-i'],
        rows: 40,
        cols: 160,
        scrollbackLines: 10000,
        scrollbackMaxBytes: 4194304,
        maxToolOutputBytes: 262144,
        maxInputBytes: 65536,
        maxQueuedOperations: 128,
        maxSessions: 32,
        pollIntervalMs: 50,
        operationTimeoutMs: 30000,
        interruptTimeoutMs: 5000,
        disconnectGraceMs: 15000,
        disposeGraceMs: 3000,
        env: undefined,
        term: undefined,
        heartbeatIntervalMs: undefined,
      },
    );
    assert.equal(config.term, 'xterm-256color');
    assert.equal(DEFAULT_CONFIG.rows, 40);
  });

  it('partial configs are defaults plus the given keys', () => {
    const config = resolveConfig({ rows: 24, cols: 80, disconnectGraceMs: 0 }, 'linux');
    assert.equal(config.rows, 24);
    assert.equal(config.cols, 80);
    assert.equal(config.disconnectGraceMs, 0);
    assert.equal(config.scrollbackLines, 10000);
  });

  const bad: Array<[unknown, RegExp]> = [
    [{ rows: 0 }, /config rows: must be a whole number from 2/],
    [{ rows: 1.5 }, /config rows/],
    [{ cols: '160' }, /config cols/],
    [{ maxToolOutputBytes: 1000 }, /config maxToolOutputBytes: must be a whole number from 1024/],
    [{ maxToolOutputBytes: 8192, scrollbackMaxBytes: 4096 }, /maxToolOutputBytes: must not exceed scrollbackMaxBytes \(4096\)/],
    [{ shellPath: '/bin/zsh' }, /config shellPath: only bash is supported/],
    [{ shellPath: '' }, /config shellPath/],
    [{ shellArgs: ['-i', ''] }, /config shellArgs: must be a list of non-empty strings/],
    [{ term: 'x y' }, /config term/],
    [{ env: { 'BAD-NAME': 'x' } }, /config env/],
    [{ rowz: 40 }, /config rowz: unknown setting/],
    [[1, 2], /expected an object/],
  ];
  for (const [input, message] of bad) {
    it(`refuses ${JSON.stringify(input)} naming the key and rule`, () => {
      assert.throws(() => resolveConfig(input, 'linux'), (e: unknown) => e instanceof ConfigError && message.test(e.message));
    });
  }

  it('refuses unsupported platforms', () => {
    assert.throws(() => resolveConfig({}, 'win32'), /Linux and macOS/);
  });
});

describe('marker filter', () => {
  const nonce = 'abcdefghijklmnopqrstuvwx';
  const stream = `out1\x1b]633;D;${nonce};42\x07\x1b]633;B;${nonce}\x07tail\x1b]633;D;forged;0\x07end`;

  it('strips markers split at every position and reports them in order', () => {
    for (let split = 0; split <= stream.length; split++) {
      const filter = new MarkerFilter(nonce);
      const a = filter.push(stream.slice(0, split));
      const b = filter.push(stream.slice(split));
      const text = a.text + b.text + filter.flush();
      assert.equal(text, `out1tail\x1b]633;D;forged;0\x07end`, `split at ${split}`);
      const markers = [...a.markers, ...b.markers.map((m) => ({ ...m, at: m.at + a.text.length }))];
      assert.deepEqual(markers, [
        { kind: 'D', status: 42, at: 4 },
        { kind: 'B', at: 4 },
      ]);
    }
  });

  it('ignores a status above 255 and passes foreign OSC through', () => {
    const filter = new MarkerFilter(nonce);
    const { text, markers } = filter.push(`a\x1b]633;D;${nonce};999\x07b\x1b]0;title\x07`);
    assert.equal(markers.length, 0);
    assert.equal(text, 'ab\x1b]0;title\x07');
  });
});

describe('utf8 and bounding', () => {
  it('utf8Tail never splits a character', () => {
    const text = 'a你🙂b'.repeat(50);
    for (let max = 0; max < 60; max++) {
      const { text: tail } = utf8Tail(text, max);
      assert.ok(utf8Length(tail) <= max);
      assert.ok(text.endsWith(tail));
      assert.ok(!tail.includes('\ufffd'));
      assert.equal(Buffer.from(tail, 'utf8').toString('utf8'), tail);
    }
  });

  const base: BaseResult = {
    generation: 1,
    sequence: 1,
    rows: 40,
    cols: 160,
    viewport: 'v'.repeat(5000),
    cursor: { x: 0, y: 0 },
    status: { kind: 'running' },
    queueStatus: 'ready',
    holder: null,
    pendingCount: 0,
    truncated: false,
  };

  it('boundResult keeps the JSON within the limit, newest suffixes, truncated set', () => {
    const result = boundResult({ ...base, output: '你好"\\\n'.repeat(3000) }, 2048);
    assert.ok(utf8Length(JSON.stringify(result)) <= 2048);
    assert.equal(result.truncated, true);
    assert.ok(result.output.length > 50);
    assert.ok('你好"\\\n'.repeat(3000).endsWith(result.output));
  });

  it('boundResult leaves small results alone', () => {
    const small = { ...base, viewport: 'ok' };
    assert.deepEqual(boundResult(small, 2048), small);
  });

  it('tool arguments are closed and typed', () => {
    assert.deepEqual(parseSendArgs({ text: 'ls' }), { text: 'ls', submit: true });
    assert.throws(() => parseSendArgs({ text: 'ls', cwd: '/' }), /unknown argument "cwd"/);
    assert.throws(() => parseSendArgs({}), /"text" must be a string/);
    assert.deepEqual(parseReadArgs({}), { offset: 0, count: 500 });
    assert.throws(() => parseReadArgs({ count: 0 }), /"count" must be a whole number >= 1/);
  });
});
