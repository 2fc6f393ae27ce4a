/** Small /proc readers shared by both servers (Linux only, like the engine's input-wait detection). */
import { readFileSync } from 'node:fs';
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
  return { rss: rssOf(process.pid) || usage.rss, heapUsed: usage.heapUsed, heapTotal: usage.heapTotal, external: usage.external, arrayBuffers: usage.arrayBuffers, newSpace };
}

export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}
