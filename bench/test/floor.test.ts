/**
 * The floor (bench/baseline/floor.ts) on a real bash: each of its figures stops at the event it names
 * (the prompt mark, bash asleep in read(2), the flood's end line, the echo), not at the first output.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Floor } from '../baseline/floor.ts';

let dir = '';
let floor: Floor;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'st-floor-'));
  floor = new Floor({ cwd: dir, rows: 40, cols: 160 });
  await floor.ready;
});

after(async () => {
  await floor.kill();
  rmSync(dir, { recursive: true, force: true });
});

test('write to prompt waits for the next prompt mark, with or without the parse', async () => {
  assert.ok((await floor.writeToPrompt('true')) > 0);
  // Output comes at once, the prompt 0.3 s later: the figure is the prompt's.
  assert.ok((await floor.writeToPrompt('echo early; sleep 0.3')) >= 300);
  assert.ok((await floor.writeToPrompt('echo early; sleep 0.3', true)) >= 300);
});

test('the reader is seen when bash sleeps in read(2), not before', async () => {
  if (process.arch !== 'x64') return; // the floor's look knows x86_64's syscall numbers only
  const seen = await floor.readerSeen('read x', 'answer');
  assert.ok(seen !== null && seen > 0, 'bash reading its line is seen');
  const later = await floor.readerSeen('sleep 0.3; read x', 'answer');
  assert.ok(later !== null && later >= 300, `the sleep before the read is not taken for it: ${later} ms`);
});

test('the read rate runs until the end line, read or parsed', async () => {
  const bytes = 2_000_000;
  const command = `head -c ${bytes} /dev/zero | tr '\\0' 7; printf '\\nfloor-%s\\n' end`;
  for (const parse of [false, true]) {
    const { mbPerSecond, seconds } = await floor.readRate(command, 'floor-end', bytes, parse);
    assert.ok(seconds > 0 && Number.isFinite(mbPerSecond), `parse ${parse}: ${mbPerSecond} MB/s in ${seconds} s`);
  }
  const slow = await floor.readRate(`sleep 0.3; ${command}`, 'floor-end', bytes);
  assert.ok(slow.seconds >= 0.3, `the end line, not the first output, stops the clock: ${slow.seconds} s`);
});

test('each echo is the letter typed, read back', async () => {
  const { times, missed } = await floor.echoTimes(6);
  assert.equal(missed, 0);
  assert.equal(times.length, 6);
  assert.ok(times.every((ms) => ms > 0));
  assert.ok((await floor.writeToPrompt('')) > 0, 'the line typed is cleared and bash is back at its prompt');
});
