/**
 * A send's result carries the screen (`viewport`) and what the operation printed (`output`); at the end of
 * a command most of the screen's newest rows *are* the output's last lines, so the model paid for them
 * twice. Those rows are left out of `viewport`, and `viewportOmitted: {row, count}` says where they go:
 *
 *   rows = viewport.split('\n'); rows.splice(row, 0, ...output.split('\n').slice(-count)); rows.join('\n')
 *
 * rebuilds the screen exactly. Only rows equal, character for character, to whole output lines are left
 * out: an output line wider than the screen shows as several rows and ends the match there. At least one
 * row always stays, and nothing is left out when it would save less than the field costs. Linear in the
 * size of the two strings.
 */
import { utf8Length } from '../utf8.ts';

export interface ViewportOmission {
  /** Index of the first left-out row in the full screen (and where it goes back into viewport's lines). */
  row: number;
  /** How many rows were left out: the last `count` lines of output. */
  count: number;
}

/** Below this many bytes saved, the field and a reader's work cost more than they save. */
const MIN_SAVED_BYTES = 64;

/** Rows after the output on a screen: none (a program waits for input), or the fresh prompt. */
const TAILS = [0, 1] as const;

export function compactViewport(viewport: string, output: string): { viewport: string; omitted?: ViewportOmission } {
  if (output === '' || viewport === '') return { viewport };
  const rows = viewport.split('\n');
  const lines = output.split('\n');
  let best: { count: number; tail: number } = { count: 0, tail: 0 };
  for (const tail of TAILS) {
    const end = rows.length - tail;
    let count = 0;
    // Keep at least one row, so that an empty viewport never has to mean "no lines".
    while (count < lines.length && count < end && rows.length - count > 1 && rows[end - 1 - count] === lines[lines.length - 1 - count])
      count += 1;
    if (count > best.count) best = { count, tail };
  }
  if (best.count === 0) return { viewport };
  const row = rows.length - best.tail - best.count;
  const left = rows.slice(row, row + best.count);
  const saved = left.reduce((sum, text) => sum + text.length + 1, 0);
  if (saved < MIN_SAVED_BYTES) return { viewport };
  return { viewport: [...rows.slice(0, row), ...rows.slice(row + best.count)].join('\n'), omitted: { row, count: best.count } };
}

/** The screen as it was before `compactViewport` (the rule in this file's comment). */
export function rebuildViewport(viewport: string, output: string, omitted: ViewportOmission | undefined): string {
  if (!omitted) return viewport;
  const rows = viewport.split('\n');
  rows.splice(omitted.row, 0, ...output.split('\n').slice(-omitted.count));
  return rows.join('\n');
}

/**
 * A send or signal result with the output's rows left out of its viewport, when the compact result fits
 * in `maxBytes` as it is; a result that must be cut anyway keeps its whole viewport (the cut keeps each
 * field's newest part, which would move the rows that `viewportOmitted` counts).
 */
export function compactCapture<T extends { viewport: string; output: string; viewportOmitted?: ViewportOmission }>(
  result: T,
  maxBytes: number,
): T {
  const { viewport, omitted } = compactViewport(result.viewport, result.output);
  if (!omitted) return result;
  const compact = { ...result, viewport, viewportOmitted: omitted };
  return utf8Length(JSON.stringify(compact)) <= maxBytes ? compact : result;
}
