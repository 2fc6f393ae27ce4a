/**
 * Transport, point 1 of issue 3: tokens and the upgrade fence. A reused, expired, wrong-owner, URL-carried
 * or pre-reset token is refused; a foreign Origin or Host gets a plain 403. Also: issuing a token starts
 * no shell, a reset closes views with 4001 and disposal with 4002.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runTool } from '../src/index.ts';
import { ManualClock } from '../src/time.ts';
import { SECRET_PATTERN, SUBPROTOCOL, TOKEN_TTL_MS } from '../src/protocol/index.ts';
import { type Harness, startHarness } from './helpers/transport-harness.ts';

describe('transport tokens and fence', () => {
  let h: Harness;
  const clock = new ManualClock();

  before(async () => {
    h = await startHarness({ clock, allowedOrigins: ['http://localhost:5173'], allowedHosts: ['terminal.lan'] });
  });
  after(async () => {
    await h.close();
  });

  test('issuing a token starts no shell; the token is 43 base64url characters and lives 10 s', async () => {
    const issued = h.transport.issueToken('lazy');
    assert.match(issued.token, SECRET_PATTERN);
    assert.equal(issued.expiresInMs, TOKEN_TTL_MS);
    assert.equal(h.hub.get('lazy')?.generation, undefined);
    assert.equal(h.hub.liveCount(), 0);
    // The shell starts when the view attaches.
    const view = await h.connect('lazy', { token: issued.token });
    await view.waitFor(() => view.status !== undefined, 'the first status');
    assert.equal(view.frames[0]?.type, 'snapshot', 'the first frame is the snapshot');
    assert.equal(view.frames[1]?.type, 'role');
    assert.equal(view.role?.role, 'controller');
    assert.equal(view.role?.reason, 'granted');
    assert.match(view.resume ?? '', SECRET_PATTERN);
    assert.equal(h.hub.get('lazy')?.generation?.generation, 1);
    view.terminate();
  });

  test('a reused token is refused with 403', async () => {
    const { token } = h.transport.issueToken('a');
    const first = await h.attempt('a', { token });
    assert.ok(first.ok);
    const second = await h.attempt('a', { token });
    assert.deepEqual([second.ok, !second.ok && second.status], [false, 403]);
    assert.match(!second.ok ? second.body : '', /fresh token/);
    if (first.ok) first.client.terminate();
  });

  test('an expired token is refused (injected clock)', async () => {
    const fresh = h.transport.issueToken('a');
    const stale = h.transport.issueToken('a');
    await clock.advance(TOKEN_TTL_MS - 1);
    const inTime = await h.attempt('a', { token: fresh.token, readonly: true });
    assert.ok(inTime.ok, 'a token is good until its 10 s are over');
    await clock.advance(1);
    const late = await h.attempt('a', { token: stale.token });
    assert.equal(late.ok, false);
    assert.equal(!late.ok && late.status, 403);
    assert.match(!late.ok ? late.body : '', /expired/);
    if (inTime.ok) inTime.client.terminate();
  });

  test('a token in the URL is refused, and so is any query string', async () => {
    const { token } = h.transport.issueToken('a');
    const onlyUrl = await h.attempt('a', { token, suffix: `?token=${token}`, protocols: [SUBPROTOCOL] });
    assert.equal(!onlyUrl.ok && onlyUrl.status, 403);
    assert.match(!onlyUrl.ok ? onlyUrl.body : '', /Sec-WebSocket-Protocol/);
    const both = await h.attempt('a', { token, suffix: `?token=${token}` });
    assert.equal(!both.ok && both.status, 403);
    const noToken = await h.attempt('a', { token, protocols: [SUBPROTOCOL] });
    assert.equal(!noToken.ok && noToken.status, 403);
    const wrongPath = await h.attempt('a', { path: '/elsewhere' });
    assert.equal(!wrongPath.ok && wrongPath.status, 403);
  });

  test('a token issued before a reset is refused, including before the first generation', async () => {
    // An owner with no shell yet: the reset creates generation 1 and still revokes the token.
    const early = h.transport.issueToken('fresh-owner');
    await runTool(h.hub, 'fresh-owner', 'shared_terminal_reset', {});
    const refusedEarly = await h.attempt('fresh-owner', { token: early.token });
    assert.equal(!refusedEarly.ok && refusedEarly.status, 403);
    assert.match(!refusedEarly.ok ? refusedEarly.body : '', /reset/);

    const view = await h.connect('fresh-owner');
    await view.waitFor(() => view.status !== undefined, 'status');
    const before = h.transport.issueToken('fresh-owner');
    await runTool(h.hub, 'fresh-owner', 'shared_terminal_reset', {});
    await view.waitClosed();
    assert.equal(view.close?.code, 4001, 'a reset closes views with 4001');
    const refused = await h.attempt('fresh-owner', { token: before.token });
    assert.equal(!refused.ok && refused.status, 403);
    // A token issued now works, and the old resume proof no longer gives a resume.
    const again = await h.connect('fresh-owner', { resume: view.resume! });
    await again.waitFor(() => again.role !== undefined, 'role');
    assert.equal(again.role?.reason, 'granted');
    assert.equal(again.generation, 2);
    again.terminate();
  });

  test('a foreign Origin gets 403; same origin and allowed origins pass', async () => {
    const foreign = await h.attempt('a', { origin: 'http://evil.example' });
    assert.equal(!foreign.ok && foreign.status, 403);
    assert.match(!foreign.ok ? foreign.body : '', /allowedOrigins/);
    const missing = await h.attempt('a', { origin: null });
    assert.equal(!missing.ok && missing.status, 403);
    const withPath = await h.attempt('a', { origin: `http://127.0.0.1:${h.port}/page` });
    assert.equal(!withPath.ok && withPath.status, 403);
    const otherPort = await h.attempt('a', { origin: `http://127.0.0.1:${h.port + 1}` });
    assert.equal(!otherPort.ok && otherPort.status, 403);
    const allowed = await h.attempt('a', { origin: 'http://localhost:5173', readonly: true });
    assert.ok(allowed.ok, 'an allowed origin passes');
    if (allowed.ok) allowed.client.terminate();
  });

  test('a foreign Host gets 403 (DNS rebinding); loopback names and allowed hosts pass', async () => {
    const rebinding = await h.attempt('a', { host: `evil.example:${h.port}`, origin: `http://evil.example:${h.port}` });
    assert.equal(!rebinding.ok && rebinding.status, 403);
    assert.match(!rebinding.ok ? rebinding.body : '', /allowedHosts/);
    const lan = await h.attempt('a', { host: `10.0.0.5:${h.port}`, origin: `http://10.0.0.5:${h.port}` });
    assert.equal(!lan.ok && lan.status, 403);
    for (const host of [`localhost:${h.port}`, `127.1.2.3:${h.port}`, `[::1]:${h.port}`, `terminal.lan:${h.port}`]) {
      const ok = await h.attempt('a', { host, origin: `http://${host}`, readonly: true });
      assert.ok(ok.ok, `${host} passes`);
      if (ok.ok) ok.client.terminate();
    }
  });

  test('disposing the owner closes its views with 4002 and revokes its tokens', async () => {
    const view = await h.connect('doomed');
    await view.waitFor(() => view.status !== undefined, 'status');
    const pending = h.transport.issueToken('doomed');
    await h.hub.dispose('doomed');
    await view.waitClosed();
    assert.equal(view.close?.code, 4002);
    const refused = await h.attempt('doomed', { token: pending.token });
    assert.equal(!refused.ok && refused.status, 403);
  });
});

describe('transport tokens bound to one owner', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ routePerOwner: true });
  });
  after(async () => {
    await h.close();
  });

  test("a token is refused on another owner's route and after its owner was replaced", async () => {
    const { token } = h.transport.issueToken('alice');
    const wrong = await h.attempt('alice', { token, path: '/owners/bob/ws' });
    assert.equal(!wrong.ok && wrong.status, 403);
    assert.match(!wrong.ok ? wrong.body : '', /another terminal/);
    const right = await h.attempt('alice', { path: '/owners/alice/ws', readonly: true });
    assert.ok(right.ok);
    if (right.ok) right.client.terminate();

    const old = h.transport.issueToken('carol');
    await h.hub.dispose('carol');
    h.hub.acquire('carol');
    const replaced = await h.attempt('carol', { token: old.token, path: '/owners/carol/ws' });
    assert.equal(!replaced.ok && replaced.status, 403);
  });
});
