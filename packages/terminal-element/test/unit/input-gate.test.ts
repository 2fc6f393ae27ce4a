// The input gate: what a key does in each lease and attach state, and what happens to held keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PROTOCOL_VERSION, type LeaseFrame, type StatusFrame } from '@shared-terminal/server/protocol';
import { InputGate, type GateView, type InputDecision, type LeaseView } from '../../src/connection/input-gate.ts';
import type { ViewNoticeCode } from '../../src/connection/notices.ts';
import { IDLE_STATUS } from '@shared-terminal/test-support/scripted-server';

const idleStatus: StatusFrame = { v: PROTOCOL_VERSION, type: 'status', generation: 1, ...IDLE_STATUS, pendingKinds: [] };
const status = (patch: Partial<StatusFrame>): StatusFrame => ({ ...idleStatus, ...patch });
const live: GateView = { role: 'controller', readonlyRequested: false, connected: true, status: idleStatus };
const lease = (state: LeaseFrame['state'], leaseId = 1): LeaseFrame => ({
  v: PROTOCOL_VERSION,
  type: 'lease',
  generation: 1,
  state,
  leaseId,
  origin: 'idle',
});

interface Rig {
  gate: InputGate;
  notices: ViewNoticeCode[];
  leases: LeaseView[];
}
function rig(): Rig {
  const r: Rig = { gate: null as unknown as InputGate, notices: [], leases: [] };
  r.gate = new InputGate({ lease: (view) => r.leases.push(view), notice: (code) => r.notices.push(code) });
  r.gate.setLimit(16);
  return r;
}
/** A gate attached on a live socket, with the lease in `state` (none: no lease). */
function attachedWith(state: LeaseFrame['state'] | 'none' | 'requested'): Rig {
  const r = rig();
  r.gate.attaching();
  r.gate.status();
  if (state === 'requested') r.gate.requested('idle');
  else if (state !== 'none') r.gate.leaseFrame(lease(state));
  return r;
}

const cases: Array<{
  name: string;
  lease: 'none' | 'requested' | 'queued' | 'granted';
  view: GateView;
  key: string;
  decision: InputDecision;
  held: string;
}> = [
  {
    name: 'read-only role: refused',
    lease: 'none',
    view: { ...live, role: 'readonly' },
    key: 'a',
    decision: { kind: 'refused', notice: 'readonly' },
    held: '',
  },
  {
    name: 'asked read only, no role yet: refused',
    lease: 'none',
    view: { ...live, role: null, readonlyRequested: true },
    key: 'a',
    decision: { kind: 'refused', notice: 'readonly' },
    held: '',
  },
  { name: 'granted and live: sent', lease: 'granted', view: live, key: 'ls\r', decision: { kind: 'send', input: 'ls\r' }, held: '' },
  {
    name: 'granted, one frame over the limit: refused',
    lease: 'granted',
    view: live,
    key: 'x'.repeat(17),
    decision: { kind: 'refused', notice: 'input-limit' },
    held: '',
  },
  {
    name: 'granted but the socket is away: held',
    lease: 'granted',
    view: { ...live, connected: false },
    key: 'a',
    decision: { kind: 'held' },
    held: 'a',
  },
  { name: 'requested: held', lease: 'requested', view: live, key: 'a', decision: { kind: 'held' }, held: 'a' },
  { name: 'queued: held', lease: 'queued', view: live, key: 'a', decision: { kind: 'held' }, held: 'a' },
  {
    name: 'no lease, not connected: refused',
    lease: 'none',
    view: { ...live, connected: false },
    key: 'a',
    decision: { kind: 'refused', notice: 'not-connected' },
    held: '',
  },
  {
    name: 'no lease, queue busy: refused',
    lease: 'none',
    view: { ...live, status: status({ holder: 'model-send' }) },
    key: 'a',
    decision: { kind: 'refused', notice: 'busy' },
    held: '',
  },
  {
    name: 'no lease, blocked: refused',
    lease: 'none',
    view: { ...live, status: status({ queueStatus: 'blocked' }) },
    key: 'a',
    decision: { kind: 'refused', notice: 'blocked' },
    held: '',
  },
  {
    name: 'no lease, exited: refused',
    lease: 'none',
    view: { ...live, status: status({ process: { kind: 'exited', exitCode: 0, signal: null } }) },
    key: 'a',
    decision: { kind: 'refused', notice: 'exited' },
    held: '',
  },
  { name: 'no lease, idle prompt: begin', lease: 'none', view: live, key: 'a', decision: { kind: 'begin', input: 'a' }, held: '' },
  {
    name: 'no lease, idle prompt, key over the limit: refused',
    lease: 'none',
    view: live,
    key: 'é'.repeat(9),
    decision: { kind: 'refused', notice: 'input-limit' },
    held: '',
  },
];

for (const c of cases) {
  test(`input gate: ${c.name}`, () => {
    const r = attachedWith(c.lease);
    assert.deepEqual(r.gate.input(c.key, c.view), c.decision);
    assert.equal(r.gate.heldInput, c.held);
  });
}

test('input gate: the first key and the held keys share one frame limit', () => {
  const r = attachedWith('none');
  assert.deepEqual(r.gate.input('x'.repeat(10), live), { kind: 'begin', input: 'x'.repeat(10) });
  r.gate.requested('idle');
  assert.deepEqual(r.gate.input('y'.repeat(6), live), { kind: 'held' });
  assert.deepEqual(r.gate.input('z', live), { kind: 'refused', notice: 'input-limit' });
  assert.equal(r.gate.heldInput, 'y'.repeat(6));
});

test('input gate: held keys leave once, when granted on a live socket', () => {
  const r = attachedWith('requested');
  r.gate.input('ab', live);
  assert.equal(r.gate.takeHeld(true), null, 'not granted yet');
  r.gate.leaseFrame(lease('granted'));
  assert.equal(r.gate.takeHeld(false), null, 'no socket');
  assert.equal(r.gate.takeHeld(true), 'ab');
  assert.equal(r.gate.takeHeld(true), null);
  assert.deepEqual(r.notices, []);
});

// After a reconnect: [lease frame before the first status?] → does the lease (and the held keys) survive?
const reattach: Array<{ name: string; announce: boolean; lease: string; held: string; notices: ViewNoticeCode[] }> = [
  { name: 'the server announced the lease again: keys survive', announce: true, lease: 'granted', held: 'ab', notices: [] },
  {
    name: 'no announcement before the first status: keys dropped, with a notice',
    announce: false,
    lease: 'none',
    held: '',
    notices: ['discarded-input'],
  },
];
for (const c of reattach) {
  test(`input gate: ${c.name}`, () => {
    const r = attachedWith('queued');
    r.gate.input('ab', live);
    r.gate.attaching();
    assert.equal(r.gate.phase, 'attaching');
    if (c.announce) r.gate.leaseFrame(lease('granted'));
    r.gate.status();
    assert.equal(r.gate.phase, 'attached');
    assert.equal(r.gate.lease.state, c.lease);
    assert.equal(r.gate.heldInput, c.held);
    assert.deepEqual(r.notices, c.notices);
  });
}

test('input gate: a revoke keeps its reason; a reset or disposal none', () => {
  const r = attachedWith('granted');
  r.gate.leaseFrame({ ...lease('revoked'), reason: 'cancelled' });
  assert.equal(r.gate.lease.reason, 'cancelled');
  r.gate.leaseFrame(lease('granted', 2));
  r.gate.forget('reset');
  assert.deepEqual(r.gate.lease, { state: 'none', origin: null, leaseId: null, reason: null });
});
