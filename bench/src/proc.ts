/** Small /proc readers shared by both servers (Linux only, like the engine's input-wait detection). */
import { readFileSync, writeFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

/** VmRSS of a process in bytes, or 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface MemoryFigures {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  /** V8's young generation, bytes resident: it grows toward its cap over the process's first fills. */
  newSpace?: number;
}

/** This process's memory after two full collections (run with --expose-gc). */
export function settledMemory(): MemoryFigures {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.physical_space_size ?? 0;
  return {
    rss: rssOf(process.pid) || usage.rss,
    heapUsed: usage.heapUsed,
    heapTotal: usage.heapTotal,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    newSpace,
  };
}

export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * Start V8's sampling heap profiler in this process, counting objects the collector has freed as well
 * (the flags in Chromium's protocol), and return what writes the profile to `dir`. Undefined without a dir.
 */
export async function startAllocationProfile(dir: string | undefined): Promise<(() => Promise<void>) | undefined> {
  if (!dir) return undefined;
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  const start: Record<string, unknown> = {
    samplingInterval: 16384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  };
  await session.post('HeapProfiler.startSampling', start);
  return async () => {
    const { profile } = await session.post('HeapProfiler.stopSampling');
    writeFileSync(`${dir}/alloc-${process.pid}.json`, JSON.stringify({ profile }));
    session.disconnect();
  };
}
