/**
 * The REPORT.md section of the start-up measure (startup.ts): `npm start` to the printed address.
 */
export const STARTUP_FILE = 'startup.json';
export const STARTUP_HEADING = '## Start-up: `npm start` to the address';

/** Issue 22: on a checkout that is already built. */
const BUILT_GOAL_MS = 2000;

export interface Startup {
  measuredAt: string;
  loadAverage: number[];
  builtMs: number[];
  /** One start in a fresh clone (Node, pnpm, install and the whole build included), when measured. */
  freshCloneMs?: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

export function startupSection(results: Startup): string {
  const built = median(results.builtMs);
  const met =
    built <= BUILT_GOAL_MS
      ? `**met** (${Math.round(BUILT_GOAL_MS - built)} ms under)`
      : `**missed** (${Math.round(built - BUILT_GOAL_MS)} ms over)`;
  const lines = [
    STARTUP_HEADING,
    '',
    `Measured by \`npm run startup\` (bench/src/startup.ts) on ${results.measuredAt}, load average ` +
      `${results.loadAverage.map((l) => l.toFixed(1)).join(' / ')}: \`npm start -- --port 0\` until the address line is printed. ` +
      'On a built checkout only what changed since its last build is built (scripts/build-changed.mjs: input hashes per ' +
      'package, with its workspace dependencies), so nothing is.',
    '',
    '| checkout | goal | median | samples (ms) | verdict |',
    '|---|---|---:|---|---|',
    `| built | ≤ ${BUILT_GOAL_MS} ms | ${built} ms | ${results.builtMs.join(', ')} | ${met} |`,
  ];
  if (results.freshCloneMs !== undefined) {
    lines.push(
      `| fresh clone (Node 22 and pnpm from the registry, install from the store, the whole build) | none | ${results.freshCloneMs} ms | one run | observed |`,
    );
  }
  lines.push('');
  return lines.join('\n');
}
