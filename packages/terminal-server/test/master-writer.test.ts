/**
 * Writes to the PTY master (master-writer.ts): in order and whole, also when the program is not reading and
 * the terminal's input buffer is full; nothing once the descriptor is closed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createNodePtyProvider } from '../src/index.ts';
import { MasterWriter } from '../src/pty/master-writer.ts';
import { waitFor } from './helpers/engine.ts';

describe('writes to the PTY master', { skip: process.platform !== 'linux' }, () => {
  it('reach a program that reads late, in order and whole, far past what the terminal buffers', { timeout: 60_000 }, async () => {
    const size = 2_000_000; // the kernel buffers up to 640 KiB of input for a program not reading
    const dir = mkdtempSync(join(tmpdir(), 'master-writer-'));
    const go = join(dir, 'go');
    // Raw mode (no line limit, no echo) before anything is written; then nothing is read until `go`
    // exists, so most of the input waits in the writer's queue until the terminal has room.
    const handle = await createNodePtyProvider().spawn({
      argv: ['bash', '-c', `stty raw -echo; echo ready; until [ -e ${go} ]; do sleep 0.02; done; head -c ${size} | sha256sum`],
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', TERM: 'xterm-256color' },
      rows: 24,
      cols: 80,
      graceMs: 500,
    });
    let output = '';
    handle.output.on('data', (chunk: string) => (output += chunk));
    await waitFor(() => output.includes('ready'), 'the terminal in raw mode');
    const pieces: string[] = [];
    for (let i = 0, length = 0; length < size; i++) {
      pieces.push(`${i},`.repeat(1 + (i % 97)));
      length += pieces[i]!.length;
    }
    const input = pieces.join('').slice(0, size);
    let at = 0;
    for (const piece of pieces) {
      const part = input.slice(at, at + piece.length);
      if (part) handle.write(part);
      at += piece.length;
    }
    const writer = (handle as unknown as { writer?: MasterWriter }).writer;
    assert.ok(writer, 'node-pty shows its master: writes go straight to it');
    assert.ok(writer.pendingBytes > 0, 'the terminal took only part of it at once');
    writeFileSync(go, '');
    const exit = await handle.done;
    assert.equal(exit.exitCode, 0);
    const expected = createHash('sha256').update(input).digest('hex');
    assert.match(output, new RegExp(expected), 'the program read every byte, in the order written');
  });

  it('writes nothing once the descriptor is closed or closing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'master-writer-'));
    const path = join(dir, 'out');
    const fd = openSync(path, 'w');
    let closed = false;
    const writer = new MasterWriter({ fd, closed: () => closed });
    try {
      writer.write('first ');
      closed = true; // the stream that owns the descriptor was destroyed: its number may be reused
      writer.write('second');
      assert.equal(readFileSync(path, 'utf8'), 'first ');
      assert.equal(writer.pendingBytes, 0);
    } finally {
      closeSync(fd);
    }
  });
});
