// The HTTP side of the real CLI: the token fences and the tool API with its error codes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import type { ReadResult, SendResult, SignalResult } from '@shared-terminal/server';
import {
  callTool,
  rawRequest,
  startCli,
  tempDir,
  upgradeOutcome,
  upgradeStatus,
  waitFor,
  writeConfig,
  type RunningCli,
} from './helpers/cli.ts';

let cli: RunningCli;
let cookie: string;

before(async () => {
  const dir = tempDir();
  cli = await startCli(['--config', writeConfig(dir, { maxInputBytes: 1024, maxSessions: 3 })]);
  rmSync(dir, { recursive: true, force: true }); // read at start only
  const exchange = await rawRequest(cli.port, { path: `/?token=${cli.token}`, headers: { Host: `127.0.0.1:${cli.port}` } });
  const setCookie = exchange.headers['set-cookie']?.[0] ?? '';
  cookie = setCookie.split(';')[0]!;
});

after(async () => {
  await cli.stop();
});

const host = () => `127.0.0.1:${cli.port}`;

describe('access', () => {
  test('without the token every page, asset and API route is refused', async () => {
    for (const path of ['/', '/agents/a', '/assets/page.css', '/assets/agent.js', '/api/agents', '/api/agents/a/events', '/nothing']) {
      const response = await rawRequest(cli.port, { path, headers: { Host: host() } });
      assert.equal(response.status, 401, path);
      assert.doesNotMatch(response.body, /<shared-terminal|agents":/, `${path} reveals nothing`);
    }
    const post = await rawRequest(cli.port, {
      method: 'POST',
      path: '/api/agents/a/tools/shared_terminal_send',
      headers: { Host: host(), 'Content-Type': 'application/json' },
      body: '{"text":"touch should-not-exist"}',
    });
    assert.equal(post.status, 401);
    assert.equal(JSON.parse(post.body).error.code, 'unauthorized');
    const wrong = await rawRequest(cli.port, {
      path: '/api/agents',
      headers: { Host: host(), Authorization: 'Bearer wrong-token-0123456789' },
    });
    assert.equal(wrong.status, 401);
    const wrongLink = await rawRequest(cli.port, { path: '/?token=wrong-token-0123456789', headers: { Host: host() } });
    assert.equal(wrongLink.status, 401);
    assert.equal(wrongLink.headers['set-cookie'], undefined);
    const list = await fetch(`${cli.base}/api/agents`, { headers: cli.auth });
    assert.equal(((await list.json()) as { agents: unknown[] }).agents.length, 0, 'the refused calls created no agent');
  });

  test('the page link trades the token for an HttpOnly SameSite=Strict cookie and drops it from the URL', async () => {
    const response = await rawRequest(cli.port, { path: `/agents/x1?token=${cli.token}&lang=zh-CN`, headers: { Host: host() } });
    assert.equal(response.status, 303);
    assert.equal(response.headers.location, '/agents/x1?lang=zh-CN');
    const setCookie = response.headers['set-cookie']?.[0] ?? '';
    assert.match(setCookie, new RegExp(`^shared_terminal_${cli.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`));
    assert.ok(!setCookie.includes(cli.token), 'the cookie does not hold the token itself');
    const page = await rawRequest(cli.port, { path: '/agents/x1', headers: { Host: host(), Cookie: cookie } });
    assert.equal(page.status, 200);
    assert.match(page.body, /<shared-terminal id="terminal" theme="auto">/, "the page's terminal follows the system colour scheme");
    assert.match(String(page.headers['content-security-policy']), /script-src 'self'/);
  });

  test('the cookie is refused on cross-origin requests', async () => {
    const same = await rawRequest(cli.port, {
      path: '/api/agents',
      headers: { Host: host(), Cookie: cookie, Origin: `http://${host()}`, 'Sec-Fetch-Site': 'same-origin' },
    });
    assert.equal(same.status, 200);
    const foreignOrigins = ['http://127.0.0.1:1', 'http://localhost:' + cli.port, 'null', 'https://evil.example'];
    for (const origin of foreignOrigins) {
      const response = await rawRequest(cli.port, {
        method: 'POST',
        path: '/api/agents/csrf/tools/shared_terminal_send',
        headers: { Host: host(), Cookie: cookie, Origin: origin, 'Content-Type': 'application/json' },
        body: '{"text":"touch csrf-marker"}',
      });
      assert.equal(response.status, 403, origin);
      assert.equal(JSON.parse(response.body).error.code, 'forbidden-origin');
    }
    for (const site of ['same-site', 'cross-site']) {
      const response = await rawRequest(cli.port, {
        path: '/api/agents',
        headers: { Host: host(), Cookie: cookie, 'Sec-Fetch-Site': site },
      });
      assert.equal(response.status, 403, site);
    }
    const page = await rawRequest(cli.port, { path: '/', headers: { Host: host(), Cookie: cookie, 'Sec-Fetch-Site': 'cross-site' } });
    assert.equal(page.status, 403);
    const list = await fetch(`${cli.base}/api/agents`, { headers: cli.auth });
    assert.ok(!((await list.json()) as { agents: Array<{ id: string }> }).agents.some((a) => a.id === 'csrf'), 'no agent was created');
  });

  test('a foreign Host is refused even with the token (DNS rebinding)', async () => {
    for (const name of [`evil.example:${cli.port}`, `rebind.127.0.0.1.nip.io:${cli.port}`]) {
      const response = await rawRequest(cli.port, { path: '/api/agents', headers: { Host: name, ...cli.auth } });
      assert.equal(response.status, 403, name);
      assert.equal(JSON.parse(response.body).error.code, 'forbidden-host');
      const link = await rawRequest(cli.port, { path: `/?token=${cli.token}`, headers: { Host: name } });
      assert.equal(link.status, 403, 'no cookie for a foreign Host');
    }
    const localhost = await rawRequest(cli.port, { path: '/api/agents', headers: { Host: `localhost:${cli.port}`, ...cli.auth } });
    assert.equal(localhost.status, 200);
  });

  test('WebSocket upgrades need the credential, our Host and our Origin', async () => {
    assert.equal(await upgradeStatus(cli.port, { Host: host() }), 401);
    assert.equal(await upgradeStatus(cli.port, { Host: host(), Cookie: 'shared_terminal_1=forged' }), 401);
    assert.equal(await upgradeStatus(cli.port, { Host: `evil.example:${cli.port}`, Cookie: cookie }), 403);
    // A page of another origin is refused in a close frame it can read (see cross-origin.test.ts).
    const foreign = await upgradeOutcome(cli.port, { Host: host(), Cookie: cookie, Origin: 'http://127.0.0.1:1' });
    assert.equal(foreign.closeCode, 4005);
  });

  test('the token route gives the page a one-time WebSocket ticket', async () => {
    const url = `${cli.base}/api/agents/ticket/terminal-token`;
    const bad = await fetch(url, {
      method: 'POST',
      headers: { ...cli.auth, 'Content-Type': 'application/json' },
      body: '{"readonly":"yes"}',
    });
    assert.equal(bad.status, 400);
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...cli.auth, 'Content-Type': 'application/json' },
      body: '{"readonly":false}',
    });
    assert.equal(response.status, 200);
    const ticket = (await response.json()) as { url: string; token: string; expiresInMs: number };
    assert.equal(ticket.url, `ws://${host()}/terminal`);
    assert.match(ticket.token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(ticket.expiresInMs, 10_000);
    const headers = {
      Host: host(),
      Cookie: cookie,
      Origin: cli.base,
      'Sec-WebSocket-Protocol': `shared-terminal.v1, token.${ticket.token}`,
    };
    assert.equal(await upgradeStatus(cli.port, { ...headers, Cookie: '' }), 401, 'the ticket alone is not enough');
    assert.equal(await upgradeStatus(cli.port, headers), 101);
    assert.equal(await upgradeStatus(cli.port, headers), 403, 'a ticket is good for one connection');
    await fetch(`${cli.base}/api/agents/ticket`, { method: 'DELETE', headers: cli.auth });
  });
});

describe('tool API', () => {
  test('send, read and signal return the tool results', async () => {
    const send = await callTool<SendResult>(cli, 'tools', 'shared_terminal_send', { text: 'echo "sum=$((20+22))"' });
    assert.equal(send.status, 200);
    assert.match(send.body.output, /^sum=42$/m);
    assert.equal(send.body.waitReason, 'prompt');
    assert.equal(send.body.exitCode, 0);
    assert.equal(send.body.generation, 1);
    const long = await callTool<SendResult>(cli, 'tools', 'shared_terminal_send', { text: 'echo "long=$((6*7))"', timeoutMs: 600_000 });
    assert.equal(long.status, 200);
    assert.match(long.body.output, /^long=42$/m);
    const read = await callTool<ReadResult>(cli, 'tools', 'shared_terminal_read', {});
    assert.equal(read.status, 200);
    assert.match(read.body.viewport, /sum=42/);
    assert.equal(typeof read.body.totalLines, 'number');
    const empty = await fetch(`${cli.base}/api/agents/tools/tools/shared_terminal_read`, {
      method: 'POST',
      headers: { ...cli.auth, 'Content-Type': 'application/json' },
    });
    assert.equal(empty.status, 200, 'an empty body reads as {}');
    const signal = await callTool<SignalResult>(cli, 'tools', 'shared_terminal_signal', { signal: 'SIGINT' });
    assert.equal(signal.status, 200);
    assert.equal(typeof signal.body.processGroupId, 'number');
  });

  test('failures map to statuses and the engine codes', async () => {
    const cases: Array<[string, string, unknown, number, string, RegExp]> = [
      ['tools', 'shared_terminal_send', { txt: 'ls' }, 400, 'invalid-arguments', /unknown argument "txt"/],
      ['tools', 'shared_terminal_read', { count: 0 }, 400, 'invalid-arguments', /"count" must be a whole number >= 1/],
      [
        'tools',
        'shared_terminal_send',
        { text: 'true', timeoutMs: 600_001 },
        400,
        'invalid-arguments',
        /over this server's maxOperationTimeoutMs \(600000\)/,
      ],
      ['tools', 'shared_terminal_send', { text: 'x'.repeat(2000) }, 413, 'input-too-large', /over maxInputBytes \(1024\)/],
      ['tools', 'shared_terminal_signal', { signal: 'SIGKILL' }, 409, 'signal-refused', /use shared_terminal_reset/],
      ['tools', 'shared_terminal_exec', {}, 404, 'unknown-tool', /the tools are shared_terminal_send, shared_terminal_read/],
      ['bad.id', 'shared_terminal_read', {}, 400, 'invalid-agent-id', /\[A-Za-z0-9_-\]\{1,64\}/],
      ['x'.repeat(65), 'shared_terminal_read', {}, 400, 'invalid-agent-id', /agent ids match/],
    ];
    for (const [agent, tool, args, status, code, message] of cases) {
      const { status: got, body } = await callTool(cli, agent, tool, args);
      assert.equal(got, status, `${tool} ${JSON.stringify(args).slice(0, 40)}`);
      assert.equal(body.error?.code, code);
      assert.match(body.error?.message ?? '', message);
    }
    const url = `${cli.base}/api/agents/tools/tools/shared_terminal_read`;
    const textPlain = await fetch(url, { method: 'POST', headers: { ...cli.auth, 'Content-Type': 'text/plain' }, body: '{}' });
    assert.equal(textPlain.status, 415);
    const badJson = await fetch(url, { method: 'POST', headers: { ...cli.auth, 'Content-Type': 'application/json' }, body: '{"count":' });
    assert.equal(badJson.status, 400);
    assert.equal(((await badJson.json()) as { error: { code: string } }).error.code, 'invalid-json');
    const get = await fetch(url, { headers: cli.auth });
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const huge = await fetch(url, {
      method: 'POST',
      headers: { ...cli.auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(200_000) }),
    });
    assert.equal(huge.status, 413);
  });

  test('agents are listed, capped at maxSessions, and disposed by DELETE', async () => {
    const list = async () =>
      ((await (await fetch(`${cli.base}/api/agents`, { headers: cli.auth })).json()) as { agents: Array<{ id: string; live: boolean }> })
        .agents;
    const created = await fetch(`${cli.base}/api/agents`, {
      method: 'POST',
      headers: { ...cli.auth, 'Content-Type': 'application/json' },
      body: '{"id":"second"}',
    });
    assert.equal(created.status, 201);
    assert.equal(((await created.json()) as { page: string }).page, '/agents/second');
    const third = await callTool(cli, 'third', 'shared_terminal_read', {});
    assert.equal(third.status, 200);
    assert.deepEqual(
      (await list())
        .filter((a) => a.live)
        .map((a) => a.id)
        .sort(),
      ['second', 'third', 'tools'],
    );
    const fourth = await callTool(cli, 'fourth', 'shared_terminal_send', { text: 'echo hi' });
    assert.equal(fourth.status, 503);
    assert.equal(fourth.body.error?.code, 'capacity');
    assert.match(fourth.body.error?.message ?? '', /terminal capacity reached/);

    const events = await fetch(`${cli.base}/api/agents/third/events`, { headers: cli.auth });
    assert.equal(events.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = '';
    const deleted = await fetch(`${cli.base}/api/agents/third`, { method: 'DELETE', headers: cli.auth });
    assert.equal(deleted.status, 200);
    assert.deepEqual(await deleted.json(), { id: 'third', disposed: true });
    while (!seen.includes('event: agent-disposed')) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'the stream stays open');
      seen += value;
    }
    await reader.cancel();
    assert.ok(!(await list()).some((a) => a.id === 'third'));
    const again = await fetch(`${cli.base}/api/agents/third`, { method: 'DELETE', headers: cli.auth });
    assert.equal(again.status, 404);
    const nowFits = await callTool(cli, 'fourth', 'shared_terminal_send', { text: 'echo fits' });
    assert.equal(nowFits.status, 200, 'a disposed agent frees its slot');
    await fetch(`${cli.base}/api/agents/fourth`, { method: 'DELETE', headers: cli.auth });
    await fetch(`${cli.base}/api/agents/second`, { method: 'DELETE', headers: cli.auth });
  });

  test('a client that goes away cancels its send (SIGINT recovery)', async () => {
    await assert.rejects(
      callTool(cli, 'tools', 'shared_terminal_send', { text: 'sleep 30; echo never-printed' }, { signal: AbortSignal.timeout(700) }),
    );
    const state = await waitFor(async () => {
      const body = (await (await fetch(`${cli.base}/api/agents/tools`, { headers: cli.auth })).json()) as {
        holder: string | null;
        queueStatus: string;
      };
      return body.holder === null && body.queueStatus === 'ready' ? body : undefined;
    }, 'the cancelled send to release the queue');
    assert.equal(state.queueStatus, 'ready');
    const next = await callTool<SendResult>(cli, 'tools', 'shared_terminal_send', { text: 'echo after-cancel' });
    assert.equal(next.status, 200);
    assert.match(next.body.output, /^after-cancel$/m);
    assert.doesNotMatch(next.body.viewport, /^never-printed$/m, 'the command was interrupted');
  });
});

describe('a blocked queue', () => {
  let stubborn: RunningCli;
  before(async () => {
    const dir = tempDir();
    stubborn = await startCli(['--config', writeConfig(dir, { operationTimeoutMs: 1500, interruptTimeoutMs: 500 })]);
    rmSync(dir, { recursive: true, force: true });
  });
  after(() => stubborn.stop());

  test('is a 409 with its code and remedy, never a 5xx, and reset clears it', async () => {
    // A program that ignores SIGINT outlives the deadline and the recovery that follows it.
    const stuck = await callTool(stubborn, 'stuck', 'shared_terminal_send', { text: "trap '' INT; sleep 60" });
    assert.equal(stuck.status, 409);
    assert.equal(stuck.body.error?.code, 'recovery-failed');
    assert.match(stuck.body.error?.message, /shared_terminal_reset/);
    const next = await callTool(stubborn, 'stuck', 'shared_terminal_send', { text: 'echo queued' });
    assert.equal(next.status, 409);
    assert.equal(next.body.error?.code, 'blocked');
    assert.match(next.body.error?.message, /shared_terminal_reset/);
    const reset = await callTool(stubborn, 'stuck', 'shared_terminal_reset', {});
    assert.equal(reset.status, 200);
    const after = await callTool<SendResult>(stubborn, 'stuck', 'shared_terminal_send', { text: 'echo back' });
    assert.equal(after.status, 200);
    assert.match(after.body.output, /back$/);
  });
});
