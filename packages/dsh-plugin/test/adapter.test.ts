/**
 * The PTY adapter on DSH's own provider: the engine's hub and tools run on rc.8's
 * `@deepseek-ai/dsh-subprocess-local` (real node-pty, real bash, DSH's /proc inspector), mounted in a real
 * cordis context, exactly as the plugin uses it inside DSH.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ForegroundSignalError, TerminalHub, resolveConfig, runTool, type SendResult, type SignalResult } from '@shared-terminal/server';
import { createDshPtyProvider } from '../src/server/pty-adapter.ts';
import type { SubprocessRuntime } from '../src/server/dsh-api.ts';
import { ensureDshHost, importFromHost } from './helpers/host.ts';
import { descendants, pidAlive, processesMatching, waitFor } from './helpers/util.ts';

interface CordisContext {
  plugin(plugin: unknown): PromiseLike<unknown> & { dispose(): Promise<void> };
  get(name: string): unknown;
}

describe('PTY adapter over DSH 0.1.0-rc.8 subprocess-local', () => {
  let fiber: { dispose(): Promise<void> } | undefined;
  let runtime: SubprocessRuntime;
  let hub: TerminalHub;
  let dir: string;

  before(async () => {
    ensureDshHost();
    const { Context } = await importFromHost<{ Context: new () => CordisContext }>('@deepseek-ai/cordis');
    const local = await importFromHost<{ LocalSubprocessRuntime: unknown }>('@deepseek-ai/dsh-subprocess-local');
    const root = new Context();
    const mounted = root.plugin(local.LocalSubprocessRuntime);
    await mounted;
    fiber = mounted;
    runtime = root.get('subprocess') as SubprocessRuntime;
    dir = mkdtempSync(join(tmpdir(), 'dsh-it-adapter-'));
    // Names DSH's scrub must drop before the shell sees the environment.
    process.env['DSH_PROBE_SECRET'] = 'dsh-only';
    process.env['PROBE_API_KEY'] = 'key-only';
    hub = new TerminalHub({
      config: resolveConfig({ operationTimeoutMs: 8000, disposeGraceMs: 500 }),
      provider: createDshPtyProvider(() => runtime),
      cwd: dir,
      baseEnv: {},
    });
  });

  after(async () => {
    await hub?.disposeAll().catch(() => undefined);
    await fiber?.dispose();
    delete process.env['DSH_PROBE_SECRET'];
    delete process.env['PROBE_API_KEY'];
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('runs a command to its prompt with its exit status, in the workspace, with TERM set and credentials scrubbed', async () => {
    const result = (await runTool(hub, 'a', 'shared_terminal_send', {
      text: 'echo "[$PWD|$TERM|${DSH_PROBE_SECRET-unset}|${PROBE_API_KEY-unset}|$SHARED_TERMINAL]"; false',
    })) as SendResult;
    assert.equal(result.waitReason, 'prompt');
    assert.equal(result.exitCode, 1);
    assert.match(result.output, new RegExp(`\\[${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\|xterm-256color\\|unset\\|unset\\|1\\]`));
  });

  it('decodes UTF-8 whole, even when a character arrives split across reads', async () => {
    const result = (await runTool(hub, 'a', 'shared_terminal_send', {
      text: "printf '\\xe4\\xbd'; sleep 0.2; printf '\\xa0\\xe5\\xa5\\xbd 🙂\\n'",
    })) as SendResult;
    assert.equal(result.waitReason, 'prompt');
    assert.match(result.output, /你好 🙂/);
    assert.doesNotMatch(result.output, /\uFFFD/);
  });

  it("sees a program waiting for input (stdin_read) and signals it through DSH's re-inspection", async () => {
    const waiting = (await runTool(hub, 'a', 'shared_terminal_send', { text: 'cat' })) as SendResult;
    assert.equal(waiting.waitReason, 'stdin_read');
    assert.ok(waiting.inputWait && waiting.inputWait.processGroupId > 0);
    const signalled = (await runTool(hub, 'a', 'shared_terminal_signal', { signal: 'SIGINT' })) as SignalResult;
    assert.equal(signalled.processGroupId, waiting.inputWait!.processGroupId);
    assert.equal(signalled.waitReason, 'prompt');
  });

  it('an interrupt reaches a program that stopped reading with a full input buffer; the shell runs none of it', async () => {
    const started = (await runTool(hub, 'full', 'shared_terminal_send', {
      text: "python3 -c 'import sys, time; sys.stdin.readline(); time.sleep(600)'",
    })) as SendResult;
    assert.equal(started.waitReason, 'stdin_read');
    const lines = Array.from({ length: 500 }, (_, i) => `touch ${dir}/leaked-${i}\n`).join('');
    const sent = (await runTool(hub, 'full', 'shared_terminal_send', {
      text: `go\n${lines}`,
      submit: false,
      timeoutMs: 1500,
    })) as SendResult;
    assert.equal(sent.waitReason, 'timeout');
    assert.match(sent.output, /KeyboardInterrupt/);
    const after = (await runTool(hub, 'full', 'shared_terminal_send', { text: 'ls ' + dir + ' | grep -c leaked-' })) as SendResult;
    assert.equal(after.waitReason, 'prompt');
    assert.match(after.output, /\n0$/, 'none of the unread lines ran');
  });

  it("turns DSH's refusal to SIGKILL the shell into a ForegroundSignalError", async () => {
    const provider = createDshPtyProvider(() => runtime);
    const handle = await provider.spawn({ argv: ['/bin/bash', '--norc', '-i'], cwd: dir, env: {}, rows: 10, cols: 40, graceMs: 300 });
    handle.output.resume();
    try {
      await waitFor(async () => (await handle.inspectForeground())?.processGroupId === handle.pid, 'bash in the foreground');
      await assert.rejects(
        handle.signalForeground('SIGKILL'),
        (error: unknown) => error instanceof ForegroundSignalError && /SIGKILL/.test(error.message),
      );
      assert.equal(handle.inputWaitDetection, process.platform === 'linux');
    } finally {
      await handle.terminate();
    }
    await handle.done;
    assert.ok(!pidAlive(handle.pid));
  });

  it('disposing the owner ends the whole process tree, background jobs and children in their own session included', async () => {
    // Two ways to a new session. The inner bash has no job control, so setsid(1) does not fork there: that
    // sleep stays in the shell's tree. At the interactive prompt setsid forks and its parent exits: that
    // sleep belongs to init, outside the tree and the session, and only the process-tree mark finds it.
    // Durations unique to this run, so that nothing else on the machine matches.
    const base = 1000 + (process.pid % 5000);
    const [first, second, third] = [`${base}.1`, `${base}.2`, `${base}.3`];
    await runTool(hub, 'b', 'shared_terminal_send', {
      text: `sleep ${first} & bash -c 'setsid sleep ${second} & wait' & setsid sleep ${third} & true`,
    });
    const shell = hub.get('b')!.generation!.pid;
    const tree = await waitFor(() => {
      const found = [first, second, third].flatMap((duration) => processesMatching(`sleep ${duration}`));
      const settled = found.length === 3 && processesMatching(`setsid sleep ${third}`).length === 0;
      return settled ? [...found, ...descendants(shell)] : undefined;
    }, 'the background children');
    assert.ok(!descendants(shell).includes(processesMatching(`sleep ${third}`)[0]!), 'the forked setsid child is still in the tree');
    await hub.dispose('b');
    await waitFor(() => [shell, ...tree].every((pid) => !pidAlive(pid)), 'every process of the tree to end', 8000);
  });
});
