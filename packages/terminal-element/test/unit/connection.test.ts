// The connection controller's rules, one test each. The scripted server produces the faults a real server
// will not produce on demand (a sequence gap, a garbled frame, a close code at an exact moment); time is a
// manual clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CloseCode, PROTOCOL_VERSION, RESUME_PREFIX, SUBPROTOCOL, READONLY_SUBPROTOCOL } from '@shared-terminal/server/protocol';
import { TerminalConnection, type ConnectionOptions, type ViewNotice, type ConnectionState } from '../../src/connection.ts';
import { ScriptedServer, type ScriptedServerOptions } from '@shared-terminal/test-support/scripted-server';
import { ManualTimers, settle } from '../helpers/manual-timers.ts';

interface Rig {
  server: ScriptedServer;
  connection: TerminalConnection;
  timers: ManualTimers;
  notices: ViewNotice[];
  states: ConnectionState[];
  outputs: string[];
  snapshots: number;
}

async function connected(serverOptions: ScriptedServerOptions = {}, options: Partial<ConnectionOptions> = {}): Promise<Rig> {
  const server = new ScriptedServer(serverOptions);
  const timers = new ManualTimers();
  const connection = new TerminalConnection({
    connector: server.connector,
    createSocket: server.createSocket,
    timers,
    heartbeatMs: 0,
    ...options,
  });
  const rig: Rig = { server, connection, timers, notices: [], states: [], outputs: [], snapshots: 0 };
  connection.on('notice', (n) => rig.notices.push(n));
  connection.on('state', (s) => rig.states.push(s.state));
  connection.on('output', (f) => rig.outputs.push(f.data));
  connection.on('snapshot', () => (rig.snapshots += 1));
  connection.start();
  await settle();
  return rig;
}

const codes = (rig: Rig): string[] => rig.notices.map((n) => n.code);
const types = (rig: Rig): string[] => rig.server.received.map((r) => r.frame.type).filter((t) => t !== 'ack');

test('attaches with the v1 subprotocol and a one-time token, and becomes controller', async () => {
  const rig = await connected();
  const socket = rig.server.socket!;
  assert.equal(socket.protocols[0], SUBPROTOCOL);
  assert.match(socket.protocols[1]!, /^token\.[A-Za-z0-9_-]{43}$/);
  assert.equal(socket.protocols.length, 2, 'no resume proof and no read-only mode on a first controller attach');
  assert.equal(rig.connection.state, 'connected');
  assert.equal(rig.connection.role, 'controller');
  assert.equal(rig.connection.rows, 24);
  assert.equal(rig.connection.cols, 80);
  assert.deepEqual(rig.server.connectorCalls, [{ readonly: false }]);
});

test('a read-only view asks for mode.readonly, offers no proof, and sends no input', async () => {
  const rig = await connected({}, { readonly: true });
  assert.ok(rig.server.socket!.protocols.includes(READONLY_SUBPROTOCOL));
  assert.deepEqual(rig.server.connectorCalls, [{ readonly: true }]);
  assert.equal(rig.connection.role, 'readonly');
  rig.connection.input('x');
  assert.equal(rig.connection.takeover(), false);
  assert.equal(rig.connection.reset(), false);
  assert.deepEqual(types(rig), []);
  assert.ok(codes(rig).includes('readonly'));
});

test('the resume proof is offered on the next attach after a network loss', async () => {
  const rig = await connected();
  const proof = rig.server.resumeProof!;
  rig.server.socket!.serverClose(1006);
  await settle();
  assert.equal(rig.connection.state, 'reconnecting');
  rig.timers.advance(250);
  await settle();
  assert.equal(rig.server.sockets.length, 2);
  assert.ok(rig.server.socket!.protocols.includes(`${RESUME_PREFIX}${proof}`));
  assert.equal(rig.connection.roleReason, 'resumed');
  assert.equal(rig.connection.state, 'connected');
});

test('an invalid resume proof is forgotten: the next attach offers none', async () => {
  const rig = await connected();
  rig.server.resumeProof = 'x'.repeat(43); // the server no longer knows the view's proof
  rig.connection.reconnect();
  await settle();
  assert.equal(rig.connection.role, 'readonly');
  assert.equal(rig.connection.roleReason, 'invalid-resume');
  assert.equal(rig.connection.hasResumeProof, false);
  rig.connection.reconnect();
  await settle();
  assert.equal(rig.server.socket!.resume, undefined);
});

test('a sequence gap asks for a resync and drops output until the fresh snapshot replaces the view', async () => {
  const rig = await connected();
  rig.server.output('a');
  rig.server.output('c', { skip: 1 }); // sequence 3 after 1: a gap
  rig.server.output('d');
  assert.deepEqual(rig.outputs, ['a']);
  assert.deepEqual(types(rig), ['resync']);
  rig.server.send(rig.server.snapshotFrame());
  rig.server.output('e');
  assert.equal(rig.snapshots, 2);
  assert.deepEqual(rig.outputs, ['a', 'e']);
  assert.equal(rig.connection.sequence, 5);
});

test('a duplicate output is dropped', async () => {
  const rig = await connected();
  rig.server.output('a');
  rig.server.send({ v: PROTOCOL_VERSION, type: 'output', generation: 1, sequence: 1, data: 'a' });
  assert.deepEqual(rig.outputs, ['a']);
  assert.deepEqual(types(rig), []);
});

test('output of another generation asks for a fresh snapshot', async () => {
  const rig = await connected();
  rig.server.send({ v: PROTOCOL_VERSION, type: 'output', generation: 2, sequence: 1, data: 'x' });
  assert.deepEqual(rig.outputs, []);
  assert.deepEqual(types(rig), ['resync']);
});

test('a snapshot of a new generation replaces the view and forgets the lease and held keys', async () => {
  const rig = await connected();
  const generations: number[] = [];
  rig.connection.on('generation', (g) => generations.push(g.generation));
  rig.connection.input('l');
  rig.connection.input('s');
  rig.server.generation = 2;
  rig.server.sequence = 0;
  rig.server.send(rig.server.snapshotFrame());
  assert.deepEqual(generations, [2]);
  assert.equal(rig.connection.lease.state, 'none');
  assert.equal(rig.connection.heldInput, '');
  assert.ok(codes(rig).includes('discarded-input'));
});

test('keys typed before the grant are held and sent once after it: first key in begin, the rest in one input', async () => {
  const rig = await connected();
  for (const key of 'echo hi\r') rig.connection.input(key);
  assert.deepEqual(types(rig), ['begin']);
  assert.equal(rig.server.framesOfType('begin')[0]!.input, 'e');
  assert.equal(rig.connection.heldInput, 'cho hi\r');
  rig.server.grant();
  assert.deepEqual(types(rig), ['begin', 'input']);
  assert.equal(rig.server.framesOfType('input')[0]!.input, 'cho hi\r');
  // A repeated grant (as after a resume) sends nothing again.
  rig.server.grant();
  rig.server.setStatus({ holder: 'human', queueStatus: 'busy' });
  assert.deepEqual(types(rig), ['begin', 'input']);
  rig.connection.input('x');
  assert.deepEqual(
    rig.server.framesOfType('input').map((f) => f.input),
    ['cho hi\r', 'x'],
  );
});

test('held keys are discarded with a notice when the lease is refused', async () => {
  const rig = await connected();
  rig.connection.input('a');
  rig.connection.input('b');
  rig.server.revoke('refused');
  assert.equal(rig.connection.lease.state, 'none');
  assert.equal(rig.connection.lease.reason, 'refused');
  assert.ok(codes(rig).includes('discarded-input'));
  rig.server.grant();
  assert.deepEqual(types(rig), ['begin']);
});

test('after a reconnect, held keys go out only if the lease is announced before the first status frame', async () => {
  const rig = await connected();
  rig.connection.input('a');
  rig.server.socket!.serverClose(1006);
  await settle();
  rig.connection.input('b'); // typed while away: held
  rig.server.lease = { id: 1, state: 'granted', origin: 'idle' }; // the server kept the lease
  rig.timers.advance(250);
  await settle();
  assert.deepEqual(
    rig.server.framesOfType('input').map((f) => f.input),
    ['b'],
  );

  const lost = await connected();
  lost.connection.input('a');
  lost.connection.input('b');
  lost.server.socket!.serverClose(1006);
  await settle();
  lost.timers.advance(250); // the server has no lease for this view any more
  await settle();
  assert.deepEqual(types(lost), ['begin']);
  assert.equal(lost.connection.lease.state, 'none');
  assert.ok(codes(lost).includes('discarded-input'));
});

test('typing while the model holds the terminal sends nothing and asks to take over', async () => {
  const rig = await connected({ status: { queueStatus: 'busy', holder: 'model-send', takeoverId: '7' } });
  rig.connection.input('y');
  assert.deepEqual(types(rig), []);
  assert.deepEqual(codes(rig), ['busy']);
  assert.equal(rig.connection.takeover(), true);
  assert.deepEqual(rig.server.framesOfType('takeover'), [{ v: 1, type: 'takeover', generation: 1, takeoverId: '7' }]);
  rig.connection.input('y'); // before the grant: held
  rig.server.grant('takeover');
  assert.deepEqual(
    rig.server.framesOfType('input').map((f) => f.input),
    ['y'],
  );
  assert.equal(rig.connection.canInterrupt, true);
  rig.connection.interrupt();
  assert.equal(types(rig).at(-1), 'interrupt');
});

test('input that would make a frame larger than maxInputBytes is refused with a notice', async () => {
  const rig = await connected({ maxInputBytes: 8 });
  rig.connection.input('abcd'); // begin: 4 bytes
  rig.connection.input('好'); // held: 7 in all (they leave as begin + one input frame)
  rig.connection.input('xy'); // 9: the held frame would be over 8
  assert.deepEqual(codes(rig), ['input-limit']);
  rig.server.grant();
  assert.deepEqual(
    rig.server.framesOfType('input').map((f) => f.input),
    ['好'],
  );
  rig.connection.input('12345678'); // after the grant each frame stands alone; the server counts the total
  rig.connection.input('123456789');
  assert.deepEqual(
    rig.server.framesOfType('input').map((f) => f.input),
    ['好', '12345678'],
  );
  assert.deepEqual(codes(rig), ['input-limit', 'input-limit']);
  assert.equal(rig.server.sockets[0]!.closed, false, 'no frame failed validation');
});

test('no automatic retry after a protocol error close (1008)', async () => {
  const rig = await connected();
  rig.server.socket!.serverClose(CloseCode.protocolError);
  await settle();
  assert.equal(rig.connection.state, 'failed');
  rig.timers.advance(60_000);
  await settle();
  assert.equal(rig.server.connectorCalls.length, 1);
  assert.ok(codes(rig).includes('protocol-error'));
  rig.connection.reconnect(); // the person's Reconnect works
  await settle();
  assert.equal(rig.connection.state, 'connected');
});

test('no automatic retry after a frame that fails validation', async () => {
  const rig = await connected();
  rig.server.socket!.deliverRaw('{"v":1,"type":"output","generation":1,"sequence":1}');
  assert.equal(rig.connection.state, 'failed');
  assert.equal(rig.server.sockets[0]!.closeCode, CloseCode.protocolError);
  rig.timers.advance(60_000);
  await settle();
  assert.equal(rig.server.connectorCalls.length, 1);
});

test('no automatic retry after the terminal was disposed (4002); the proof is forgotten', async () => {
  const rig = await connected();
  rig.server.socket!.serverClose(CloseCode.disposed);
  await settle();
  assert.equal(rig.connection.state, 'disposed');
  assert.equal(rig.connection.hasResumeProof, false);
  rig.timers.advance(60_000);
  await settle();
  assert.equal(rig.server.connectorCalls.length, 1);
  assert.ok(codes(rig).includes('disposed'));
});

test("no automatic retry after the host refused the page (4005); the reason is the notice's detail", async () => {
  const rig = await connected();
  const reason = 'origin http://127.0.0.1:5174 is not allowed: start the server with --allow-origin http://127.0.0.1:5174';
  rig.server.socket!.serverClose(CloseCode.refused, reason);
  await settle();
  assert.equal(rig.connection.state, 'failed');
  rig.timers.advance(60_000);
  await settle();
  assert.equal(rig.server.connectorCalls.length, 1, 'no retry');
  assert.deepEqual(
    rig.notices.filter((n) => n.code === 'refused' || n.code === 'reconnecting'),
    [{ code: 'refused', detail: reason }],
  );
});

test('no automatic retry after the view was disposed', async () => {
  const rig = await connected();
  rig.connection.dispose();
  await settle();
  rig.timers.advance(60_000);
  await settle();
  assert.equal(rig.server.connectorCalls.length, 1);
  assert.equal(rig.server.socket!.closeCode, CloseCode.normal);
  assert.equal(rig.connection.hasResumeProof, false);
});

test('network loss retries with growing delays until attached again', async () => {
  const rig = await connected();
  rig.server.connectorFailures.push(new Error('offline'), new Error('offline'));
  rig.server.socket!.serverClose(1006);
  await settle();
  assert.deepEqual(rig.timers.waiting, [250]);
  rig.timers.advance(250);
  await settle();
  assert.deepEqual(rig.timers.waiting, [500]);
  rig.timers.advance(500);
  await settle();
  assert.deepEqual(rig.timers.waiting, [1000]);
  rig.timers.advance(1000);
  await settle();
  assert.equal(rig.connection.state, 'connected');
  assert.equal(rig.server.connectorCalls.length, 4);
  assert.ok(codes(rig).includes('reconnecting'));
  assert.ok(codes(rig).includes('connect-failed'));
});

test('a reset close (4001) attaches again at once and forgets the old lease', async () => {
  const rig = await connected({ mode: 'shell' });
  rig.connection.input('a');
  await settle();
  assert.equal(rig.connection.lease.state, 'granted');
  rig.server.resetGeneration();
  await settle();
  assert.equal(rig.connection.generation, 2);
  assert.equal(rig.connection.lease.state, 'none');
  assert.equal(rig.connection.state, 'connected');
  assert.equal(rig.server.sockets.length, 2);
});

test('a silent socket is dropped after two heartbeat intervals and attached again', async () => {
  const rig = await connected({ mode: 'manual' }, { heartbeatMs: 1000 });
  rig.timers.advance(1000);
  assert.deepEqual(types(rig), ['ping']);
  rig.timers.advance(2000); // no pong, no frame at all
  await settle();
  assert.equal(rig.server.sockets[0]!.closed, true);
  assert.equal(rig.connection.state, 'reconnecting');
  rig.timers.advance(250);
  await settle();
  assert.equal(rig.connection.state, 'connected');
});

test('acks report the parsed sequence once the renderer caught up', async () => {
  const rig = await connected();
  rig.server.output('a');
  rig.server.output('b');
  rig.connection.parsed(1, 1);
  assert.deepEqual(rig.server.framesOfType('ack'), []);
  rig.connection.parsed(2, 1);
  assert.deepEqual(
    rig.server.framesOfType('ack').map((f) => f.sequence),
    [2],
  );
});

test('every snapshot is acked once parsed, even one with a sequence acked before (the server counts its replay until then)', async () => {
  const rig = await connected();
  rig.server.output('a');
  rig.connection.parsed(1, 1);
  assert.deepEqual(
    rig.server.framesOfType('ack').map((f) => f.sequence),
    [1],
  );
  // A catch-up, then the full snapshot at the same sequence once output went quiet.
  rig.server.send(rig.server.snapshotFrame());
  rig.connection.parsed(1, 0);
  rig.server.send(rig.server.snapshotFrame());
  rig.connection.parsed(1, 0);
  assert.deepEqual(
    rig.server.framesOfType('ack').map((f) => f.sequence),
    [1, 1, 1],
  );
  // Outputs after it are acked as before: not twice.
  rig.connection.parsed(1, 0);
  assert.equal(rig.server.framesOfType('ack').length, 3);
});

test('a status that turns blocked or exited raises one notice each', async () => {
  const rig = await connected();
  rig.server.setStatus({ queueStatus: 'blocked' });
  rig.server.setStatus({ queueStatus: 'blocked' });
  rig.server.setStatus({ queueStatus: 'exited', process: { kind: 'exited', exitCode: 0, signal: null } });
  rig.server.setStatus({ queueStatus: 'exited', process: { kind: 'exited', exitCode: 0, signal: null } });
  assert.deepEqual(codes(rig), ['blocked', 'exited']);
});

test('a view that asked to be read only offers no reset, even when the server still makes it controller', async () => {
  // A server that ignores mode.readonly (an older one): the element disables Reset Terminal for a view that
  // asked to be read only, and the connection must agree rather than send the reset.
  const server = new ScriptedServer({});
  const createSocket: ConnectionOptions['createSocket'] = (url, protocols) =>
    server.createSocket(
      url,
      protocols.filter((p) => p !== READONLY_SUBPROTOCOL),
    );
  const rig = await connected({}, { readonly: true, createSocket, connector: server.connector });
  assert.equal(rig.connection.state, 'connected');
  assert.equal(rig.connection.role, 'controller');
  assert.equal(rig.connection.canReset, false);
  assert.equal(rig.connection.reset(), false);
  assert.deepEqual(server.framesOfType('reset'), []);
  assert.ok(codes(rig).includes('readonly'));
});
