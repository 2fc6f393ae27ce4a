/** Test helpers: a hub on real PTYs in a private working directory, and small utilities. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  TerminalHub,
  createNodePtyProvider,
  resolveConfig,
  type PtyHandle,
  type PtyProvider,
  type TerminalConfig,
} from '../../src/index.ts';
// By path, not as a workspace dependency: test-support depends on this package (a cycle otherwise).
import { sleep, waitFor as poll } from '../../../test-support/src/wait.ts';

export interface TestHub {
  hub: TerminalHub;
  dir: string;
  close(): Promise<void>;
}

export function makeHub(
  config: Partial<TerminalConfig> = {},
  provider: PtyProvider = createNodePtyProvider(),
  baseEnv?: NodeJS.ProcessEnv,
): TestHub {
  const dir = mkdtempSync(join(tmpdir(), 'st-test-'));
  const hub = new TerminalHub({ config: resolveConfig(config), provider, cwd: dir, ...(baseEnv ? { baseEnv } : {}) });
  return {
    hub,
    dir,
    async close() {
      await hub.disposeAll().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export { sleep };

/** Wait until `check` returns a truthy value (polling every 10 ms), or fail with `what`. */
export function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  return poll(check, what, timeoutMs, 10);
}

/** Real PTYs whose handles answer with `overrides(handle)` where it has a member, and as the real handle
 *  everywhere else (optional members included): one behaviour changed, the rest untouched. */
export function overridingProvider(
  overrides: (handle: PtyHandle) => Partial<PtyHandle>,
  inner: PtyProvider = createNodePtyProvider(),
): PtyProvider {
  return {
    async spawn(spec) {
      const handle = await inner.spawn(spec);
      const changed = overrides(handle);
      return new Proxy(handle, {
        get(target, key) {
          if (Object.hasOwn(changed, key)) return changed[key as keyof PtyHandle];
          const value: unknown = Reflect.get(target, key, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
  };
}

/** A provider that records everything written to each PTY (to see what reached it). */
export function recordingProvider(inner: PtyProvider = createNodePtyProvider()): PtyProvider & { writes: string[] } {
  const writes: string[] = [];
  return {
    writes,
    async spawn(spec) {
      const handle = await inner.spawn(spec);
      const wrapped: PtyHandle = {
        pid: handle.pid,
        output: handle.output,
        done: handle.done,
        ...(handle.inputWaitDetection !== undefined ? { inputWaitDetection: handle.inputWaitDetection } : {}),
        write: (data: string) => {
          writes.push(data);
          return handle.write(data);
        },
        inspectForeground: () => handle.inspectForeground(),
        signalForeground: (signal) => handle.signalForeground(signal),
        terminate: () => handle.terminate(),
      };
      return wrapped;
    },
  };
}

export function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

/** Pids of the live processes whose command line is exactly `argv` (found by scanning /proc). */
export function processesRunning(argv: string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') === wanted && pidAlive(Number(entry))) found.push(Number(entry));
    } catch {
      // ended while we looked
    }
  }
  return found;
}
