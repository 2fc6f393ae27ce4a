/**
 * Stateless pieces: config rules, the marker filter at every split, UTF-8 tails, result bounding.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ForegroundSignalError } from '../src/pty/contract.ts';
import { signalFront, SIGNAL_FRONT_PATIENCE_MS, type SignalFrontParts } from '../src/pty/signal-front.ts';
import { boundResult, rebuildViewport, ConfigError, DEFAULT_CONFIG, resolveConfig, utf8Length, type BaseResult } from '../src/index.ts';
import { compactViewport } from '../src/operations/viewport-compact.ts';
import { MarkerFilter, unfinishedSequenceStart } from '../src/shell/integration.ts';
import { parseReadArgs, parseSendArgs } from '../src/operations/tools.ts';
import { utf8Tail } from '../src/utf8.ts';
import { literalTabs } from '../src/terminal/literal-tabs.ts';
import { SocketPeers, parseUnixPeers } from '../src/pty/socket-peers.ts';
import type { Screen } from '../src/screen/screen.ts';

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
        maxOperationTimeoutMs: 600000,
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
    [{ maxOperationTimeoutMs: 0 }, /config maxOperationTimeoutMs: must be a whole number from 1/],
    [{ operationTimeoutMs: 60000, maxOperationTimeoutMs: 30000 }, /maxOperationTimeoutMs: must be at least operationTimeoutMs \(60000\)/],
    [{ env: { 'BAD-NAME': 'x' } }, /config env/],
    [{ rowz: 40 }, /config rowz: unknown setting/],
    [[1, 2], /expected an object/],
  ];
  for (const [input, message] of bad) {
    it(`refuses ${JSON.stringify(input)} naming the key and rule`, () => {
      assert.throws(
        () => resolveConfig(input, 'linux'),
        (e: unknown) => e instanceof ConfigError && message.test(e.message),
      );
    });
  }

  it('refuses unsupported platforms', () => {
    assert.throws(() => resolveConfig({}, 'win32'), /Linux and macOS/);
  });
});

describe('marker filter', () => {
  const nonce = 'abcdefghijklmnopqrstuvwx';
  const stream = `out1\x1b]633;D;${nonce};42\x07[1]+ Done\x1b]633;A;${nonce}\x07\x1b]633;B;${nonce};7\x07tail\x1b]633;C;${nonce}\x07\x1b]633;D;forged;0\x07end`;

  it('strips markers split at every position and reports them in order', () => {
    for (let split = 0; split <= stream.length; split++) {
      const filter = new MarkerFilter(nonce);
      const a = filter.push(stream.slice(0, split));
      const b = filter.push(stream.slice(split));
      const text = a.text + b.text + filter.flush();
      assert.equal(text, `out1[1]+ Donetail\x1b]633;D;forged;0\x07end`, `split at ${split}`);
      const markers = [...a.markers, ...b.markers.map((m) => ({ ...m, at: m.at + a.text.length }))];
      assert.deepEqual(markers, [
        { kind: 'D', status: 42, at: 4 },
        { kind: 'A', at: 13 },
        { kind: 'B', command: 7, at: 13 },
        { kind: 'C', at: 17 },
      ]);
    }
  });

  it('ends every chunk between escape sequences: an unfinished one waits for its rest (or the flush)', () => {
    const coloured = 'ab\x1b[38;5;208mcd\x1b]0;title\x07ef\x1b(Bgh\x1b7\x1b[0m';
    for (let split = 0; split <= coloured.length; split++) {
      const filter = new MarkerFilter(nonce);
      const a = filter.push(coloured.slice(0, split));
      assert.equal(unfinishedSequenceStart(a.text), -1, `chunk cut at ${split} ends between sequences: ${JSON.stringify(a.text)}`);
      const b = filter.push(coloured.slice(split));
      assert.equal(a.text + b.text + filter.flush(), coloured, `split at ${split}`);
    }
    // Held back only until the flush (the generation flushes once the stream pauses), and never a long tail.
    const lone = new MarkerFilter(nonce);
    assert.equal(lone.push('x\x1b[12').text, 'x');
    assert.equal(lone.holding, true);
    assert.equal(lone.flush(), '\x1b[12');
    const long = `\x1b]0;${'t'.repeat(5000)}`;
    assert.equal(new MarkerFilter(nonce).push(long).text, long);
  });

  it('counts no mark for a status above 255 and passes it and foreign OSC through unchanged', () => {
    const filter = new MarkerFilter(nonce);
    const input = `a\x1b]633;D;${nonce};999\x07b\x1b]0;title\x07`;
    const { text, markers } = filter.push(input);
    assert.equal(markers.length, 0);
    assert.equal(text + filter.flush(), input);
  });

  it('a prompt mark split across chunks arrives with its line, in one chunk', () => {
    const stream = `out\nprompt$ \x1b]633;B;${nonce};7\x07`;
    const markAt = stream.indexOf('\x1b]633;B');
    for (let split = markAt + 1; split < stream.length; split++) {
      const filter = new MarkerFilter(nonce);
      const a = filter.push(stream.slice(0, split));
      const b = filter.push(stream.slice(split));
      assert.equal(a.text, 'out\n', `split at ${split}`);
      assert.deepEqual(a.markers, []);
      assert.equal(b.text, 'prompt$ ');
      assert.deepEqual(b.markers, [{ kind: 'B', command: 7, at: 8 }]);
    }
  });

  it('passes through, as text, a prompt mark without its command number and one of another nonce', () => {
    const filter = new MarkerFilter(nonce);
    const input = `x\x1b]633;B;${nonce}\x07y\x1b]633;B;${'z'.repeat(24)};3\x07`;
    const { text, markers } = filter.push(input);
    assert.equal(markers.length, 0);
    assert.equal(text + filter.flush(), input);
  });

  it('costs linear time on a long run of marker starts', () => {
    const filter = new MarkerFilter(nonce);
    const { text } = filter.push('\x1b]633;'.repeat(200_000));
    assert.equal(text.length + filter.flush().length, '\x1b]633;'.repeat(200_000).length);
  });
});

describe('archived rows', () => {
  it('reading the emulator words gives exactly what the cell API gives, for every attribute and glyph', async () => {
    const { Terminal } = (await import('@xterm/headless')).default;
    const { archiveRow, archiveRowByCells } = await import('../src/screen/row-ansi.ts');
    const term = new Terminal({ cols: 60, rows: 10, scrollback: 1000, allowProposedApi: true });
    const sgr = [
      '1',
      '2',
      '3',
      '4',
      '5',
      '7',
      '8',
      '9',
      '53',
      '31',
      '97',
      '38;5;208',
      '48;5;17',
      '38;2;1;2;3',
      '48;2;250;128;0',
      '44',
      '0',
      '22',
      '39;49',
    ];
    const glyphs = ['a', ' ', '世', '🙂', 'e\u0301', 'Z', '─', '\t'];
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
    let text = '';
    for (let row = 0; row < 400; row++) {
      for (let i = 0; i < 50; i++) text += random(3) === 0 ? `\x1b[${sgr[random(sgr.length)]}m` : glyphs[random(glyphs.length)];
      text += random(4) === 0 ? '\x1b[0m\r\n' : '\r\n';
    }
    await new Promise<void>((resolve) => term.write(text, resolve));
    const buffer = term.buffer.normal;
    const cell = buffer.getNullCell();
    let styled = 0;
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y)!;
      const fast = archiveRow(line, cell);
      const reference = archiveRowByCells(line, cell);
      const shape = (row: typeof fast) => ({
        text: row.text,
        ansi: row.ansi,
        wrapped: row.wrapped,
        cells: row.cells,
        ansiLength: row.ansiLength,
        textLength: row.textLength,
      });
      assert.deepEqual(shape(fast), shape(reference), `row ${y}`);
      assert.equal(fast.ansiLength, fast.ansi?.length ?? 0, `row ${y}: the length known without building the styled form`);
      if (fast.ansi) styled++;
    }
    assert.ok(styled > 300, 'the rows carried attributes');
    term.dispose();
  });

  it('rows with more styles than the style table holds are archived in their styled form, unchanged', async () => {
    const { Terminal } = (await import('@xterm/headless')).default;
    const { archiveRow, archiveRowByCells } = await import('../src/screen/row-ansi.ts');
    const term = new Terminal({ cols: 100, rows: 10, scrollback: 1000, allowProposedApi: true });
    // 24-bit colour per cell: 6,000 distinct styles, more than the table's 4,096.
    let text = '';
    for (let row = 0; row < 60; row++) {
      for (let i = 0; i < 100; i++) {
        const n = row * 100 + i;
        text += `\x1b[38;2;${n & 255};${(n >> 8) & 255};7mx`;
      }
      text += '\x1b[0m\r\n';
    }
    await new Promise<void>((resolve) => term.write(text, resolve));
    const buffer = term.buffer.normal;
    const cell = buffer.getNullCell();
    for (let y = 0; y < 60; y++) {
      const line = buffer.getLine(y)!;
      const fast = archiveRow(line, cell);
      const reference = archiveRowByCells(line, cell);
      assert.equal(fast.ansi, reference.ansi, `row ${y}`);
      assert.equal(fast.text, 'x'.repeat(100));
      assert.equal(fast.ansiLength, reference.ansi!.length);
    }
    term.dispose();
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
    assert.deepEqual(parseSendArgs({ text: 'make', timeoutMs: 120000 }, 600000), { text: 'make', submit: true, timeoutMs: 120000 });
    assert.throws(() => parseSendArgs({ text: 'make', timeoutMs: 0 }, 600000), /"timeoutMs" must be a whole number of milliseconds >= 1/);
    assert.throws(() => parseSendArgs({ text: 'make', timeoutMs: '60s' }, 600000), /"timeoutMs" must be a whole number/);
    assert.throws(() => parseSendArgs({ text: 'make', timeoutMs: 600001 }, 600000), /over this server's maxOperationTimeoutMs \(600000\)/);
    assert.deepEqual(parseReadArgs({}), { offset: 0, count: 500 });
    assert.throws(() => parseReadArgs({ count: 0 }), /"count" must be a whole number >= 1/);
  });
});

describe("tabs typed into bash's line editor", () => {
  it('are quoted (Ctrl-V) but a run that ends a text sent without Enter, which asks for completion', () => {
    assert.equal(literalTabs('echo "a\tb"\r'), 'echo "a\x16\tb"\r');
    assert.equal(literalTabs('\t\tx\r\t'), '\x16\t\x16\tx\r\t');
    assert.equal(literalTabs('git chec\t\t'), 'git chec\t\t');
    assert.equal(literalTabs('a\tb\t'), 'a\x16\tb\t');
    assert.equal(literalTabs('plain\r'), 'plain\r');
  });
});

describe('viewport rows that output holds', () => {
  const prompt = 'user@host:~/project$ ';
  const long = Array.from({ length: 12 }, (_, i) => `line ${i} of what the command printed`);

  it('are left out at a prompt, and the rule in viewportOmitted rebuilds the screen exactly', () => {
    const viewport = ['older row', `${prompt}cmd`, ...long, prompt].join('\n');
    const output = ['cmd', ...long].join('\n');
    const { viewport: compact, omitted } = compactViewport(viewport, output);
    assert.deepEqual(omitted, { row: 2, count: 12 });
    assert.equal(compact, ['older row', `${prompt}cmd`, prompt].join('\n'));
    assert.equal(rebuildViewport(compact, output, omitted), viewport);
  });

  it('are left out when a program waits for input on the last row', () => {
    const viewport = [`${prompt}cmd`, ...long, 'Password: '].join('\n');
    const output = ['cmd', ...long, 'Password: '].join('\n');
    const { viewport: compact, omitted } = compactViewport(viewport, output);
    assert.deepEqual(omitted, { row: 1, count: 13 });
    assert.equal(rebuildViewport(compact, output, omitted), viewport);
  });

  it('stay when they save less than the field costs, differ, or would empty the viewport', () => {
    assert.equal(compactViewport([`${prompt}echo 1`, '1', prompt].join('\n'), 'echo 1\n1').omitted, undefined);
    const wrapped = ['x'.repeat(160), 'x'.repeat(40), prompt].join('\n');
    assert.equal(compactViewport(wrapped, 'x'.repeat(200)).omitted, undefined, 'a wrapped line is not the output line');
    const whole = long.join('\n');
    const { viewport, omitted } = compactViewport(whole, whole);
    assert.equal(omitted?.count, long.length - 1);
    assert.equal(viewport, long[0]);
    assert.equal(rebuildViewport(viewport, whole, omitted), whole);
  });
});

describe('signalling the group in front', () => {
  /** A terminal whose foreground group is read from a script over fake time, and a kill that fails on dead groups. */
  function frontOverTime(script: (t: number) => { front: number | undefined; alive: Set<number> }) {
    let t = 0;
    const kills: Array<{ t: number; pgid: number; signal: string }> = [];
    const parts: SignalFrontParts = {
      readGroup: () => script(t).front,
      killGroup: (pgid, signal) => {
        if (!script(t).alive.has(pgid)) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
        kills.push({ t, pgid, signal });
      },
      pause: async (ms) => {
        t += ms;
      },
      now: () => t,
    };
    return { parts, kills, elapsed: () => t };
  }

  it('a terminal that still names a reaped group for 40 ms: the signal waits and reaches the shell once it takes the terminal back', async () => {
    // Before the fix five immediate reads all saw the dead group and the signal failed with ESRCH.
    const { parts, kills, elapsed } = frontOverTime((t) =>
      t < 40 ? { front: 7001, alive: new Set([100]) } : { front: 100, alive: new Set([100]) },
    );
    assert.equal(await signalFront(parts, 'SIGINT', 100), 100);
    assert.deepEqual(
      kills.map((k) => k.pgid),
      [100],
    );
    assert.ok(elapsed() >= 40 && elapsed() < 80, `waited ${elapsed()} ms`);
  });

  it('a group that ends between the read and the kill: the next group in front gets the signal', async () => {
    let reads = 0;
    const kills: number[] = [];
    const parts: SignalFrontParts = {
      readGroup: () => (++reads === 1 ? 7001 : 7002),
      killGroup: (pgid) => {
        if (pgid === 7001) throw Object.assign(new Error('kill ESRCH'), { code: 'ESRCH' });
        kills.push(pgid);
      },
      pause: async () => {},
      now: () => 0,
    };
    assert.equal(await signalFront(parts, 'SIGTERM', 100), 7002);
    assert.deepEqual(kills, [7002]);
  });

  it('a dead group that stays in front past the patience is a clear error, not a raw ESRCH', async () => {
    const { parts, kills, elapsed } = frontOverTime(() => ({ front: 7001, alive: new Set([100]) }));
    await assert.rejects(signalFront(parts, 'SIGINT', 100), (error: Error) => {
      assert.ok(error instanceof ForegroundSignalError);
      assert.match(error.message, /ended and the shell has not taken the terminal back .* read the terminal/);
      return true;
    });
    assert.equal(kills.length, 0);
    assert.ok(elapsed() >= SIGNAL_FRONT_PATIENCE_MS && elapsed() < SIGNAL_FRONT_PATIENCE_MS + 50);
  });

  it('other kill errors, no foreground process and SIGKILL to the shell fail at once', async () => {
    const eperm: SignalFrontParts = {
      readGroup: () => 7001,
      killGroup: () => {
        throw Object.assign(new Error('kill EPERM'), { code: 'EPERM' });
      },
      pause: async () => assert.fail('no pause for EPERM'),
      now: () => 0,
    };
    await assert.rejects(signalFront(eperm, 'SIGINT', 100), /EPERM/);
    await assert.rejects(signalFront({ ...eperm, readGroup: () => undefined }, 'SIGINT', 100), /no foreground process/);
    await assert.rejects(signalFront({ ...eperm, readGroup: () => 100 }, 'SIGKILL', 100), /SIGKILL to the shell itself is refused/);
  });
});

describe('screen boundaries', () => {
  const options = { rows: 5, cols: 40, scrollbackLines: 100, scrollbackMaxBytes: 100_000 };

  it('with nothing waiting to be parsed, a boundary task runs at once, not a timer turn later', async () => {
    const { Screen } = await import('../src/screen/screen.ts');
    const screen = new Screen(options, () => undefined);
    let ran = false;
    const done = screen.atBoundary(() => {
      ran = true;
      return screen.viewportLines()[0];
    });
    assert.equal(ran, true, 'ran inside the call');
    assert.equal(await done, '');
    screen.dispose();
  });

  it('with writes pending, boundary tasks see exactly what was written before them, in order', async () => {
    const { Screen } = await import('../src/screen/screen.ts');
    const screen = new Screen(options, () => undefined);
    const seen: string[] = [];
    // Longer than an immediate parse takes: it and everything after it wait for the emulator's turn.
    screen.write(`${'.'.repeat(9000)}\x1b[2J\x1b[H`);
    screen.write('first');
    const a = screen.atBoundary(() => seen.push(`a:${screen.viewportLines()[0]}`));
    screen.write(' second', () => {
      // Asked for after b (b's boundary is still queued here), so it runs after b.
      void screen.atBoundary(() => seen.push(`inner:${screen.viewportLines()[0]}`));
    });
    const b = screen.atBoundary(() => seen.push(`b:${screen.viewportLines()[0]}`));
    assert.equal(seen.length, 0, 'nothing parsed yet');
    await Promise.all([a, b]);
    screen.write(' third');
    await screen.atBoundary(() => seen.push(`c:${screen.viewportLines()[0]}`));
    assert.deepEqual(seen, ['a:first', 'b:first second', 'inner:first second', 'c:first second third']);
    screen.dispose();
  });

  // Wide enough that 20,000 characters go to the emulator as one write (one slice).
  const wide = { rows: 5, cols: 200, scrollbackLines: 10_000, scrollbackMaxBytes: 1_000_000 };

  /** 20,000 characters written now are parsed on the emulator's turn, after `write` returned. */
  async function floodWaitsItsTurn(screen: Screen) {
    const order: string[] = [];
    screen.write('x'.repeat(20_000), () => order.push('flood parsed'));
    order.push('write returned');
    assert.deepEqual(order, ['write returned']);
    await screen.atBoundary(() => undefined);
    assert.deepEqual(order, ['write returned', 'flood parsed']);
  }

  it('short text written to an idle screen is parsed inside the call; a flood waits for its turn', async () => {
    const { Screen } = await import('../src/screen/screen.ts');
    const replies: string[] = [];
    const screen = new Screen(wide, (data) => replies.push(data));
    const order: string[] = [];
    screen.write('prompt$ ', () => order.push('short parsed'));
    order.push('write returned');
    assert.deepEqual(order, ['short parsed', 'write returned']);
    assert.equal(screen.viewportLines()[0], 'prompt$ ');
    assert.deepEqual(replies, [], 'the nudge sends the program nothing');
    // A device-attributes query parsed at once is answered at once.
    screen.write('\x1b[c');
    assert.equal(replies.length, 1);
    await floodWaitsItsTurn(screen);
    screen.dispose();
  });

  it('a write made while a parse run is under way leaves no later flood parsed at once', async () => {
    const { Screen } = await import('../src/screen/screen.ts');
    const screen = new Screen(wide, () => undefined);
    // The second write joins the run of the first (the emulator's queue is not empty yet).
    screen.write('a', () => screen.write('b'));
    assert.equal(screen.viewportLines()[0], 'ab');
    await floodWaitsItsTurn(screen);
    screen.dispose();
  });
});

describe('socket peers', () => {
  it("reads each connected Unix socket's peer from ss -xH, and leaves out lines of another shape", () => {
    const listing = [
      'u_str ESTAB 0      0      * 2417338 * 2417339',
      'u_str ESTAB 0      0      * 2417339 * 2417338',
      'u_seq ESTAB 0 0 /run/a.sock 11 * 12',
      'u_str ESTAB 0 0 /run/with space.sock 21 * 22',
      'tcp ESTAB 0 0 10.0.0.1:22 31 10.0.0.2:5000 32',
      'u_dgr UNCONN 0 0 * 41 * 0',
      '',
    ].join('\n');
    assert.deepEqual(
      [...parseUnixPeers(listing)],
      [
        [2417338, 2417339],
        [2417339, 2417338],
        [11, 12],
      ],
    );
  });

  it('lists once per new socket: a known peer is kept, a socket no listing names is settled', async () => {
    let listings = 0;
    const peers = new SocketPeers(async () => {
      listings += 1;
      return 'u_str ESTAB 0 0 * 5 * 6\n';
    });
    assert.equal(await peers.peerOf(5), 6);
    assert.equal(await peers.peerOf(5), 6);
    assert.equal(listings, 1);
    assert.equal(await peers.peerOf(7), undefined, 'not connected, or not Unix (a TCP connection)');
    assert.equal(listings, 2, 'a listing that began after the question settles it');
    assert.equal(await peers.peerOf(7), undefined);
    assert.equal(listings, 2, 'a settled socket costs no listing');
    let shared = 0;
    const concurrent = new SocketPeers(async () => (shared++, 'u_str ESTAB 0 0 * 8 * 9\nu_str ESTAB 0 0 * 9 * 8\n'));
    assert.deepEqual(await Promise.all([concurrent.peerOf(8), concurrent.peerOf(9)]), [9, 8]);
    assert.equal(shared, 1, 'looks made while a listing runs share it');
  });

  it('a failed listing settles nothing; without ss, nothing is listed again', async () => {
    let runs = 0;
    const failing = new SocketPeers(async () => (runs++, undefined));
    assert.equal(await failing.peerOf(5), undefined);
    assert.equal(await failing.peerOf(5), undefined);
    assert.equal(runs, 2, 'tried again at the next look');
    let tries = 0;
    const none = new SocketPeers(async () => (tries++, 'missing'));
    assert.equal(await none.peerOf(5), undefined);
    assert.equal(await none.peerOf(6), undefined);
    assert.equal(tries, 1);
  });
});
