/**
 * `npm run dsh-lag` (in bench/): runs the DSH lag measure of the plugin's tests (real DSH Web rc.8 and
 * Chromium; it brings DSH's host the way its e2e test does), keeps its figures in bench/dsh-lag.json and
 * rewrites the side sections of REPORT.md.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { DSH_LAG_FILE, type DshLag } from './dsh-lag-report.ts';
import { rewriteSideSections } from './side-sections.ts';

const benchDir = new URL('..', import.meta.url);
const pluginDir = new URL('../packages/dsh-plugin/', benchDir);
const out = new URL(DSH_LAG_FILE, benchDir);
const started = loadavg();
const run = spawnSync(process.execPath, ['--conditions=source', 'test/lag.measure.ts', '--out', out.pathname], {
  cwd: pluginDir.pathname,
  stdio: 'inherit',
  env: process.env,
});
if (run.status !== 0) throw new Error(`the DSH lag measure failed (exit ${run.status ?? run.signal})`);
const results = JSON.parse(readFileSync(out, 'utf8')) as DshLag;
results.loadAverage = started;
writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
rewriteSideSections(benchDir);
console.log(
  `output ${results.outputAfterResultMs.median} ms after the result, Take over ${results.takeoverAfterCallMs.median} ms after the call; wrote ${DSH_LAG_FILE} and REPORT.md`,
);
