/**
 * The plugin's own rules, without DSH: configuration (defaults plus the user's keys), the WebSocket fence,
 * the token request, the schemas DSH will see, and the notice text.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULT_CONFIG, TOOL_INPUT_SCHEMAS, TOOL_NAMES, type HumanSettled } from '@shared-terminal/server';
import { CONFIG_KEYS, Config, toNoticeConfig, toTerminalConfig } from '../src/server/config.ts';
import { checkUpgradeRequest, isLoopbackHostname, trustedHostsOf } from '../src/server/fence.ts';
import { parseTokenRequest } from '../src/server/browser.ts';
import { RESULT_SCHEMAS, toDshSchema } from '../src/server/tools.ts';
import { buildHumanNotice, noticeText } from '../src/server/notice.ts';
import { withTerm } from '../src/server/pty-adapter.ts';
import { socketUrl } from '../src/client/connector.ts';

/** What DSH's Loader does with a row's config: the Standard Schema validation of `Config`. */
function loaderResolve(input: unknown): Record<string, unknown> {
  const result = Config['~standard'].validate(input) as { value?: Record<string, unknown>; issues?: { message: string }[] };
  if (result.issues) throw new Error(result.issues.map((issue) => issue.message).join('; '));
  return result.value!;
}

describe('config', () => {
  it('fills every default when the row has no config', () => {
    const config = toTerminalConfig(loaderResolve(undefined) as never);
    for (const key of CONFIG_KEYS) assert.deepEqual(config[key], DEFAULT_CONFIG[key], key);
  });

  it('a patch of some keys is the defaults plus those keys', () => {
    const config = toTerminalConfig(loaderResolve({ rows: 30, shellArgs: ['--norc', '-i'] }) as never);
    assert.equal(config.rows, 30);
    assert.deepEqual(config.shellArgs, ['--norc', '-i']);
    assert.equal(config.cols, DEFAULT_CONFIG.cols);
    assert.equal(config.operationTimeoutMs, DEFAULT_CONFIG.operationTimeoutMs);
    assert.equal(config.disconnectGraceMs, DEFAULT_CONFIG.disconnectGraceMs);
  });

  it('covers the 15 keys of the product description, plus term, heartbeatIntervalMs, maxOperationTimeoutMs and idleNoticeQuietMs', () => {
    assert.equal(CONFIG_KEYS.length, 18);
    assert.deepEqual(Object.keys(loaderResolve({})).sort(), [...CONFIG_KEYS, 'idleNoticeQuietMs'].sort());
    assert.equal(loaderResolve({})['idleNoticeQuietMs'], 3000);
    assert.equal(toNoticeConfig(loaderResolve({ idleNoticeQuietMs: 0 }) as never).idleNoticeQuietMs, 0);
    assert.throws(() => loaderResolve({ idleNoticeQuietMs: -1 }), /idleNoticeQuietMs/);
  });

  it('refuses a wrong type at load time, naming the key', () => {
    assert.throws(() => loaderResolve({ rows: 'forty' }), /rows/);
    assert.throws(() => loaderResolve({ cols: 5 }), /cols/);
  });

  it('applies the rules schemastery cannot say, with an error that names the key', () => {
    assert.throws(
      () => toTerminalConfig(loaderResolve({ shellPath: '/bin/zsh' }) as never),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.key, 'shellPath');
        return true;
      },
    );
    assert.throws(
      () => toTerminalConfig(loaderResolve({ maxToolOutputBytes: 8192, scrollbackMaxBytes: 4096 }) as never),
      /maxToolOutputBytes/,
    );
    assert.equal(toTerminalConfig(loaderResolve({ disconnectGraceMs: 0 }) as never).disconnectGraceMs, 0);
  });
});

function request(headers: Record<string, string>): IncomingMessage {
  return { headers } as unknown as IncomingMessage;
}

describe('websocket fence', () => {
  const good = { host: '127.0.0.1:3080', origin: 'http://127.0.0.1:3080' };

  it('accepts a same-origin loopback page', () => {
    assert.deepEqual(checkUpgradeRequest(request(good), []), { ok: true });
    assert.deepEqual(checkUpgradeRequest(request({ host: 'localhost:9', origin: 'http://localhost:9' }), []), { ok: true });
    assert.deepEqual(checkUpgradeRequest(request({ host: '[::1]:9', origin: 'http://[::1]:9' }), []), { ok: true });
  });

  it('refuses a foreign Host unless DSH trusts it (exact authority, or any port for a bare host)', () => {
    const lan = { host: '192.168.1.5:3080', origin: 'http://192.168.1.5:3080' };
    assert.equal(checkUpgradeRequest(request(lan), []).ok, false);
    assert.equal(checkUpgradeRequest(request(lan), ['192.168.1.5:3080']).ok, true);
    assert.equal(checkUpgradeRequest(request(lan), ['192.168.1.5']).ok, true);
    assert.equal(checkUpgradeRequest(request(lan), ['192.168.1.5:9999']).ok, false);
    assert.equal(checkUpgradeRequest(request({ host: 'evil.example', origin: 'http://evil.example' }), []).ok, false);
  });

  it('refuses cross-origin, null, missing Origin and cross-site fetches', () => {
    assert.equal(checkUpgradeRequest(request({ ...good, origin: 'http://127.0.0.1:9999' }), []).ok, false);
    assert.equal(checkUpgradeRequest(request({ ...good, origin: 'null' }), []).ok, false);
    assert.equal(checkUpgradeRequest(request({ host: good.host }), []).ok, false);
    assert.equal(checkUpgradeRequest(request({ ...good, 'sec-fetch-site': 'cross-site' }), []).ok, false);
    assert.equal(checkUpgradeRequest(request({ host: '', origin: good.origin }), []).ok, false);
    assert.equal(checkUpgradeRequest(request({ ...good, origin: 'file:///x' }), []).ok, false);
  });

  it('knows loopback names', () => {
    for (const name of ['localhost', 'a.localhost', '127.0.0.1', '127.8.9.10', '::1', '[::1]']) assert.ok(isLoopbackHostname(name), name);
    for (const name of ['10.0.0.1', 'example.com', '128.0.0.1', 'localhost.example']) assert.ok(!isLoopbackHostname(name), name);
  });

  it("reads the trusted hosts of DSH's connection service, ignoring anything else", () => {
    assert.deepEqual(trustedHostsOf({ trustedHosts: ['a:1', 2, 'b'] }), ['a:1', 'b']);
    assert.deepEqual(trustedHostsOf(undefined), []);
    assert.deepEqual(trustedHostsOf({}), []);
  });
});

describe('token request', () => {
  it('takes a session id and an optional read-only flag, nothing else', () => {
    assert.deepEqual(parseTokenRequest({ sessionId: 's1' }), { sessionId: 's1', readonly: false });
    assert.deepEqual(parseTokenRequest({ sessionId: 's1', readonly: true }), { sessionId: 's1', readonly: true });
    assert.match(String(parseTokenRequest({ sessionId: 's1', pty: 3 })), /unknown field "pty"/);
    assert.match(String(parseTokenRequest({ sessionId: '' })), /sessionId/);
    assert.match(String(parseTokenRequest({ sessionId: 's', readonly: 'yes' })), /readonly/);
    assert.match(String(parseTokenRequest(null)), /object/);
  });

  it("builds the socket URL on the page's own origin", () => {
    assert.equal(
      socketUrl('/dsh-interactive-terminal/ws', 'http://127.0.0.1:3080/chat/1'),
      'ws://127.0.0.1:3080/dsh-interactive-terminal/ws',
    );
    assert.equal(socketUrl('/dsh-interactive-terminal/ws', 'https://dsh.lan/x'), 'wss://dsh.lan/dsh-interactive-terminal/ws');
  });
});

/** DSH's supported schema keywords (dsh-tools, rc.8). */
const DSH_KEYWORDS = new Set([
  'type',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'description',
  'title',
  'default',
  'examples',
]);

function keywordsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== 'object') return found;
  for (const [key, value] of Object.entries(schema)) {
    found.add(key);
    if (key === 'properties') for (const inner of Object.values(value as object)) keywordsOf(inner, found);
    else if (key === 'oneOf') for (const inner of value as unknown[]) keywordsOf(inner, found);
    else if (key === 'items') keywordsOf(value, found);
  }
  return found;
}

describe('tool schemas', () => {
  it("argument schemas stay closed and use only DSH's keywords; limits move into the description", () => {
    for (const name of TOOL_NAMES) {
      const schema = toDshSchema(TOOL_INPUT_SCHEMAS[name]);
      assert.equal(schema['additionalProperties'], false, name);
      for (const keyword of keywordsOf(schema)) assert.ok(DSH_KEYWORDS.has(keyword), `${name}: ${keyword}`);
    }
    const read = toDshSchema(TOOL_INPUT_SCHEMAS.shared_terminal_read) as { properties: Record<string, { description: string }> };
    assert.match(read.properties['count']!.description, /Minimum 1\./);
    const send = toDshSchema(TOOL_INPUT_SCHEMAS.shared_terminal_send) as {
      properties: Record<string, { type: string; description: string }>;
    };
    assert.equal(send.properties['timeoutMs']?.type, 'integer', 'a DSH model can give a long send its own deadline');
    assert.match(send.properties['timeoutMs']!.description, /maxOperationTimeoutMs/);
  });

  it("result schemas use only DSH's keywords", () => {
    for (const name of TOOL_NAMES)
      for (const keyword of keywordsOf(RESULT_SCHEMAS[name])) assert.ok(DSH_KEYWORDS.has(keyword), `${name}: ${keyword}`);
  });
});

describe('notice', () => {
  const settled: HumanSettled = {
    ownerId: 'a#1',
    leaseId: 7,
    origin: 'takeover',
    generation: 2,
    waitReason: 'prompt',
    exitCode: 0,
    began: 'program',
  };
  const command = (exitCode: number): HumanSettled => ({ ...settled, origin: 'idle', began: 'prompt', exitCode });

  it('says what happened and what to do, with metadata only', () => {
    const text = noticeText(settled);
    assert.match(text, /took over/);
    assert.match(text, /generation 2/);
    assert.match(text, /exit status 0/);
    assert.match(text, /shared_terminal_read/);
    assert.match(noticeText({ ...command(0), waitReason: 'session_exit', exitCode: undefined }), /idle prompt.*ended the shell/);
  });

  it('one notice for a burst of idle commands: how many, and their exit statuses in order', () => {
    const text = noticeText([command(0), command(1), command(127)]);
    assert.match(text, /ran 3 command lines at the terminal's idle prompt \(exit statuses in order: 0, 1, 127\)/);
    assert.equal(buildHumanNotice([command(0), command(2)]).source.summary, 'Shared terminal: the person ran 2 commands');
  });

  it('names an answer to a waiting program as that, not as typing at the idle prompt', () => {
    const answer: HumanSettled = { ...settled, origin: 'idle', began: 'program' };
    const text = noticeText(answer);
    assert.match(text, /answered a program that was waiting for input/);
    assert.doesNotMatch(text, /idle prompt/);
    assert.match(buildHumanNotice(answer).source.summary, /answered a waiting program/);
  });

  it('is a frozen plugin notice with a short summary', () => {
    const message = buildHumanNotice(settled);
    assert.equal(message.role, 'user');
    assert.equal(message.source.kind, 'plugin');
    assert.equal(message.source.plugin, 'dsh-interactive-terminal');
    assert.equal(message.source.form, 'notice');
    assert.ok(message.source.summary.length <= 120);
    assert.ok(Object.isFrozen(message) && Object.isFrozen(message.content[0]));
    assert.notEqual(buildHumanNotice(settled).id, message.id);
  });
});

describe('TERM', () => {
  it("starts the shell through env when a TERM other than DSH's dumb is configured", () => {
    assert.deepEqual(withTerm(['/bin/bash', '-i'], 'xterm-256color'), ['/usr/bin/env', 'TERM=xterm-256color', '/bin/bash', '-i']);
    assert.deepEqual(withTerm(['/bin/bash', '-i'], 'dumb'), ['/bin/bash', '-i']);
    assert.deepEqual(withTerm(['/bin/bash'], undefined), ['/bin/bash']);
  });
});
