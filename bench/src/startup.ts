/**
 * `npm run startup` (in bench/): `npm start -- --port 0` until it prints the address, five times on this
 * checkout (built first, so each start finds it built) and, unless `--no-fresh`, once in a fresh clone of
 * HEAD. Writes bench/startup.json and its REPORT.md section.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { rewriteSideSections } from './side-sections.ts';
import { STARTUP_FILE, type Startup } from './startup-report.ts';

const benchDir = new URL('..', import.meta.url);
const repo = new URL('..', benchDir).pathname;
const BUILT_RUNS = 5;
/** A fresh clone installs Node, pnpm and the workspace and builds everything: give it time. */
const FRESH_LIMIT_MS = 15 * 60_000;

/** Milliseconds from `npm start` to the line with the address; the server is stopped then. */
function timeStart(cwd: string, limitMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn('npm', ['start', '--', '--port', '0'], { cwd, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`npm start printed no address within ${limitMs} ms in ${cwd}`));
    }, limitMs);
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (!/http:\/\/\S+/.test(seen)) return;
      const elapsed = performance.now() - started;
      clearTimeout(timer);
      process.kill(-child.pid!, 'SIGTERM');
      child.once('exit', () => resolve(Math.round(elapsed)));
    });
    child.once('error', reject);
  });
}

const loadAverage = loadavg();
execFileSync('npm', ['start', '--', '--help'], { cwd: repo, stdio: 'ignore' }); // builds what changed, once
const builtMs: number[] = [];
for (let run = 0; run < BUILT_RUNS; run++) builtMs.push(await timeStart(repo, 60_000));
const results: Startup = { measuredAt: new Date().toISOString(), loadAverage, builtMs };
if (!process.argv.includes('--no-fresh')) {
  const clone = mkdtempSync(join(tmpdir(), 'st-fresh-'));
  try {
    execFileSync('git', ['clone', '-q', repo, clone]);
    results.freshCloneMs = await timeStart(clone, FRESH_LIMIT_MS);
  } finally {
    rmSync(clone, { recursive: true, force: true });
  }
}
writeFileSync(new URL(STARTUP_FILE, benchDir), `${JSON.stringify(results, null, 2)}\n`);
rewriteSideSections(benchDir);
console.log(
  `npm start to the address: built ${builtMs.join(', ')} ms${results.freshCloneMs === undefined ? '' : `; fresh clone ${results.freshCloneMs} ms`}`,
);
