// `serve --allow-origin URL`: a page of an allowed origin gets tickets from the token route (CORS) and
// attaches with one; a page of any other origin is told why it is refused, in a close frame it can read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rawRequest, runCli, startCli, upgradeOutcome, type RunningCli } from './helpers/cli.ts';

const ALLOWED = 'http://127.0.0.1:5173';
const OTHER = 'http://127.0.0.1:5174';
let cli: RunningCli;
let cookie: string;

before(async () => {
  cli = await startCli(['--allow-origin', ALLOWED, '--allow-origin', 'https://app.example']);
  const exchange = await rawRequest(cli.port, { path: `/?token=${cli.token}`, headers: { Host: host() } });
  cookie = (exchange.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
});

after(async () => {
  await cli.stop();
});

const host = () => `127.0.0.1:${cli.port}`;
const tokenPath = '/api/agents/embedded/terminal-token';

async function ticket(headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return rawRequest(cli.port, {
    method: 'POST',
    path: tokenPath,
    headers: { Host: host(), 'Content-Type': 'application/json', ...headers },
    body: '{}',
  });
}

describe('--allow-origin', () => {
  test('takes exact http(s) origins only, with a usage error that says the form', async () => {
    for (const bad of ['http://localhost:5173/', 'http://localhost:5173/app', 'localhost:5173', 'ftp://x', 'http://u:p@x']) {
      const exit = await runCli(['serve', '--port', '0', '--allow-origin', bad]);
      assert.equal(exit.code, 2, bad);
      assert.match(exit.stderr, /--allow-origin takes an exact origin such as http:\/\/localhost:5173/, bad);
    }
    const mcp = await runCli(['mcp', '--allow-origin', ALLOWED]);
    assert.equal(mcp.code, 2, 'serve only');
  });

  test("the token route answers an allowed origin's preflight and requests, and no other origin's", async () => {
    const preflight = await rawRequest(cli.port, {
      method: 'OPTIONS',
      path: tokenPath,
      headers: {
        Host: host(),
        Origin: ALLOWED,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], ALLOWED);
    assert.match(String(preflight.headers['access-control-allow-headers']), /Authorization/);
    const otherPreflight = await rawRequest(cli.port, {
      method: 'OPTIONS',
      path: tokenPath,
      headers: { Host: host(), Origin: OTHER, 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(otherPreflight.headers['access-control-allow-origin'], undefined);

    const withBearer = await ticket({ Origin: ALLOWED, Authorization: `Bearer ${cli.token}` });
    assert.equal(withBearer.status, 200);
    assert.equal(withBearer.headers['access-control-allow-origin'], ALLOWED);
    const withCookie = await ticket({ Origin: ALLOWED, Cookie: cookie, 'Sec-Fetch-Site': 'same-site' });
    assert.equal(withCookie.status, 200, 'an allowed page may use the cookie of a person who opened the link');
    const otherCookie = await ticket({ Origin: OTHER, Cookie: cookie, 'Sec-Fetch-Site': 'same-site' });
    assert.equal(otherCookie.status, 403);
    assert.equal(otherCookie.headers['access-control-allow-origin'], undefined);
    const noCredential = await ticket({ Origin: ALLOWED });
    assert.equal(noCredential.status, 401, 'the origin alone is no credential');
    // Other routes stay our own origin's.
    const list = await rawRequest(cli.port, { path: '/api/agents', headers: { Host: host(), Origin: ALLOWED, Cookie: cookie } });
    assert.equal(list.status, 403);
  });

  test('an allowed page attaches with its ticket; another origin is refused with the reason and what to do', async () => {
    const { token } = JSON.parse((await ticket({ Origin: ALLOWED, Authorization: `Bearer ${cli.token}` })).body) as { token: string };
    const protocols = `shared-terminal.v1, token.${token}`;
    const other = await upgradeOutcome(cli.port, { Host: host(), Origin: OTHER, 'Sec-WebSocket-Protocol': protocols });
    assert.equal(other.status, 101);
    assert.equal(other.closeCode, 4005);
    assert.equal(other.reason, `origin ${OTHER} is not allowed: start the server with --allow-origin ${OTHER}`);
    const allowed = await upgradeOutcome(cli.port, { Host: host(), Origin: ALLOWED, 'Sec-WebSocket-Protocol': protocols });
    assert.equal(allowed.status, 101);
    assert.equal(allowed.closeCode, undefined, 'attached: the first frame is the screen, not a close');
  });
});
