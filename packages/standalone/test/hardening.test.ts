// Hardening (issue 18) of the real CLI: bad input never gets a 5xx, the fences compare whole values, and
// no client can grow the agent list or lock other agents' pages out of the token route.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { MAX_TOKENS_PER_OWNER } from '@shared-terminal/server';
import { callTool, rawRequest, startCli, tempDir, writeConfig, type RunningCli } from './helpers/cli.ts';

let cli: RunningCli;

before(async () => {
  const dir = tempDir();
  cli = await startCli(['--config', writeConfig(dir, { maxSessions: 1 })]);
  rmSync(dir, { recursive: true, force: true });
});

after(async () => {
  await cli.stop();
});

const host = () => `127.0.0.1:${cli.port}`;

async function agentIds(): Promise<string[]> {
  const list = await fetch(`${cli.base}/api/agents`, { headers: cli.auth });
  return ((await list.json()) as { agents: Array<{ id: string }> }).agents.map((agent) => agent.id).sort();
}

function requestToken(agent: string): Promise<Response> {
  return fetch(`${cli.base}/api/agents/${agent}/terminal-token`, {
    method: 'POST',
    headers: { ...cli.auth, 'Content-Type': 'application/json' },
    body: '{}',
  });
}

describe('bad input gets a 4xx', () => {
  test('malformed percent-encoding in a page or API path is a 400', async () => {
    for (const path of ['/agents/%ZZ', '/agents/%E0%A4%A', '/api/agents/%ZZ', '/api/agents/%ZZ/tools/shared_terminal_read']) {
      const response = await rawRequest(cli.port, { path, headers: { Host: host(), ...cli.auth } });
      assert.equal(response.status, 400, path);
    }
  });

  test('an absolute request target with a bad port is a 400', async () => {
    const response = await rawRequest(cli.port, { path: 'http://127.0.0.1:99999/', headers: { Host: host(), ...cli.auth } });
    assert.equal(response.status, 400);
  });
});

describe('error texts quote little of what the client sent', () => {
  test('a huge unknown argument name, tool name or id is refused with a short message', async () => {
    const huge = 'k'.repeat(100_000);
    const unknownArg = await callTool(cli, 'only', 'shared_terminal_read', { [huge]: 1 });
    assert.equal(unknownArg.status, 400);
    assert.ok((unknownArg.body.error?.message.length ?? 0) < 300, 'the message quotes a bounded part of the name');
    const long = 'x'.repeat(8_000);
    for (const path of [`/api/agents/only/tools/${long}`, `/api/agents/${long}`, `/api/${long}`, `/${long}`]) {
      const response = await rawRequest(cli.port, { path, headers: { Host: host(), ...cli.auth } });
      assert.ok(response.status >= 400 && response.status < 500, path.slice(0, 40));
      assert.ok(response.body.length < 2_000, `${path.slice(0, 40)}: the reply echoes a bounded part of the path`);
    }
  });
});

describe('the Host fence reads the whole header', () => {
  test('a loopback prefix with something after it is refused', async () => {
    for (const name of [
      `[::1]x:${cli.port}`,
      `127.0.0.1:${cli.port}@evil.example`,
      `localhost.:${cli.port}`,
      `127.0.0.1:${cli.port}:1`,
      `[::1]:${cli.port}x`,
    ]) {
      const response = await rawRequest(cli.port, { path: '/api/agents', headers: { Host: name, ...cli.auth } });
      assert.equal(response.status, 403, name);
    }
    for (const name of [`[::1]:${cli.port}`, `localhost:${cli.port}`, 'localhost', host()]) {
      const response = await rawRequest(cli.port, { path: '/api/agents', headers: { Host: name, ...cli.auth } });
      assert.equal(response.status, 200, name);
    }
  });
});

describe('capacity', () => {
  test('tool calls for new agents at maxSessions answer 503 and leave no record', async () => {
    const first = await callTool(cli, 'only', 'shared_terminal_read', {});
    assert.equal(first.status, 200);
    for (let i = 0; i < 20; i++) {
      const refused = await callTool(cli, `ghost-${i}`, 'shared_terminal_read', {});
      assert.equal(refused.status, 503);
      assert.equal(refused.body.error?.code, 'capacity');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(await agentIds(), ['only']);
    const home = await rawRequest(cli.port, { path: '/', headers: { Host: host(), ...cli.auth } });
    assert.doesNotMatch(home.body, /ghost-/);
  });
});

describe('the token route', () => {
  test(`one agent's client gets 429 with a retry hint past ${MAX_TOKENS_PER_OWNER} outstanding tokens, and other agents are not locked out`, async () => {
    let granted = 0;
    let refused: Response | undefined;
    for (let i = 0; i < MAX_TOKENS_PER_OWNER + 10 && !refused; i++) {
      const response = await requestToken('only');
      if (response.status === 200) {
        granted += 1;
        await response.arrayBuffer();
      } else refused = response;
    }
    assert.equal(granted, MAX_TOKENS_PER_OWNER);
    assert.ok(refused);
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) > 0, 'Retry-After says when to retry');
    const body = (await refused.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'too-many-tokens');
    assert.match(body.error.message, /retry in \d+ s/);
    // Another agent's page still gets its token (here the capacity is taken, so free it first).
    await fetch(`${cli.base}/api/agents/only`, { method: 'DELETE', headers: cli.auth });
    const other = await requestToken('other');
    assert.equal(other.status, 200);
  });
});
