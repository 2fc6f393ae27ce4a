/**
 * `npm start` on a built checkout builds only what changed (scripts/build-changed.mjs), the start-up
 * section's premise. Driven on a small workspace of its own: three packages whose builds log themselves,
 * one of them building on another, run through the real script and pnpm.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = new URL('../../scripts/build-changed.mjs', import.meta.url).pathname;
let root = '';

/** A package whose build appends its name to builds.log and writes dist/; `fails` makes it exit 1. */
function addPackage(name: string, deps: string[] = []): void {
  const dir = join(root, 'packages', name);
  mkdirSync(join(dir, 'src'), { recursive: true });
  const build = `node -e "const f=require('fs');f.appendFileSync('../../builds.log','${name}\\n');if(f.existsSync('FAIL'))process.exit(1);f.mkdirSync('dist',{recursive:true})"`;
  const dependencies = Object.fromEntries(deps.map((d) => [d, 'workspace:*']));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', private: true, dependencies, scripts: { build } }));
  writeFileSync(join(dir, 'src', 'index.ts'), `export const name = '${name}';\n`);
  writeFileSync(join(dir, 'README.md'), `# ${name}\n`);
}

/** What one run of the script built, in order; `dryRun`: what it says it would build (sorted). */
function run(options: { dryRun?: boolean } = {}): { built: string[]; status: number; stale?: string[] } {
  writeFileSync(join(root, 'builds.log'), '');
  const args = [script, '--root', root, ...(options.dryRun ? ['--dry-run'] : [])];
  const result = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const built = readFileSync(join(root, 'builds.log'), 'utf8').split('\n').filter(Boolean);
  if (!options.dryRun) return { built, status: result.status ?? 1 };
  return { built, status: result.status ?? 1, stale: (JSON.parse(result.stdout) as { stale: string[] }).stale.sort() };
}

before(() => {
  root = mkdtempSync(join(tmpdir(), 'st-build-changed-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'fixture', private: true }));
  writeFileSync(join(root, 'pnpm-workspace.yaml'), "packages:\n  - 'packages/*'\n");
  writeFileSync(join(root, 'pnpm-lock.yaml'), "lockfileVersion: '9.0'\n");
  writeFileSync(join(root, 'tsconfig.base.json'), '{}\n');
  mkdirSync(join(root, 'node_modules'));
  addPackage('core');
  addPackage('app', ['core']);
  addPackage('other');
});

after(() => rmSync(root, { recursive: true, force: true }));

test('a checkout never built builds every package, dependencies first', () => {
  assert.deepEqual(run({ dryRun: true }), { built: [], status: 0, stale: ['app', 'core', 'other'] });
  const first = run();
  assert.equal(first.status, 0);
  assert.deepEqual([...first.built].sort(), ['app', 'core', 'other']);
  assert.ok(first.built.indexOf('core') < first.built.indexOf('app'), `core builds before app: ${first.built.join(', ')}`);
});

test('a built, unchanged checkout builds nothing', () => {
  assert.deepEqual(run({ dryRun: true }).stale, []);
  assert.deepEqual(run().built, []);
});

test('a changed source builds its package and what builds on it, nothing else', () => {
  appendFileSync(join(root, 'packages', 'core', 'src', 'index.ts'), 'export const more = 1;\n');
  assert.deepEqual(run({ dryRun: true }).stale, ['app', 'core']);
  assert.deepEqual(run().built, ['core', 'app']);
  assert.deepEqual(run().built, []);
  appendFileSync(join(root, 'packages', 'app', 'src', 'index.ts'), 'export const more = 1;\n');
  assert.deepEqual(run().built, ['app']);
});

test('docs and outputs are no inputs; a missing output builds again', () => {
  appendFileSync(join(root, 'packages', 'other', 'README.md'), 'More words.\n');
  writeFileSync(join(root, 'packages', 'other', 'dist', 'extra.js'), '');
  assert.deepEqual(run().built, []);
  rmSync(join(root, 'packages', 'other', 'dist'), { recursive: true });
  assert.deepEqual(run().built, ['other']);
});

test('a new lockfile builds everything', () => {
  appendFileSync(join(root, 'pnpm-lock.yaml'), '# changed\n');
  assert.deepEqual([...run().built].sort(), ['app', 'core', 'other']);
});

test('a failed build is built again on the next start, even with its inputs put back', () => {
  writeFileSync(join(root, 'packages', 'app', 'FAIL'), '');
  const failed = run();
  assert.notEqual(failed.status, 0, 'the failure reaches the caller');
  assert.deepEqual(failed.built, ['app']);
  rmSync(join(root, 'packages', 'app', 'FAIL'));
  assert.deepEqual(run().built, ['app']);
  assert.deepEqual(run().built, []);
});
