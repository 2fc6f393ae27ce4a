/**
 * Transport, point 7 of issue 3: 10,000 random and mutated frames from the controller (bad JSON, wrong
 * types, unknown keys, huge strings, binary, invalid UTF-8, stale generations). Each gets a clean close
 * (1007/1008/1009) or a notice, or is a harmless valid frame (ack, resync, ping); the server stays up and
 * the PTY receives nothing: its output sequence and text are unchanged and no lease ever started.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type HumanSettled, runSend } from '../src/index.ts';
import { parseClientFrame } from '../src/protocol/index.ts';
import { type Harness, type ViewClient, seededRandom, startHarness, testSeed } from './helpers/transport-harness.ts';

const FRAMES = 10_000;
const MAX_INPUT = 1024;
/** The transport's socket limit for this config (maxInputBytes * 6 + 1024). */
const MAX_PAYLOAD = MAX_INPUT * 6 + 1024;

type Expect = 'close' | 'notice' | 'quiet';
interface FuzzFrame {
  data: string | Buffer;
  binary: boolean;
  expect: Expect;
  kind: string;
}

const MUTATING = new Set(['begin', 'input', 'takeover', 'interrupt', 'reset']);

function makeFuzzer(next: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const int = (n: number) => Math.floor(next() * n);
  const text = (length: number) => {
    let out = '';
    for (let i = 0; i < length; i++) out += String.fromCharCode(int(0x250));
    return out;
  };
  const oddValues: readonly unknown[] = [
    null,
    true,
    false,
    0,
    -1,
    1.5,
    2 ** 60,
    '',
    '1',
    'x',
    [],
    [1],
    {},
    { a: 1 },
    '\ud800',
    'é'.repeat(40),
  ];

  function template(generation: number): Record<string, unknown> {
    const base = { v: 1, generation };
    switch (pick(['begin', 'input', 'takeover', 'interrupt', 'reset', 'ack', 'resync', 'ping'] as const)) {
      case 'begin':
        return { ...base, type: 'begin', input: `echo fuzz-${int(1000)}\r` };
      case 'input':
        return { ...base, type: 'input', input: 'y\r' };
      case 'takeover':
        return { ...base, type: 'takeover', takeoverId: String(1 + int(50)) };
      case 'interrupt':
        return { ...base, type: 'interrupt' };
      case 'reset':
        return { ...base, type: 'reset', confirmed: true };
      case 'ack':
        return { ...base, type: 'ack', sequence: int(100) };
      case 'resync':
        return { ...base, type: 'resync' };
      case 'ping':
        return { ...base, type: 'ping', t: int(1000) };
    }
  }

  function mutate(frame: Record<string, unknown>, generation: number): void {
    const keys = Object.keys(frame);
    switch (int(9)) {
      case 0:
        delete frame[pick(keys)];
        return;
      case 1:
        frame[pick(['extra', 'ownerId', 'session', '__proto__x', 'pty'])] = pick(oddValues);
        return;
      case 2:
        frame[pick(keys)] = pick(oddValues);
        return;
      case 3:
        frame['v'] = pick([0, 2, '1', null, 1.0000001]);
        return;
      case 4:
        frame['generation'] = pick([generation + 1, generation - 1, generation + 1000, -1, 0.5, '1', null]);
        return;
      case 5:
        frame['type'] = pick(['Begin', 'input ', 'resize', 'claim', '', 'heartbeat', 'human.begin']);
        return;
      case 6:
        if ('input' in frame) frame['input'] = pick(['', '\ud800x', 42, ['a'], 'ok\udc00', 'x'.repeat(MAX_INPUT + 1 + int(3000))]);
        else frame['input'] = 'unexpected';
        return;
      case 7:
        if ('takeoverId' in frame) frame['takeoverId'] = pick(['0', '01', 'abc', '1e3', 5, '12345678901234567', '-1']);
        else if ('sequence' in frame) frame['sequence'] = pick([-1, 1.5, '5', null, 2 ** 60]);
        else if ('confirmed' in frame) frame['confirmed'] = pick([false, 'true', 1, null]);
        else if ('t' in frame) frame['t'] = pick(['x', null, [], {}]);
        else frame['confirmed'] = true;
        return;
      default:
        frame['generation'] = generation + 1 + int(5); // a stale (future) generation
    }
  }

  return function make(generation: number): FuzzFrame {
    const roll = next();
    if (roll < 0.1) {
      const bytes = Buffer.alloc(1 + int(300));
      for (let i = 0; i < bytes.length; i++) bytes[i] = int(256);
      return { data: bytes, binary: true, expect: 'close', kind: 'binary' };
    }
    if (roll < 0.15) {
      // Not UTF-8, sent as a text frame.
      return { data: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0xff, 0xfe, 0x22, 0x7d]), binary: false, expect: 'close', kind: 'bad-utf8' };
    }
    if (roll < 0.25) return { data: text(int(200)), binary: false, expect: 'close', kind: 'garbage' };
    if (roll < 0.3)
      return { data: JSON.stringify(pick([[], 1, 'frame', null, true, [{ v: 1 }]])), binary: false, expect: 'close', kind: 'non-object' };
    if (roll < 0.33) {
      const frame = template(generation);
      frame['pad'] = 'z'.repeat(MAX_PAYLOAD + int(20_000));
      return { data: JSON.stringify(frame), binary: false, expect: 'close', kind: 'huge' };
    }
    const frame = template(generation);
    if (roll < 0.38 && (frame['type'] === 'begin' || frame['type'] === 'input')) {
      // Valid but over the input cap: refused with a notice.
      frame['input'] = 'q'.repeat(MAX_INPUT + 1 + int(MAX_INPUT * 3));
    } else {
      const mutations = 1 + int(3);
      for (let i = 0; i < mutations; i++) mutate(frame, generation);
    }
    let data = JSON.stringify(frame);
    const parsed = parseClientFrame(data, { maxInputBytes: Number.MAX_SAFE_INTEGER });
    if (!parsed.ok) return { data, binary: false, expect: 'close', kind: 'invalid' };
    const valid = parsed.frame;
    if (MUTATING.has(valid.type)) {
      const overCap = 'input' in valid && Buffer.byteLength(valid.input) > MAX_INPUT;
      const refusedByState = valid.type === 'input' || valid.type === 'interrupt' || valid.type === 'takeover';
      if (valid.generation === generation && !overCap && !refusedByState) {
        // A valid begin or reset for the live generation would act: make it stale, so it must be refused.
        frame['generation'] = generation + 1 + int(3);
        data = JSON.stringify(frame);
      }
      return { data, binary: false, expect: 'notice', kind: `valid-${valid.type}` };
    }
    if (valid.generation !== generation && valid.type === 'ack') return { data, binary: false, expect: 'notice', kind: 'stale-ack' };
    return { data, binary: false, expect: 'quiet', kind: `valid-${valid.type}` };
  };
}

describe('transport fuzz', () => {
  let h: Harness;
  const settled: HumanSettled[] = [];
  before(async () => {
    h = await startHarness({ config: { maxInputBytes: MAX_INPUT } });
    h.transport.on('human-settled', (event) => settled.push(event));
  });
  after(async () => {
    await h.close();
  });

  test(`${FRAMES} random and mutated frames: clean errors or closes, the server stays up, the PTY gets nothing`, async () => {
    const seed = testSeed('fuzz');
    // Four controllers of four owners fuzz side by side (each connection is a round trip away).
    const workers = 4;
    const reports = await Promise.all(Array.from({ length: workers }, (_, w) => fuzzOwner(h, `fuzz-${w}`, FRAMES / workers, seed + w)));
    const tally: Record<string, number> = {};
    for (const report of reports) for (const [key, n] of Object.entries(report.tally)) tally[key] = (tally[key] ?? 0) + n;
    const connections = reports.reduce((sum, r) => sum + r.connections, 0);
    console.log(`# fuzz: ${FRAMES} frames over ${connections} connections; outcomes ${JSON.stringify(tally)}`);
    const mismatches = reports.flatMap((r) => r.mismatches);
    assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} frames were not answered as expected`);
    assert.deepEqual(settled, [], 'no human interaction happened');

    for (const { ownerId, baseline, leases, proof } of reports) {
      // The PTY received nothing: no output, the same text, no lease.
      const owner = h.hub.get(ownerId)!;
      assert.equal(owner.generation!.generation, baseline.generation, 'no reset happened');
      assert.equal(owner.generation!.sequence, baseline.sequence, 'the shell printed nothing (it was sent nothing)');
      assert.equal(await owner.generation!.allText(), baseline.text);
      assert.deepEqual(leases, [], 'no lease was ever queued or granted');
      assert.deepEqual([owner.state().holder, owner.state().queueStatus], [null, 'ready']);

      // The server is up and the terminal still works for a legitimate controller.
      const check = await h.connect(ownerId, { resume: proof! });
      await check.waitFor(() => check.status !== undefined, 'status');
      check.type('echo still-alive\r');
      await check.waitFor(() => check.lease?.state === 'revoked', 'a legitimate lease to run and end');
      assert.match(await owner.generation!.allText(), /still-alive/);
      check.terminate();
    }
  });

  async function fuzzOwner(h: Harness, ownerId: string, frames: number, seed: number) {
    const make = makeFuzzer(seededRandom(seed));
    await runSend(h.hub, ownerId, { text: 'echo fuzz-baseline' });
    const owner = h.hub.get(ownerId)!;
    const generation = owner.generation!.generation;
    const baseline = { generation, sequence: owner.generation!.sequence, text: await owner.generation!.allText() };
    let client: ViewClient | undefined;
    let proof: string | undefined;
    let connections = 0;
    const leases: unknown[] = [];
    const tally: Record<string, number> = {};
    const mismatches: string[] = [];
    const connect = async () => {
      if (client) leases.push(...client.leases);
      client = await h.connect(ownerId, { replica: false, ...(proof ? { resume: proof } : {}) });
      connections += 1;
      if (!client.status) await client.nextFrame((f) => f.type === 'status');
      if (client.role?.role !== 'controller') throw new Error(`fuzzing needs the controller, got ${client.role?.reason}`);
      proof = client.resume;
    };
    for (let i = 0; i < frames; i++) {
      if (!client || client.close) await connect();
      const view = client!;
      const frame = make(generation);
      const noticesBefore = view.notices.length;
      view.sendRaw(frame.data, { binary: frame.binary });
      view.send({ v: 1, type: 'ping', generation, t: i });
      let outcome = await view.nextFrame((f) => f.type === 'pong' && f.t === i);
      if (outcome === 'frame' && frame.expect === 'notice' && view.notices.length === noticesBefore) {
        // Human frames are answered from the seat's chain, possibly after the pong.
        outcome = await view.nextFrame((f) => f.type === 'notice');
      }
      const got: Expect = outcome === 'closed' ? 'close' : view.notices.length > noticesBefore ? 'notice' : 'quiet';
      const code = view.close?.code;
      const key = `${frame.kind}:${got}${got === 'close' ? `:${code}` : ''}`;
      tally[key] = (tally[key] ?? 0) + 1;
      const cleanClose = got === 'close' && (code === 1007 || code === 1008 || code === 1009);
      if (got !== frame.expect || (got === 'close' && !cleanClose)) {
        mismatches.push(
          `${ownerId} #${i} ${frame.kind}: expected ${frame.expect}, got ${got} (${code ?? ''}) ${String(frame.data).slice(0, 120)}`,
        );
      }
    }
    if (client) {
      leases.push(...client.leases);
      client.terminate();
    }
    return { ownerId, baseline, leases, proof, connections, tally, mismatches };
  }
});
