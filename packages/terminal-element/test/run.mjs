// The package's whole suite: the controller's unit tests and the real-server tests (node's test runner),
// then the element tests in Chromium (@web/test-runner). Ends with one "N passed, N failed" line.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';

const here = new URL('..', import.meta.url).pathname;

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: here, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let out = '';
    child.stdout.on('data', (d) => ((out += d), process.stdout.write(d)));
    child.stderr.on('data', (d) => ((out += d), process.stderr.write(d)));
    child.on('close', (code) => resolve({ code: code ?? 1, out: out.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '') }));
  });
}

const lastNumber = (text, pattern) => {
  const match = [...text.matchAll(pattern)].pop();
  return match ? Number(match[1]) : undefined;
};

let passed = 0;
let failed = 0;

const nodeFiles = ['test/unit', 'test/e2e'].flatMap((dir) =>
  readdirSync(new URL(dir, new URL('..', import.meta.url)))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `${dir}/${f}`),
);
const node = await run(process.execPath, ['--conditions=source', '--test', '--test-reporter=spec', '--test-concurrency=1', ...nodeFiles]);
const nodePass = lastNumber(node.out, /^ℹ pass (\d+)$/gm);
const nodeFail = lastNumber(node.out, /^ℹ fail (\d+)$/gm);
if (nodePass === undefined || nodeFail === undefined) failed += 1;
else {
  passed += nodePass;
  failed += nodeFail + (node.code !== 0 && nodeFail === 0 ? 1 : 0);
}

const wtr = await run(process.execPath, ['node_modules/@web/test-runner/dist/bin.js', '--config', 'web-test-runner.config.mjs']);
const wtrPass = lastNumber(wtr.out, /WTR: (\d+) passed/g);
const wtrFail = lastNumber(wtr.out, /WTR: \d+ passed, (\d+) failed/g);
if (wtrPass === undefined || wtrFail === undefined) failed += 1;
else {
  passed += wtrPass;
  failed += wtrFail + (wtr.code !== 0 && wtrFail === 0 ? 1 : 0);
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
