// Runs every story (render + play function) in the system Chromium through Storybook's Vitest addon,
// then prints one "N passed, N failed" line for scripts/test.mjs.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'stories-'));
const report = join(dir, 'report.json');
const here = new URL('..', import.meta.url).pathname;
const vitest = join(here, 'node_modules/vitest/vitest.mjs');
const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`], {
    cwd: here,
    stdio: 'inherit',
    env: { ...process.env, STORYBOOK_DISABLE_TELEMETRY: '1' },
  });
  child.on('close', (c) => resolve(c ?? 1));
});
let passed = 0;
let failed;
try {
  const result = JSON.parse(readFileSync(report, 'utf8'));
  passed = result.numPassedTests;
  failed = result.numFailedTests + (result.numTotalTests === 0 ? 1 : 0);
} catch {
  failed = 1;
}
if (code !== 0 && failed === 0) failed = 1;
rmSync(dir, { recursive: true, force: true });
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
