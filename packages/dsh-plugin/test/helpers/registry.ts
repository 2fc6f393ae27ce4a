/**
 * A private npm registry on loopback for the registry install path (`dsh plugin --profile web add
 * dsh-interactive-terminal@0.1.0`), since the tests may never publish to the public registry.
 *
 * It is Verdaccio (a devDependency, pinned) in a child process (helpers/registry-server.ts), with everything
 * in one folder of the test's temporary root: config, storage, the htpasswd file and npm's cache.
 * - `dsh-interactive-terminal` is local only: it is served from what `publish` uploaded and never asked of
 *   the upstream registry, so the install cannot pick up anything but this checkout's tarball.
 * - Every other name is proxied to https://registry.npmjs.org/ (the profile's pnpm may ask for any).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pidAlive, sleep, waitFor } from './util.ts';

export const PLUGIN_NAME = 'dsh-interactive-terminal';
const UPSTREAM = 'https://registry.npmjs.org/';
const SERVER_ENTRY = fileURLToPath(new URL('./registry-server.ts', import.meta.url));

export interface LoopbackRegistry {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:40123/`. */
  url: string;
  /** `METHOD path` of every request served so far, in order. */
  requests(): string[];
  /** Publish a packed tarball with the real `npm publish`, as a user registered on this registry. */
  publish(tarball: string): Promise<void>;
  output(): string;
  stop(): Promise<void>;
}

function verdaccioConfig(dir: string): string {
  const quote = (value: string) => JSON.stringify(value);
  return [
    `storage: ${quote(join(dir, 'storage'))}`,
    `plugins: ${quote(join(dir, 'plugins'))}`,
    'auth:',
    '  htpasswd:',
    `    file: ${quote(join(dir, 'htpasswd'))}`,
    'uplinks:',
    '  npmjs:',
    `    url: ${UPSTREAM}`,
    '    timeout: 30s',
    'packages:',
    // No `proxy` here: the plugin's name is never looked up upstream.
    `  ${quote(PLUGIN_NAME)}:`,
    '    access: $all',
    '    publish: $authenticated',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    '    proxy: npmjs',
    'web:',
    '  enable: false',
    'log:',
    '  type: stdout',
    '  format: pretty',
    '  level: warn',
    '',
  ].join('\n');
}

/** Start the registry in `dir` (created; the caller removes it with its temporary root). */
export async function startRegistry(dir: string): Promise<LoopbackRegistry> {
  mkdirSync(join(dir, 'storage'), { recursive: true });
  mkdirSync(join(dir, 'plugins'), { recursive: true });
  const configPath = join(dir, 'verdaccio.yaml');
  writeFileSync(configPath, verdaccioConfig(dir));
  // stdin stays a pipe: the child exits when it closes, also if this process dies without stopping it.
  const child = spawn(process.execPath, [SERVER_ENTRY, configPath], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let exited = false;
  child.once('exit', () => (exited = true));

  const stop = async (): Promise<void> => {
    if (exited || !child.pid || !pidAlive(child.pid)) return;
    child.kill('SIGTERM');
    const deadline = Date.now() + 5000;
    while (!exited && Date.now() < deadline) await sleep(25);
    if (!exited) child.kill('SIGKILL');
  };

  let url: string;
  try {
    url = await waitFor(
      () => {
        if (exited) throw new Error(`the registry exited before it listened:\n${output}`);
        return /^listening (http:\/\/127\.0\.0\.1:\d+\/)$/m.exec(output)?.[1];
      },
      'the registry to listen',
      30_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const authKey = url.replace(/^http:/, '');

  return {
    url,
    requests: () => [...output.matchAll(/^request (\S+ \S+)$/gm)].map((match) => match[1]!),
    async publish(tarball: string) {
      // A registered user's token in a userconfig of its own: nothing from the machine's npm config (its
      // registry, its tokens) takes part, and npm's cache stays in the temporary folder too.
      const response = await fetch(`${url}-/user/org.couchdb.user:tester`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'tester', password: 'tester-password', type: 'user' }),
      });
      const registered = (await response.json()) as { token?: string; error?: string };
      if (!registered.token)
        throw new Error(`registering a user on the test registry failed (${response.status}): ${registered.error ?? 'no token'}`);
      const userconfig = join(dir, 'publisher.npmrc');
      writeFileSync(userconfig, `registry=${url}\n${authKey}:_authToken=${registered.token}\n`);
      const published = spawnSync(
        'npm',
        [
          'publish',
          tarball,
          '--registry',
          url,
          '--userconfig',
          userconfig,
          '--cache',
          join(dir, 'npm-cache'),
          '--no-audit',
          '--no-fund',
          '--update-notifier=false',
        ],
        { cwd: dir, encoding: 'utf8' },
      );
      if (published.status !== 0)
        throw new Error(`npm publish to the test registry failed (exit ${published.status}):\n${published.stdout}${published.stderr}`);
    },
    output: () => output,
    stop,
  };
}
