/**
 * The registry install path of the product description, `dsh plugin --profile web add
 * dsh-interactive-terminal@0.1.0`, into a fresh DSH_HOME of the real DSH 0.1.0-rc.8.
 *
 * The tests never publish to the public registry, so the packed plugin (`pnpm pack`, as `pnpm publish`
 * would upload it) is published with `npm publish` to a private Verdaccio on 127.0.0.1
 * (helpers/registry.ts), and the web profile is pointed at it the way the description tells users to point
 * it at a registry: `pnpm config set registry <url> --location=project` in `$DSH_HOME/profiles/web`.
 * The install must fetch the package and its tarball from that registry (and nowhere else), enable the
 * bundle patch, and DSH Web must then load both halves: the page shows the panel, the model's tool call
 * runs in the Agent's shell, and the person sees its output in the panel as the Controller.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addPlugin, createHome, packPlugin, removeRoot, startDshWeb, type DshWeb } from './helpers/dsh-web.ts';
import { ensureDshHost } from './helpers/host.ts';
import { chooseWorkspace, launchChromium, openTerminal, startConversation, statusText, waitForScreen } from './helpers/page.ts';
import { PLUGIN_NAME, startRegistry, type LoopbackRegistry } from './helpers/registry.ts';
import { waitFor } from './helpers/util.ts';

// A registry given in the environment (npm and pnpm export `npm_config_*` to scripts, and CI machines may
// set one) outranks the profile's project .npmrc; the profile's own setting is what is under test here.
for (const key of Object.keys(process.env)) {
  if (/^npm_config_(?:@[^:]+:)?registry$/i.test(key)) delete process.env[key];
}

const PROMPT = 'say hi from the registry install';

describe('install by registry name into DSH 0.1.0-rc.8 (a private registry on loopback)', () => {
  let root: string | undefined;
  let registry: LoopbackRegistry | undefined;
  let web: DshWeb | undefined;
  let browser: Browser | undefined;

  after(async () => {
    await browser?.close().catch(() => undefined);
    await web?.stop();
    await registry?.stop();
    if (root) removeRoot(root);
  });

  it('dsh plugin --profile web add dsh-interactive-terminal@0.1.0 installs the published tarball, and DSH Web loads it', async () => {
    ensureDshHost();
    const made = createHome('dsh-it-registry');
    root = made.root;
    const { home, workspace } = made;

    const tarball = packPlugin(join(root, 'pack'));
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    registry = await startRegistry(join(root, 'registry'));
    await registry.publish(tarball);
    const packument = (await (await fetch(`${registry.url}${PLUGIN_NAME}`)).json()) as {
      'dist-tags': Record<string, string>;
      versions: Record<string, { dist: { tarball: string; integrity: string } }>;
    };
    assert.equal(packument['dist-tags']['latest'], '0.1.0');
    assert.equal(packument.versions['0.1.0']?.dist.integrity, integrity, 'the registry serves the tarball just packed');

    // The profile folder exists before DSH initializes it only so that its project .npmrc can be written
    // first, with the command the product description gives (DSH keeps an existing .npmrc).
    const profile = join(home, 'profiles', 'web');
    mkdirSync(profile, { recursive: true });
    const configured = spawnSync('pnpm', ['config', 'set', 'registry', registry.url, '--location=project'], {
      cwd: profile,
      encoding: 'utf8',
    });
    assert.equal(configured.status, 0, `${configured.stdout}${configured.stderr}`);
    assert.match(readFileSync(join(profile, '.npmrc'), 'utf8'), new RegExp(`^registry=${registry.url.replace(/[.]/g, '\\.')}$`, 'm'));

    // A store and a metadata cache of the test's own: the machine's pnpm store may hold this very tarball
    // (same integrity) from the other install tests, and pnpm would then take it from there instead of
    // downloading it; the cache would keep the packument of a registry that is gone after the test.
    process.env['npm_config_store_dir'] = join(root, 'pnpm-store');
    process.env['npm_config_cache_dir'] = join(root, 'pnpm-cache');
    const servedBefore = registry.requests().length;
    addPlugin(home, `${PLUGIN_NAME}@0.1.0`, root);
    // The add ran synchronously: the registry's log lines arrive once this process reads its pipe again.
    const wanted = [`GET /${PLUGIN_NAME}`, `GET /${PLUGIN_NAME}/-/${PLUGIN_NAME}-0.1.0.tgz`];
    const loopback = registry;
    await waitFor(
      () => {
        const since = loopback.requests().slice(servedBefore);
        return wanted.every((request) => since.includes(request)) ? since : undefined;
      },
      `pnpm to fetch the packument and the tarball from the loopback registry (${wanted.join(', ')})`,
      5000,
    ).catch((error: unknown) => assert.fail(`${String(error)}; served: ${loopback.requests().slice(servedBefore).join(', ')}`));

    const manifest = readFileSync(join(profile, 'package.json'), 'utf8');
    assert.match(manifest, /"dsh-interactive-terminal": "\^?0\.1\.0"/, 'a registry dependency, not a link or a file');
    assert.match(manifest, /"bundles":[^\]]*"dsh-interactive-terminal"/, 'the bundle patch is enabled');
    assert.ok(readFileSync(join(profile, 'pnpm-lock.yaml'), 'utf8').includes(integrity), 'the lockfile pins the published tarball');
    const installed = realpathSync(join(profile, 'node_modules', PLUGIN_NAME));
    assert.ok(installed.startsWith(realpathSync(home)), `installed as a copy inside DSH_HOME, not linked to the checkout (${installed})`);
    // DSH Web needs no registry to start: stop it now, so the boot below cannot lean on it.
    await registry.stop();

    web = await startDshWeb({
      root,
      home,
      workspace,
      scenarios: { [PROMPT]: [{ tool: 'shared_terminal_send', args: { text: 'echo "hi from $SHARED_TERMINAL"' } }, { text: 'done' }] },
    });
    const client = await fetch(`${web.url}/plugins/${PLUGIN_NAME}/client.js`);
    assert.equal(client.status, 200);
    assert.match(await client.text(), /^window\.__ModuleLoader__\.load\(\{ id: "dsh-interactive-terminal"/);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US', colorScheme: 'light' });
    await page.goto(web.url);
    await chooseWorkspace(page, workspace);
    // The dock appears with the conversation: the browser half was loaded from the installed package.
    await startConversation(page, PROMPT, { newSession: false });
    const running = web;
    const result = await waitFor(
      () =>
        running
          .calls()
          .flatMap((call) => call.fresh)
          .find((message) => message.toolResult),
      'the tool result',
      30_000,
    );
    assert.equal(result.toolResult!.isError, false, result.text);
    assert.match(result.text, /hi from 1/);
    await openTerminal(page);
    assert.match(await statusText(page), /^Controller/);
    await waitForScreen(page, /^hi from 1$/m, "the model's output in the panel");
  });
});
