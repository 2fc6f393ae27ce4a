/**
 * The shell's /proc files kept open (process-files.ts): each read shows the process as it is now, the
 * memory file follows an exec to the new address space, and a process that is gone reads as nothing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { KeptProcessFiles, processByPath } from '../src/pty/process-files.ts';
import { waitFor } from './helpers/engine.ts';

const AT_RANDOM = 25;

/** Where the kernel put this image's 16 random bytes (read by path, as a fresh look would). */
function randomAddress(pid: number): number {
  const address = randomAddressOf(pid);
  assert.ok(address !== undefined, 'the auxiliary vector names the random bytes');
  return address;
}

function randomAddressOf(pid: number): number | undefined {
  const auxv = processByPath(pid).bytes('auxv') ?? Buffer.alloc(0);
  for (let at = 0; at + 16 <= auxv.length; at += 16) {
    if (Number(auxv.readBigUInt64LE(at)) === AT_RANDOM) return Number(auxv.readBigUInt64LE(at + 8));
  }
  return undefined;
}

describe('a process read through kept /proc descriptors', { skip: process.platform !== 'linux' }, () => {
  it('follows the process through an exec and reads nothing once it is gone', async () => {
    // bash waits for a line, then becomes `sleep` in the same process.
    const child = spawn('bash', ['-c', 'read line; exec sleep 30'], { stdio: ['pipe', 'ignore', 'ignore'] });
    const pid = child.pid!;
    const files = new KeptProcessFiles(pid);
    try {
      await waitFor(() => files.text(`task/${pid}/syscall`)?.startsWith('0 '), 'bash asleep in read(2)');
      assert.match(files.text('stat') ?? '', /^\d+ \(bash\) S /);
      const before = randomAddress(pid);
      const bytesBefore = files.memory(before, 16);
      assert.ok(bytesBefore, 'the random bytes are read through the kept memory file');
      assert.deepEqual(bytesBefore, processByPath(pid).memory(before, 16));
      const bashSpace = files.addressSpace;
      assert.notEqual(bashSpace, undefined);
      // An unmapped address fails without taking the address space for gone.
      assert.equal(files.memory(4096, 16), undefined);
      assert.ok(files.memory(before, 16));
      assert.equal(files.addressSpace, bashSpace, 'the same opening reads the same image');

      child.stdin.end('go\n');
      // The name changes early in the exec, before the new image's auxiliary vector is written.
      await waitFor(() => /^\d+ \(sleep\) /.test(files.text('stat') ?? '') && randomAddressOf(pid) !== undefined, "bash exec'd into sleep");
      // The kept memory file was opened on bash's address space: after the exec it must read sleep's.
      const after = randomAddress(pid);
      const bytesAfter = files.memory(after, 16);
      assert.ok(bytesAfter);
      assert.deepEqual(bytesAfter, processByPath(pid).memory(after, 16), 'the new image is read, not the old one');
      assert.notDeepEqual(bytesAfter, bytesBefore, 'every exec has random bytes of its own');
      assert.notEqual(files.addressSpace, bashSpace, "sleep's image is read through an opening of its own");
      assert.deepEqual(
        files.memory(before, 16),
        processByPath(pid).memory(before, 16),
        'the old address reads what the new image holds there',
      );
      assert.ok(files.bytes('auxv')?.length, 'auxv is read by path: the new image has one');

      child.kill('SIGKILL');
      await once(child, 'exit');
      await waitFor(() => files.text('stat') === undefined, 'the process gone');
      assert.equal(files.text(`task/${pid}/io`), undefined);
      assert.equal(files.memory(after, 16), undefined);
    } finally {
      files.close();
      child.kill('SIGKILL');
    }
  });

  it("shows the file open under a standard descriptor's number now, and nothing while none is", async () => {
    // bash keeps fd 2 and points it elsewhere on each line read from its pipe.
    const child = spawn('bash', ['-c', 'while read line; do eval "$line"; done'], { stdio: ['pipe', 'ignore', 'pipe'] });
    const pid = child.pid!;
    const files = new KeptProcessFiles(pid);
    const inode = (name: string) => /^ino:\s*(\d+)$/m.exec(files.text(name) ?? '')?.[1];
    const say = async (line: string, done: () => boolean, what: string) => {
      child.stdin.write(`${line}\n`);
      await waitFor(done, what);
    };
    try {
      await waitFor(() => inode('fdinfo/2') !== undefined, 'fd 2 open');
      const pipe = inode('fdinfo/2');
      await say('exec 2</dev/null', () => inode('fdinfo/2') !== pipe, 'fd 2 on /dev/null');
      assert.equal(inode('fdinfo/2'), /^ino:\s*(\d+)$/m.exec(processByPath(pid).text('fdinfo/2') ?? '')?.[1]);
      await say('exec 2>&-', () => files.text('fdinfo/2') === undefined, 'fd 2 closed');
      await say('exec 2</dev/zero', () => inode('fdinfo/2') !== undefined, 'fd 2 open again');
      assert.notEqual(inode('fdinfo/2'), pipe);
    } finally {
      files.close();
      child.kill('SIGKILL');
    }
  });

  it('reads nothing after close, and refuses memory reads out of range', () => {
    const files = new KeptProcessFiles(process.pid);
    assert.match(files.text('stat') ?? '', new RegExp(`^${process.pid} `));
    assert.equal(files.memory(0, 16), undefined);
    assert.equal(files.memory(4096, 1 << 20), undefined);
    files.close();
    // Closed: reads go by path (still this live process), and nothing is kept open again.
    assert.match(files.text('stat') ?? '', new RegExp(`^${process.pid} `));
  });
});
