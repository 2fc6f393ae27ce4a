// Builds the workspace packages whose inputs changed since their last build, and the packages that build
// on them; the rest are left as they are. `npm start` on a built checkout then starts at once instead of
// rebuilding everything. A package's inputs are its files outside its outputs, tests and docs, the root
// lockfile and base tsconfig, and the input hashes of the workspace packages it depends on. The hashes of
// the last successful build are kept in node_modules/.build-stamps.json (gone with a fresh install).
// `--dry-run` prints the packages it would build as JSON and builds nothing; `--root DIR` works on another
// workspace (bench/test/build-changed.test.ts drives both).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const rootAt = process.argv.indexOf('--root');
const root = rootAt > 0 ? join(resolve(process.argv[rootAt + 1] ?? '.'), '/') : new URL('..', import.meta.url).pathname;
const dryRun = process.argv.includes('--dry-run');
const STAMPS = join(root, 'node_modules', '.build-stamps.json');
/** Folders that are outputs, dependencies or tests, not build inputs. */
const SKIPPED_DIRS = new Set([
  'node_modules',
  'dist',
  'lib',
  'test',
  'tests',
  '.artifacts',
  'test-results',
  'storybook-static',
  'coverage',
]);
/** Files a build writes into its own folder (the element's README gets the bundle size) or that no build reads. */
const SKIPPED_FILE = /\.(md|tgz|log)$|^custom-elements\.json$/;
/** Where builds write (the DSH plugin: lib): none of them there means build again whatever the stamp says. */
const OUTPUT_DIRS = ['dist', 'lib'];

function workspacePackages() {
  const dirs = readdirSync(join(root, 'packages'))
    .map((p) => join('packages', p))
    .concat(['storybook', 'e2e', 'bench']);
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => {
      const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      const all = { ...pkg.dependencies, ...pkg.devDependencies };
      const deps = Object.keys(all).filter((name) => String(all[name]).startsWith('workspace:'));
      return { dir, name: pkg.name, builds: Boolean(pkg.scripts?.build), deps };
    });
}

function hashFiles(hash, dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) hashFiles(hash, path);
    } else if (entry.isFile() && !SKIPPED_FILE.test(entry.name)) {
      hash.update(path.slice(root.length)).update('\0').update(readFileSync(path)).update('\0');
    }
  }
}

const packages = workspacePackages();
const byName = new Map(packages.map((p) => [p.name, p]));
const shared = createHash('sha256');
for (const file of ['pnpm-lock.yaml', 'tsconfig.base.json'])
  if (existsSync(join(root, file))) shared.update(readFileSync(join(root, file)));
const sharedHash = shared.digest('hex');

const hashes = new Map();
function inputHash(pkg) {
  if (hashes.has(pkg.name)) return hashes.get(pkg.name);
  const hash = createHash('sha256').update(sharedHash);
  for (const dep of pkg.deps.sort()) if (byName.has(dep)) hash.update(`${dep}:${inputHash(byName.get(dep))}`);
  hashFiles(hash, join(root, pkg.dir));
  const digest = hash.digest('hex');
  hashes.set(pkg.name, digest);
  return digest;
}

const stamps = existsSync(STAMPS) ? JSON.parse(readFileSync(STAMPS, 'utf8')) : {};
const saveStamps = () => writeFileSync(STAMPS, `${JSON.stringify(stamps, null, 2)}\n`);
const stale = packages.filter((pkg) => {
  if (!pkg.builds) return false;
  const built = OUTPUT_DIRS.some((dir) => existsSync(join(root, pkg.dir, dir)) && statSync(join(root, pkg.dir, dir)).isDirectory());
  return stamps[pkg.name] !== inputHash(pkg) || !built;
});

if (dryRun) {
  console.log(JSON.stringify({ stale: stale.map((p) => p.name) }));
} else if (stale.length === 0) {
  console.error('bootstrap: every package is built and unchanged');
} else {
  console.error(`bootstrap: building ${stale.map((p) => p.name).join(', ')}`);
  // Their stamps go first: a build that fails may already have rewritten part of its output, which must
  // not pass for built when its inputs are put back as they were.
  for (const pkg of stale) delete stamps[pkg.name];
  saveStamps();
  // pnpm keeps the workspace's dependency order among the selected packages.
  const filters = stale.flatMap((pkg) => ['--filter', pkg.name]);
  const run = spawnSync('pnpm', ['-r', '--workspace-concurrency=1', ...filters, 'run', 'build'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (run.status !== 0) process.exit(run.status ?? 1);
  for (const pkg of stale) stamps[pkg.name] = inputHash(pkg);
  saveStamps();
}
