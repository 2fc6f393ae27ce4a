/** Order statistics for small samples (nearest-rank percentiles: p99 of 300 samples is the 297th). */
export interface Summary {
  n: number;
  median: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
}

/** A missed echo (no glyph within 2 s) counts as 2 s in the percentiles, shown as "≥". */
export const MISSED_ECHO_MS = 2000;

/** Echo times with each missed echo counted as MISSED_ECHO_MS. */
export function withMissed(times: readonly number[], missed: number): number[] {
  return [...times, ...Array<number>(missed).fill(MISSED_ECHO_MS)];
}

/** The p99 of echo times with the missed ones counted (see withMissed). */
export function echoP99(times: readonly number[], missed: number): number {
  return percentile(withMissed(times, missed), 99);
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(values: readonly number[]): Summary {
  return {
    n: values.length,
    median: round(median(values)),
    p50: round(percentile(values, 50)),
    p90: round(percentile(values, 90)),
    p99: round(percentile(values, 99)),
    min: round(values.length ? Math.min(...values) : Number.NaN),
    max: round(values.length ? Math.max(...values) : Number.NaN),
  };
}

export function round(value: number, digits = 2): number {
  if (!Number.isFinite(value)) return value;
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
