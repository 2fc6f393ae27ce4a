// The plugin's test run: make sure the real DSH 0.1.0-rc.8 is installed (its own folder, frozen lockfile)
// and the plugin is built, then run every test file serially (the end-to-end files boot DSH and Chromium;
// the machine has two cores shared with other suites).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const pkg = fileURLToPath(new URL('..', import.meta.url));
const host = fileURLToPath(new URL('./dsh-host', import.meta.url));

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit', env: process.env });
  return result.status ?? 1;
}

if (!existsSync(`${host}/node_modules/.bin/dsh`) || !existsSync(`${host}/node_modules/@deepseek-ai/dsh-subprocess-local`)) {
  console.log('installing DSH 0.1.0-rc.8 for the tests (test/dsh-host)');
  if (run('pnpm', ['install', '--ignore-workspace', '--frozen-lockfile', '--reporter=append-only'], host) !== 0) process.exit(1);
}
if (!existsSync(`${pkg}/lib/index.js`) || !existsSync(`${pkg}/lib/client.js`)) {
  if (run('pnpm', ['run', 'build'], pkg) !== 0) process.exit(1);
}

const only = process.argv.slice(2);
const files = readdirSync(fileURLToPath(new URL('.', import.meta.url)))
  .filter((name) => name.endsWith('.test.ts'))
  .filter((name) => only.length === 0 || only.some((o) => name.includes(o)))
  .sort()
  .map((name) => `test/${name}`);
process.exit(run(process.execPath, ['--conditions=source', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files], pkg));
