/**
 * The real DSH 0.1.0-rc.8 install the tests use (test/dsh-host, outside the pnpm workspace, resolved with
 * pnpm's time-based mode and a committed lockfile), and ways to load DSH's own packages from it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PACKAGE_DIR = fileURLToPath(new URL('../..', import.meta.url));
export const HOST_DIR = fileURLToPath(new URL('../dsh-host', import.meta.url));
export const DSH_BIN = `${HOST_DIR}/node_modules/.bin/dsh`;
export const FIXTURES = fileURLToPath(new URL('../fixtures', import.meta.url));

/** Install DSH from the lockfile when it is not there yet (about 15 s from an empty store). */
export function ensureDshHost(): void {
  if (existsSync(DSH_BIN) && existsSync(`${HOST_DIR}/node_modules/@deepseek-ai/dsh-subprocess-local`)) return;
  const result = spawnSync('pnpm', ['install', '--ignore-workspace', '--frozen-lockfile', '--reporter=append-only'], {
    cwd: HOST_DIR,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`installing DSH 0.1.0-rc.8 into ${HOST_DIR} failed (exit ${result.status})`);
}

/** Import a package that the host install lists directly (cordis, dsh-subprocess-local). */
export async function importFromHost<T>(name: string): Promise<T> {
  const entry = `${HOST_DIR}/node_modules/${name}/lib/index.js`;
  return (await import(pathToFileURL(entry).href)) as T;
}

/**
 * DSH's inline limit for tool results as this install configures it: the spill-policy row's
 * maxInlineBytes in dsh-base's cordis.patch.yml (the tests compare results with DSH's own number).
 */
export function dshInlineLimitOfInstall(): number {
  const store = `${HOST_DIR}/node_modules/.pnpm`;
  const dir = readdirSync(store).find((name) => name.startsWith('@deepseek-ai+dsh-base@'));
  if (!dir) throw new Error(`no @deepseek-ai/dsh-base in ${store}`);
  const patch = readFileSync(`${store}/${dir}/node_modules/@deepseek-ai/dsh-base/cordis.patch.yml`, 'utf8');
  const row = /name: '@deepseek-ai\/dsh-spill-policy'\s+config:\s+maxInlineBytes: (\d+)/.exec(patch);
  if (!row) throw new Error('dsh-base configures no spill-policy maxInlineBytes');
  return Number(row[1]);
}
