/**
 * A hermetic DSH Web for one test file: a fresh DSH_HOME and workspace, the plugin installed with the real
 * `dsh plugin --profile web add`, and `dsh --profile web` started with a test patch layer that
 * - disables the rows that would need a model key or network (llm-deepseek, session-title-llm, telemetry)
 *   and the instructions row, and pins the browse directory picker;
 * - mounts the scripted model (fixtures/replay-model.mjs) and the agent lab (fixtures/agent-lab.mjs).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DSH_BIN, FIXTURES, PACKAGE_DIR } from './host.ts';
import { pidAlive, sleep, waitFor } from './util.ts';

export type ScriptStep = { tool: string; args?: Record<string, unknown> } | { text: string };

export interface ModelCall {
  call: number;
  /** Wall-clock time (ms) the model was called: just after DSH appended the previous tool result. */
  at: number;
  sessionId: string;
  scenario: string;
  step: number;
  tools: string[];
  fresh: {
    role: string;
    source: { kind?: string; plugin?: string; form?: string; summary?: string };
    text: string;
    toolResult?: { isError: boolean };
    toolCalls?: { name: string; arguments: string }[];
  }[];
}

export interface DshWeb {
  root: string;
  home: string;
  workspace: string;
  url: string;
  process: ChildProcess;
  /** Scripted model calls so far. */
  calls(): ModelCall[];
  /** POST to the agent lab. */
  lab<T>(route: string, body: Record<string, unknown>): Promise<T>;
  /** Write the profile's user patch layer (DSH hot-reloads it). */
  writeUserPatch(yaml: string): void;
  output(): string;
  stop(): Promise<void>;
}

function dshEnv(home: string): NodeJS.ProcessEnv {
  // DSH makes a spill folder in the temporary directory at every start: keep it inside the test's root.
  const temporary = join(home, '..', 'tmp');
  mkdirSync(temporary, { recursive: true });
  return {
    ...process.env,
    TMPDIR: temporary,
    DSH_HOME: home,
    DSH_TELEMETRY_DISABLED: '1',
    // The scripted model is keyless; no real key may leak into a test run.
    DEEPSEEK_API_KEY: '',
  };
}

/**
 * A fresh DSH_HOME with the welcome notice acknowledged. With `locale: 'browser'` DSH follows each page's
 * browser language (so one run can show English and Chinese pages); by default the UI is English.
 */
export function createHome(prefix: string, options: { locale?: 'en' | 'browser' } = {}): { root: string; home: string; workspace: string } {
  const root = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  mkdirSync(home, { recursive: true });
  mkdirSync(workspace, { recursive: true });
  const locale = options.locale === 'browser' ? '' : 'locale:\n  preference: en\n';
  writeFileSync(join(home, 'settings.yaml'), `ui-onboarding:\n  welcomeNoticeVersion: '2026-08-13.1'\n${locale}`);
  return { root, home, workspace };
}

/** `dsh plugin --profile web add <spec>`, run from `cwd` (relative specs are anchored there). */
export function addPlugin(home: string, spec: string, cwd: string): string {
  const result = spawnSync(DSH_BIN, ['plugin', '--profile', 'web', 'add', spec], { cwd, env: dshEnv(home), encoding: 'utf8' });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) throw new Error(`dsh plugin add ${spec} failed (exit ${result.status}):\n${output}`);
  return output;
}

/** `pnpm pack` of the built plugin into `dir`; returns the tarball's path. */
export function packPlugin(dir: string): string {
  const result = spawnSync('pnpm', ['pack', '--pack-destination', dir], { cwd: PACKAGE_DIR, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`pnpm pack failed:\n${result.stdout}${result.stderr}`);
  const tarball = join(dir, 'dsh-interactive-terminal-0.1.0.tgz');
  if (!existsSync(tarball)) throw new Error(`pnpm pack did not write ${tarball}`);
  return tarball;
}

export interface StartOptions {
  root: string;
  home: string;
  workspace: string;
  scenarios: Record<string, ScriptStep[]>;
  /** More rows for the test patch layer (YAML list items). */
  extraPatch?: string;
}

export async function startDshWeb(options: StartOptions): Promise<DshWeb> {
  const { root, home, workspace } = options;
  const scriptPath = join(root, 'script.json');
  const logPath = join(root, 'model-calls.jsonl');
  writeFileSync(scriptPath, JSON.stringify({ scenarios: options.scenarios }));
  writeFileSync(logPath, '');
  const patchPath = join(root, 'test-layer.yml');
  writeFileSync(
    patchPath,
    [
      '- id: llm-deepseek',
      '  disabled: true',
      '- id: session-title-llm',
      '  disabled: true',
      '- id: agent-instructions',
      '  disabled: true',
      '- id: session-telemetry-otel',
      '  disabled: true',
      '- id: directory-picker',
      '  disabled: true',
      '- insert:',
      '    - id: test-directory-picker-browse',
      "      name: '@deepseek-ai/dsh-host-directory-picker-browse'",
      '    - id: test-directory-picker-browse-client',
      "      name: '@deepseek-ai/dsh-client-ui-directory-picker-browse'",
      '    - id: replay-model',
      `      name: ${JSON.stringify(`file://${FIXTURES}/replay-model.mjs`)}`,
      '      config:',
      `        script: ${JSON.stringify(scriptPath)}`,
      `        log: ${JSON.stringify(logPath)}`,
      '    - id: agent-lab',
      `      name: ${JSON.stringify(`file://${FIXTURES}/agent-lab.mjs`)}`,
      options.extraPatch ?? '',
      '',
    ].join('\n'),
  );
  const child = spawn(DSH_BIN, ['--profile', 'web', '--patch', patchPath, '--no-open', '--host', '127.0.0.1', '--port', '0'], {
    cwd: workspace,
    env: dshEnv(home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = await waitFor(
    () => {
      if (exited) throw new Error(`dsh --profile web exited before it served:\n${output}`);
      return /dsh web: (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    },
    'dsh web to print its address',
    60_000,
  );
  return {
    root,
    home,
    workspace,
    url,
    process: child,
    // Complete lines only: the log may be read while its newest line is still being written.
    calls: () => {
      const text = readFileSync(logPath, 'utf8');
      return text
        .slice(0, text.lastIndexOf('\n') + 1)
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as ModelCall);
    },
    async lab<T>(route: string, body: Record<string, unknown>): Promise<T> {
      const response = await fetch(`${url}/__lab/${route}`, { method: 'POST', body: JSON.stringify(body) });
      const value = (await response.json()) as T & { error?: string };
      if (!response.ok) throw new Error(`lab ${route}: ${value.error ?? response.status}`);
      return value;
    },
    writeUserPatch(yaml: string) {
      // Whole or not at all: DSH rereads the file on the first change event, and chokidar drops a second
      // event within 5 ms. A plain write (truncate, then write) stalled between the two left DSH reading
      // an empty file, failing that reload and never seeing the content (CI lost an unload this way).
      const file = join(home, 'profiles', 'web', 'cordis.patch.yml');
      writeFileSync(`${file}.next`, yaml);
      renameSync(`${file}.next`, file);
    },
    output: () => output,
    async stop() {
      if (!exited && child.pid && pidAlive(child.pid)) {
        child.kill('SIGTERM');
        const deadline = Date.now() + 8000;
        while (!exited && Date.now() < deadline) await sleep(50);
        if (!exited) child.kill('SIGKILL');
      }
    },
  };
}

export function removeRoot(root: string): void {
  rmSync(root, { recursive: true, force: true });
}
