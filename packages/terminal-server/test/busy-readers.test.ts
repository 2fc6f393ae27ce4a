/**
 * A thread asleep reading the terminal while another thread of the same program works: the kernel shows
 * the same sleep for a REPL at its prompt and for one still computing the answer to the line it read.
 * The rest of the reader's group decides (evidence.ts, "siblings"): a program working beside its reader
 * is not waiting yet; one that keeps working for 5 s is reported anyway, marked busy.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { procNow, threadIds } from '../src/pty/procfs.ts';
import { siblingActivity } from '../src/pty/stillness.ts';
import { sleep, waitFor } from './helpers/engine.ts';
import { requirePrograms, useHub } from './helpers/real-programs.ts';

describe('a program working beside a thread that reads the terminal', () => {
  const { send, hub } = useHub('busy-readers');

  it('python3 computing while a side thread sleeps in readline runs to its end', async () => {
    requirePrograms('python3');
    const script = [
      'import sys, threading, time',
      'threading.Thread(target=sys.stdin.readline, daemon=True).start()',
      'end = time.time() + 1.5',
      'while time.time() < end: pass',
      'print("computed")',
    ].join('\n');
    const r = await send(`python3 -c '${script}'`);
    assert.equal(r.waitReason, 'prompt', `reported ${r.waitReason} before the program ended: ${r.output}`);
    assert.match(r.output, /\ncomputed$/);
  });

  it('computing past the hold it is reported busy; a send that types nothing then waits for its end', async () => {
    requirePrograms('python3');
    // It computes until the test lets it stop, so the end comes while the send of no text waits.
    const stop = join(hub().dir, 'stop-computing');
    const script = [
      'import os, sys, threading',
      'threading.Thread(target=sys.stdin.readline, daemon=True).start()',
      `while not os.path.exists("${stop}"): pass`,
      'print("finished")',
    ].join('\n');
    const r = await send(`python3 -c '${script}'`);
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.busy, true);
    const waiting = send('', false);
    await sleep(1000);
    writeFileSync(stop, '');
    const waited = await waiting;
    assert.equal(waited.waitReason, 'prompt', waited.output);
    assert.equal(waited.output, 'finished');
  });

  it('a python3 REPL beside a busy worker thread waits for its next line, marked busy', async () => {
    requirePrograms('python3');
    const worker = 'import threading\ndef spin():\n    while True: pass\nthreading.Thread(target=spin, daemon=True).start()';
    const started = await send(`python3 -i -c '${worker}'`);
    assert.equal(started.waitReason, 'stdin_read');
    assert.equal(started.inputWait?.busy, true);
    const r = await send('6 * 7');
    assert.equal(r.waitReason, 'stdin_read');
    assert.equal(r.inputWait?.busy, true);
    assert.match(r.output, /^6 \* 7\n42\n>>> $/);
    assert.equal((await send('import os; os._exit(0)')).waitReason, 'prompt');
  });
});

describe('jshell: its reader thread waits while the compiler and the execution agent work', () => {
  const { send } = useHub('jshell');

  it('each answer is printed before the wait for the next snippet is reported', async () => {
    requirePrograms('jshell');
    const started = await send('jshell -q', true, 120_000);
    assert.equal(started.waitReason, 'stdin_read', started.output);
    assert.match(started.output, /jshell> $/);
    const sum = await send('1 + 1');
    assert.equal(sum.waitReason, 'stdin_read');
    assert.match(sum.output, /\$\d+ ==> 2\njshell> $/);
    const defined = await send('long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }');
    assert.equal(defined.waitReason, 'stdin_read');
    assert.match(defined.output, /jshell> $/);
    const called = await send('fib(27)');
    assert.equal(called.waitReason, 'stdin_read');
    assert.match(called.output, /\$\d+ ==> 196418\njshell> $/);
    const text = await send('String.join("-", java.util.List.of("a", "b", "c"))');
    assert.match(text.output, /\$\d+ ==> "a-b-c"\njshell> $/);
    assert.equal(text.inputWait?.busy, undefined);
    assert.equal((await send('/exit')).waitReason, 'prompt');
  });
});

describe('sibling threads as the kernel counts them', () => {
  /** A python3 process with `threads` threads asleep beside its main thread, which spins when `spin`. */
  async function withThreads<T>(threads: number, spin: boolean, body: (pid: number) => Promise<T>): Promise<T> {
    requirePrograms('python3');
    const code = [
      'import threading, time',
      `for _ in range(${threads}): threading.Thread(target=time.sleep, args=(60,), daemon=True).start()`,
      'print("ready", flush=True)',
      spin ? 'while True: pass' : 'time.sleep(60)',
    ].join('\n');
    const child = spawn('python3', ['-c', code], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      const pid = child.pid!;
      return await body(pid);
    } finally {
      child.kill('SIGKILL');
    }
  }

  it("the reader's siblings: asleep use no CPU; a spinning one runs and its time grows", async () => {
    await withThreads(3, false, async (pid) => {
      const tids = (await threadIds(pid))!;
      const reader = { pid, tid: tids.at(-1)! };
      // Right after "ready" a thread may still be on its way into its sleep.
      const asleep = async () => {
        const sample = await siblingActivity([{ pid }], reader);
        return sample && !sample.running ? sample : undefined;
      };
      const first = await waitFor(asleep, 'every sibling asleep');
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal((await siblingActivity([{ pid }], reader))?.cpuNs, first.cpuNs);
    });
    await withThreads(3, true, async (pid) => {
      const tids = (await threadIds(pid))!;
      const reader = { pid, tid: tids.at(-1)! };
      const first = await waitFor(() => siblingActivity([{ pid }], reader), 'a sample');
      await new Promise((resolve) => setTimeout(resolve, 100));
      const later = (await siblingActivity([{ pid }], reader))!;
      assert.ok(later.running || later.cpuNs - first.cpuNs > 20e6, 'a spinning main thread counts');
    });
  });

  it('without scheduler statistics (a kernel built without them) the user and system ticks count', async () => {
    const readText = procNow.readText;
    procNow.readText = async (path: string) => {
      if (path.endsWith('/schedstat')) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      return readText(path);
    };
    try {
      await withThreads(3, true, async (pid) => {
        const reader = { pid, tid: (await threadIds(pid))!.at(-1)! };
        const first = await waitFor(() => siblingActivity([{ pid }], reader), 'a sample');
        await new Promise((resolve) => setTimeout(resolve, 300));
        const later = (await siblingActivity([{ pid }], reader))!;
        assert.ok(later.cpuNs - first.cpuNs >= 20e6, `${later.cpuNs - first.cpuNs} ns in 300 ms of spinning`);
        assert.equal(later.cpuNs % 10_000_000, 0, 'whole ticks');
      });
    } finally {
      procNow.readText = readText;
    }
  });

  it('a single thread has no siblings; hundreds of them give no sample rather than a long look', async () => {
    await withThreads(0, false, async (pid) => {
      assert.equal(await siblingActivity([{ pid }], { pid, tid: String(pid) }), undefined);
    });
    await withThreads(300, false, async (pid) => {
      assert.equal((await threadIds(pid))!.length, 301);
      assert.equal(await siblingActivity([{ pid }], { pid, tid: String(pid) }), undefined);
    });
  });
});
