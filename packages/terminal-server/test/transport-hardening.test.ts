/**
 * Hardening (issue 18): what one hostile view can cost the server.
 * - A frame's cost is linear in its size: a refused frame with a huge unknown field name costs, per
 *   byte, about the same at 20 kB as at 160 kB (a ratio, never an absolute time), and its close reason
 *   and error text echo at most a few bytes of it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseClientFrame } from '../src/protocol/index.ts';
import { closeReason } from '../src/transport/messages.ts';

/** The work the transport does for a refused frame: validate it, then make its close reason. */
function refuse(text: string): string {
  const parsed = parseClientFrame(text, { maxInputBytes: Number.MAX_SAFE_INTEGER });
  assert.equal(parsed.ok, false);
  return closeReason(parsed.ok ? '' : parsed.error);
}

/** The fastest of a few runs (the least disturbed by other work on the machine), in nanoseconds. */
function fastest(text: string, runs = 5): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    refuse(text);
    best = Math.min(best, Number(process.hrtime.bigint() - start));
  }
  return best;
}

describe('a frame costs linear time', () => {
  test('a long unknown field name: 8x the size costs at most ~3x the linear share, and is not echoed', () => {
    const frame = (length: number) => `{"v":1,"type":"ping","generation":1,"t":1,"${'k'.repeat(length)}":1}`;
    const small = frame(20_000);
    const large = frame(160_000);
    for (let i = 0; i < 3; i++) refuse(large); // warm up the JIT on the large case too
    const ratio = fastest(large) / fastest(small);
    console.log(`# 160 kB / 20 kB refusal time: ${ratio.toFixed(1)} (linear: 8, quadratic: 64)`);
    assert.ok(ratio < 24, `refusing 8x the bytes took ${ratio.toFixed(1)}x the time: not linear`);
    const reason = refuse(large);
    assert.ok(Buffer.byteLength(reason) <= 123);
    const parsed = parseClientFrame(large, { maxInputBytes: 1 });
    assert.ok(!parsed.ok && parsed.error.length < 100, 'the error text quotes a bounded part of the field name');
  });

  test('close reasons are cut at 123 bytes on a character boundary', () => {
    assert.equal(closeReason('short'), 'short');
    const cut = closeReason('é'.repeat(100));
    assert.equal(Buffer.byteLength(cut), 122);
    assert.equal(cut, 'é'.repeat(61));
    const emoji = closeReason(`${'a'.repeat(121)}😀`);
    assert.equal(emoji, 'a'.repeat(121));
  });
});
