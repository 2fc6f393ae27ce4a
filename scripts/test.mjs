// The whole test run: typecheck, lint and format, then every workspace package's suite, then a closing count.
// A package joins by declaring in its package.json:
//   "sharedTerminal": { "test": { "order": 20, "script": "test", "format": "node-test" | "counts" } }
// format "node-test": node's test runner summary (ℹ pass N / ℹ fail N);
// format "counts": the suite prints a line "N passed, N failed" (the last one counts).
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.slice(2);
const dirs = ['packages', 'storybook', 'e2e', 'bench']
  .flatMap((d) => (d === 'packages' ? readdirSync(join(root, d)).map((p) => join(d, p)) : [d]))
  .filter((d) => existsSync(join(root, d, 'package.json')));

const suites = [];
for (const dir of dirs) {
  const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const test = pkg.sharedTerminal?.test;
  if (!test) continue;
  suites.push({ name: pkg.name, dir, order: test.order ?? 50, script: test.script ?? 'test', format: test.format ?? 'counts' });
}
suites.sort((a, b) => a.order - b.order);

function run(command, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      out += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

function parse(format, out) {
  const strip = out.replace(/\x1b\[[0-9;]*m/g, '');
  if (format === 'node-test') {
    const pass = [...strip.matchAll(/^(?:ℹ|#) pass (\d+)$/gm)].pop();
    const fail = [...strip.matchAll(/^(?:ℹ|#) fail (\d+)$/gm)].pop();
    // A cancelled test (e.g. the event loop emptied under it) did not pass: count it as failed.
    const cancelled = [...strip.matchAll(/^(?:ℹ|#) cancelled (\d+)$/gm)].pop();
    if (pass && fail) return { passed: Number(pass[1]), failed: Number(fail[1]) + Number(cancelled?.[1] ?? 0) };
    return undefined;
  }
  const m = [...strip.matchAll(/(\d+) passed, (\d+) failed/g)].pop();
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : undefined;
}

let passed = 0;
let failed = 0;
const lines = [];

if (only.length === 0 || only.includes('typecheck')) {
  const tc = await run('pnpm', ['-r', '--workspace-concurrency=1', '--if-present', 'run', 'typecheck'], root);
  if (tc.code === 0) passed += 1;
  else failed += 1;
  lines.push(`typecheck: ${tc.code === 0 ? 'ok' : 'FAILED'}`);
}
if (only.length === 0 || only.includes('lint')) {
  const lint = await run('node', ['scripts/lint.mjs'], root);
  if (lint.code === 0) passed += 1;
  else failed += 1;
  lines.push(`lint: ${lint.code === 0 ? 'ok' : 'FAILED (npm run format fixes formatting; the rest is named above)'}`);
}
for (const suite of suites) {
  if (only.length > 0 && !only.some((o) => suite.name.includes(o) || suite.dir.includes(o))) continue;
  console.log(`\n=== ${suite.name} (${suite.dir}) ===`);
  const result = await run('pnpm', ['run', suite.script], join(root, suite.dir));
  const counts = parse(suite.format, result.out);
  if (!counts) {
    failed += 1;
    lines.push(`${suite.name}: no test count found (exit ${result.code}) — counted as one failure`);
    continue;
  }
  if (result.code !== 0 && counts.failed === 0) counts.failed = 1;
  passed += counts.passed;
  failed += counts.failed;
  lines.push(`${suite.name}: ${counts.passed} passed, ${counts.failed} failed`);
}
console.log('\n=== summary ===');
for (const line of lines) console.log(line);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
