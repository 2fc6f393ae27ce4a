/**
 * The REPORT.md section of the DSH lag measure (dsh-lag.ts): how far the panel in real DSH Web lags the
 * model's tool calls. The goals are the original plugin's figures from the side-by-side run of issue 17.
 */
export const DSH_LAG_FILE = 'dsh-lag.json';
export const DSH_LAG_HEADING = '## DSH: the panel against the model';

/** The original plugin, measured side by side in DSH Web rc.8 (issue 17): output about 90 ms after the
 *  tool result, Take over input 0.18–0.28 s after the tool call. */
const OUTPUT_GOAL_MS = 90;
const TAKEOVER_GOAL_MS = 280;

export interface DshLag {
  measuredAt: string;
  loadAverage: number[];
  outputAfterResultMs: { median: number; samples: number[] };
  takeoverAfterCallMs: { median: number; samples: number[] };
}

const verdict = (value: number, goal: number) =>
  value <= goal ? `**met** (${Math.round(goal - value)} ms under)` : `**missed** (${Math.round(value - goal)} ms over)`;

export function dshLagSection(results: DshLag): string {
  const out = results.outputAfterResultMs;
  const take = results.takeoverAfterCallMs;
  return [
    DSH_LAG_HEADING,
    '',
    `Measured by \`npm run dsh-lag\` (bench/src/dsh-lag.ts, running packages/dsh-plugin/test/lag.measure.ts) on ${results.measuredAt}, ` +
      `load average ${results.loadAverage.map((l) => l.toFixed(1)).join(' / ')}: real DSH Web rc.8 with the packed plugin and Chromium, ` +
      "the panel open and rendering. Output: a model send of `sleep 0.3; expr 1000 + i`, from DSH's next model call (made as soon as " +
      "DSH appended the tool result) to the page's socket delivering the frame with the answer (negative: the page had it first). " +
      'Take over: a model send of a sleep, from the model call that made the tool call to the button being enabled.',
    '',
    '| measure | goal (the original plugin) | ours, median | samples (ms) | verdict |',
    '|---|---|---:|---|---|',
    `| output on the page after the tool result | ≤ ${OUTPUT_GOAL_MS} ms | ${out.median} ms | ${out.samples.join(', ')} | ${verdict(out.median, OUTPUT_GOAL_MS)} |`,
    `| Take over input enabled after the tool call | ≤ ${TAKEOVER_GOAL_MS} ms | ${take.median} ms | ${take.samples.join(', ')} | ${verdict(take.median, TAKEOVER_GOAL_MS)} |`,
    '',
  ].join('\n');
}
