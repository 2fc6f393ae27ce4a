// The packages as a new user gets them. Every publishable package is packed (pnpm pack: workspace:*
// rewritten, publishConfig applied); the tarballs are installed from files, everything else from the npm
// registry, into two projects outside the workspace (no links back into it):
// - a Vite 8 + React 19 app made like the Vite template (its `#root { text-align: center }` included):
//   type-checked and built, then its built page is opened in Chromium on its own origin against a real
//   `shared-terminal serve --allow-origin` that it types `echo hi` into;
// - a strict TypeScript project (skipLibCheck off), checked with TypeScript 5.9 and 7.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright';
import { chromiumLaunchOptions } from '@shared-terminal/test-support/chromium';

/** The part of the element the page checks (its types come from the tarball, inside the scratch app). */
interface ShownTerminal extends Element {
  renderer: { buffer: { active: { length: number; getLine(i: number): { translateToString(trim: boolean): string } | undefined } } };
}

const run = promisify(execFile);
const root = new URL('../../../', import.meta.url).pathname;
const fixtures = new URL('../fixtures/', import.meta.url).pathname;
const PUBLISHED = {
  server: 'packages/terminal-server',
  element: 'packages/terminal-element',
  standalone: 'packages/standalone',
  plugin: 'packages/dsh-plugin',
};
type Published = keyof typeof PUBLISHED;

const scratch = mkdtempSync(join(tmpdir(), 'shared-terminal-consumer-'));
const tarballs = {} as Record<Published, string>;

/** A command's output; a failure carries the command's own words. */
async function sh(cwd: string, command: string, args: string[], timeout = 180_000): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd, timeout, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, CI: 'true' } });
    return stdout + stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed:\n${e.stdout ?? ''}${e.stderr ?? ''}\n${e.message}`, {
      cause: error,
    });
  }
}

/** A fixture project copied outside the workspace, its tarball dependencies pointed at the packed files. */
async function project(name: 'app' | 'strict'): Promise<string> {
  const dir = join(scratch, name);
  cpSync(join(fixtures, name), dir, { recursive: true });
  const manifest = join(dir, 'package.json');
  writeFileSync(
    manifest,
    readFileSync(manifest, 'utf8').replace(/"TARBALL:(\w+)"/g, (_, key: Published) => JSON.stringify(`file:${tarballs[key]}`)),
  );
  // No lockfile and no workspace around it: the registry's packages, as a user's install gets them.
  await sh(dir, 'pnpm', ['install', '--prefer-offline', '--ignore-workspace', '--config.confirmModulesPurge=false']);
  return dir;
}

before(async () => {
  const out = join(scratch, 'tarballs');
  for (const [key, dir] of Object.entries(PUBLISHED) as [Published, string][]) {
    const printed = await sh(join(root, dir), 'pnpm', ['pack', '--pack-destination', out]);
    const file = printed.trim().split('\n').pop()!.trim();
    assert.ok(file.endsWith('.tgz') && existsSync(file), `pnpm pack printed ${printed}`);
    tarballs[key] = file;
  }
});

after(() => {
  rmSync(scratch, { recursive: true, force: true });
});

describe('the packed packages', () => {
  test('each tarball has its LICENSE and CHANGELOG, no source or test helpers, and no workspace: ranges', async () => {
    for (const [key, file] of Object.entries(tarballs) as [Published, string][]) {
      const files = (await sh(scratch, 'tar', ['tzf', file])).trim().split('\n');
      for (const needed of ['package/LICENSE', 'package/CHANGELOG.md', 'package/README.md', 'package/package.json'])
        assert.ok(files.includes(needed), `${key}: ${needed}`);
      const stray = files.filter((f) => /^package\/(src|test)\//.test(f) || /testing|scripted-server|page-server|chromium\.m?js/.test(f));
      assert.deepEqual(stray, [], `${key}: no source or test helpers`);
      const manifest = JSON.parse(await sh(scratch, 'tar', ['xzf', file, '-O', 'package/package.json'])) as Record<string, unknown>;
      assert.doesNotMatch(JSON.stringify(manifest), /workspace:/, `${key}: workspace ranges rewritten`);
      for (const field of ['repository', 'engines', 'sideEffects', 'keywords', 'license'])
        assert.ok(manifest[field] !== undefined, `${key}: ${field}`);
      assert.equal(manifest['license'], 'MIT');
    }
  });

  test('a strict TypeScript project type-checks against the built declarations with TypeScript 5.9 and 7', async () => {
    const dir = await project('strict');
    await sh(dir, join(dir, 'node_modules/typescript/bin/tsc'), ['-p', '.']);
    await sh(dir, join(dir, 'node_modules/typescript-7/bin/tsc'), ['-p', '.']);
    // The test helpers are no part of the published exports (Node could not load their .ts from node_modules).
    const resolved = await sh(dir, process.execPath, [
      '-e',
      "try { import.meta.resolve('@shared-terminal/element/testing'); console.log('resolved') } catch (e) { console.log(e.code) }",
      '--input-type=module',
    ]);
    assert.equal(resolved.trim(), 'ERR_PACKAGE_PATH_NOT_EXPORTED');
    const manifest = JSON.parse(readFileSync(join(dir, 'node_modules/@shared-terminal/element/package.json'), 'utf8')) as {
      customElements: string;
    };
    const cem = JSON.parse(readFileSync(join(dir, 'node_modules/@shared-terminal/element', manifest.customElements), 'utf8')) as {
      modules: { declarations: { tagName?: string; events?: { name: string }[] }[] }[];
    };
    const element = cem.modules.flatMap((m) => m.declarations).find((d) => d.tagName === 'shared-terminal');
    assert.ok(
      element?.events?.some((e) => e.name === 'shared-terminal-lease'),
      'the manifest describes the element and its events',
    );
  });

  describe('a Vite + React 19 app', () => {
    let app: string;
    let pageServer: Server;
    let serve: ChildProcess;
    let browser: Browser;

    before(async () => {
      app = await project('app');
    });

    after(async () => {
      await browser?.close();
      pageServer?.close();
      serve?.kill('SIGTERM');
    });

    test('type-checks and builds', async () => {
      await sh(app, join(app, 'node_modules/typescript/bin/tsc'), ['-p', '.']);
      await sh(app, join(app, 'node_modules/vite/bin/vite.js'), ['build']);
      assert.ok(existsSync(join(app, 'dist/index.html')));
    });

    test('its built page, on its own origin, types echo hi into a real shared-terminal serve', async () => {
      const dist = join(app, 'dist');
      pageServer = await staticServer(dist);
      const pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
      const token = 'consumer-test-token-0123456789';
      const cli = join(root, 'packages/standalone/dist/cli.js');
      serve = spawn(process.execPath, [cli, 'serve', '--port', '0', '--cwd', scratch, '--allow-origin', pageOrigin], {
        env: { ...process.env, SHARED_TERMINAL_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const serverOrigin = await new Promise<string>((resolve, reject) => {
        let out = '';
        serve.stdout!.on('data', (d: Buffer) => {
          out += d;
          const match = /^shared-terminal: (http:\/\/[^/]+)\//m.exec(out);
          if (match) resolve(match[1]!);
        });
        serve.once('exit', (code) => reject(new Error(`serve exited (${code}) before its address`)));
      });

      browser = await chromium.launch(chromiumLaunchOptions());
      const page = await browser.newPage();
      await page.goto(`${pageOrigin}/?server=${encodeURIComponent(serverOrigin)}&token=${token}`);
      const status = page.locator('shared-terminal [part="status"]');
      await status.filter({ hasText: /^Controller \| connected/ }).waitFor({ timeout: 20_000 });
      await page.locator('shared-terminal .xterm-helper-textarea').focus();
      await page.keyboard.type('echo hi');
      await page.keyboard.press('Enter');
      const lines = () =>
        page.evaluate(() => {
          const buffer = document.querySelector<ShownTerminal>('shared-terminal')!.renderer.buffer.active;
          return Array.from({ length: buffer.length }, (_, i) => buffer.getLine(i)!.translateToString(true));
        });
      for (let i = 0; i < 200 && !(await lines()).includes('hi'); i++) await page.waitForTimeout(50);
      assert.ok((await lines()).includes('hi'), `the shell answered: ${JSON.stringify(await lines())}`);
      // The template's `#root { text-align: center }` stops at the element: the prompt starts at the left.
      const offset = await page.evaluate(() => {
        const row = document.querySelector<ShownTerminal>('shared-terminal')!.shadowRoot!.querySelector('.xterm-rows > div')!;
        const range = document.createRange();
        range.selectNodeContents(row);
        return range.getBoundingClientRect().left - row.getBoundingClientRect().left;
      });
      assert.ok(Math.abs(offset) < 1, `the first row starts at its left edge (${offset} px in)`);
      // The element's events reach React's on<event> props: the lease of the typed line was granted.
      assert.match(await page.locator('#leases').innerText(), /\bgranted\b/);
    });
  });
});

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

/** The built app, as any static host serves it. */
function staticServer(dir: string): Promise<Server> {
  const files = new Set(readdirSync(dir, { recursive: true }).map((f) => `/${String(f)}`));
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = path === '/' ? '/index.html' : path;
    if (!files.has(file)) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(join(dir, file)));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
