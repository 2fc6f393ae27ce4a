/**
 * The other install paths of the product description, each into a fresh DSH_HOME of the real DSH
 * 0.1.0-rc.8, after `pnpm run build` (the tarball path is covered by dsh-web.test.ts):
 * - `dsh plugin --profile web add <dir>`: pnpm records a `link:` to the checkout, whose imports resolve
 *   from the checkout's real path (never from DSH's profile). The server half must load anyway.
 * - `dsh plugin --profile web add file:<dir>`: a copy of the package's `files`.
 * Each must boot DSH Web, serve the client bundle, and run a tool through a real Agent turn.
 * A third boot replaces DSH's sandbox provider with one whose confinement fails (fixtures/no-confinement.mjs,
 * as DSH's own provider does on a host without bwrap or Landlock): the terminal must refuse to start.
 * (The registry path, `add dsh-interactive-terminal@0.1.0`, is proven against a private registry on
 * loopback in registry-install.test.ts.)
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { addPlugin, createHome, removeRoot, startDshWeb } from './helpers/dsh-web.ts';
import { FIXTURES, PACKAGE_DIR, ensureDshHost } from './helpers/host.ts';
import { descendants, waitFor } from './helpers/util.ts';

async function checkInstall(spec: (root: string) => string, expectInProfile: RegExp, options: { noSandbox?: boolean } = {}): Promise<void> {
  ensureDshHost();
  const { root, home, workspace } = createHome('dsh-it-install');
  const web = { stop: async () => undefined } as { stop(): Promise<void> };
  try {
    addPlugin(home, spec(root), root);
    const profile = readFileSync(join(home, 'profiles', 'web', 'package.json'), 'utf8');
    assert.match(profile, expectInProfile);
    assert.match(profile, /"bundles":[^\]]*"dsh-interactive-terminal"/, 'the bundle patch is enabled');
    const started = await startDshWeb({
      root,
      home,
      workspace,
      scenarios: { 'say hi': [{ tool: 'shared_terminal_send', args: { text: 'echo "hi from $SHARED_TERMINAL"' } }, { text: 'done' }] },
      ...(options.noSandbox
        ? {
            extraPatch: `    - id: test-no-confinement\n      name: ${JSON.stringify(`file://${FIXTURES}/no-confinement.mjs`)}\n- id: sandbox\n  disabled: true`,
          }
        : {}),
    });
    web.stop = started.stop;
    const client = await fetch(`${started.url}/plugins/dsh-interactive-terminal/client.js`);
    assert.equal(client.status, 200);
    assert.match(await client.text(), /^window\.__ModuleLoader__\.load\(\{ id: "dsh-interactive-terminal"/);
    await started.lab('create', { sessionId: 'install-check', cwd: workspace, prompt: 'say hi' });
    const result = await waitFor(
      () =>
        started
          .calls()
          .flatMap((call) => call.fresh)
          .find((message) => message.toolResult),
      'the tool result',
      30_000,
    );
    if (options.noSandbox) {
      // workspace-write needs confinement, and there is no provider: the terminal must not start at all.
      assert.equal(result.toolResult!.isError, true, result.text);
      assert.match(result.text, /could not confine the terminal .*is unavailable on this host.*it was not started unconfined/);
      assert.deepEqual(
        descendants(started.process.pid!).filter((pid) => /bash/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'))),
        [],
      );
    } else {
      assert.match(result.text, /hi from 1/);
    }
  } finally {
    await web.stop();
    removeRoot(root);
  }
}

describe('install paths into DSH 0.1.0-rc.8', () => {
  it('dsh plugin add <directory> (a link to the built checkout)', async () => {
    await checkInstall(() => PACKAGE_DIR, /"dsh-interactive-terminal": "link:/);
  });

  it('dsh plugin add file:<directory> (a copy of the package files)', async () => {
    await checkInstall(() => `file:${PACKAGE_DIR}`, /"dsh-interactive-terminal": "file:/);
  });

  it('when confinement is unavailable, a workspace-write session refuses to start the terminal (never unconfined)', async () => {
    await checkInstall(() => PACKAGE_DIR, /"dsh-interactive-terminal": "link:/, { noSandbox: true });
  });
});
