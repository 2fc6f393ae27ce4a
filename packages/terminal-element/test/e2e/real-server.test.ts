// <shared-terminal> (the built bundle) in the system Chromium against the real server: a real bash in a
// real PTY, the real transport, real WebSockets, Playwright's real keyboard.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright';
import { OWNER_ID, startRealServer, type RealServer } from '../helpers/real-server.ts';
import { CHROMIUM_FLAGS, chromiumLaunchOptions } from '@shared-terminal/test-support/chromium';
import { waitFor } from '@shared-terminal/test-support/wait';

let server: RealServer;
let browser: Browser;
let page: Page;

/** Poll until `check` holds (test-support's waitFor, at this suite's pace). */
const until = <T>(check: () => Promise<T>, what: string, timeoutMs = 20_000): Promise<NonNullable<T>> =>
  waitFor(check, what, timeoutMs, 50);

function screen(): Promise<string> {
  return page.evaluate(() => {
    const term = document.querySelector('shared-terminal')?.renderer;
    if (!term) return '';
    const buffer = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)?.translateToString(true) ?? '');
    return lines.join('\n');
  });
}

function view(): Promise<{
  state: string;
  role: string | null;
  generation: number | null;
  rows?: number;
  cols?: number;
  lease: string;
  sockets: number;
}> {
  return page.evaluate(() => {
    const el = document.querySelector('shared-terminal')!;
    const w = window as unknown as { __sockets: number };
    return {
      state: el.connectionState,
      role: el.role,
      generation: el.generation,
      rows: el.renderer?.rows,
      cols: el.renderer?.cols,
      lease: el.lease.state,
      sockets: w.__sockets,
    };
  });
}

/** Client frames the page sent, parsed (the WebSocket is wrapped before the page's scripts run). */
async function sentFrames(): Promise<Array<{ type: string; input?: string }>> {
  const texts = await page.evaluate(() => (window as unknown as { __frames: string[] }).__frames.slice());
  return texts.map((t) => JSON.parse(t) as { type: string; input?: string });
}

async function typeCommand(command: string): Promise<void> {
  await page.locator('shared-terminal .renderer:not(.staged) .xterm-screen').click();
  await page.keyboard.type(command, { delay: 10 });
  await page.keyboard.press('Enter');
}

/** The screen once `expect` shows on it and the person's lease has settled (the prompt is back). */
function finished(command: string, expect: RegExp): Promise<string> {
  return until(
    async () => {
      const text = await screen();
      return expect.test(text) && (await view()).lease === 'none' ? text : '';
    },
    `${JSON.stringify(command)} to finish`,
  );
}

async function runAtPrompt(command: string, expect: RegExp): Promise<string> {
  await typeCommand(command);
  return finished(command, expect);
}

async function open(): Promise<void> {
  await page.goto(server.url);
  await until(async () => {
    const v = await view();
    return v.state === 'connected' && v.role === 'controller' && /[$#] $/m.test(await screen());
  }, 'a connected controller at a prompt');
}

before(async () => {
  server = await startRealServer();
  // gc() in the page: the leak test below checks that a replaced renderer is really let go.
  browser = await chromium.launch({ ...chromiumLaunchOptions(), args: [...CHROMIUM_FLAGS, '--js-flags=--expose-gc'] });
  page = await browser.newPage({ viewport: { width: 1100, height: 800 } });
  await page.addInitScript(() => {
    const w = window as unknown as { __frames: string[]; __sockets: number; WebSocket: typeof WebSocket };
    w.__frames = [];
    w.__sockets = 0;
    const Native = w.WebSocket;
    w.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        w.__sockets += 1;
      }
      override send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
        if (typeof data === 'string') w.__frames.push(data);
        super.send(data);
      }
    };
  });
  await open();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

test('typing echo hi at an idle prompt shows the output, each key once, and the server saw a human lease', async () => {
  const text = await runAtPrompt('echo hi', /echo hi\n(?:.*\n)*?hi$/m);
  assert.match(text, /^hi$/m);
  const typed = (await sentFrames()).filter((f) => f.type === 'begin' || f.type === 'input');
  assert.equal(typed[0]?.type, 'begin');
  assert.equal(typed.filter((f) => f.type === 'begin').length, 1);
  assert.equal(typed.map((f) => f.input).join(''), 'echo hi\r', 'every key went out exactly once');
  await until(async () => server.settled.length > 0, 'the human lease to settle');
  assert.equal(server.settled[0]!.ownerId, OWNER_ID);
  assert.equal(server.settled[0]!.origin, 'idle');
  assert.equal(server.settled[0]!.waitReason, 'prompt');
});

test('collapse and expand keep the shell and the socket', async () => {
  await runAtPrompt('KEPT=shell-42', /KEPT=shell-42/);
  const before = await view();
  await page.locator('shared-terminal .toggle').click();
  await until(async () => page.evaluate(() => document.querySelector('shared-terminal')!.collapsed), 'collapsed');
  await page.locator('shared-terminal .toggle').click();
  await until(async () => !(await page.evaluate(() => document.querySelector('shared-terminal')!.collapsed)), 'expanded');
  const text = await runAtPrompt('echo "[$KEPT]"', /^\[shell-42\]$/m);
  assert.match(text, /^\[shell-42\]$/m);
  assert.equal((await view()).sockets, before.sockets, 'no new connection');
});

test('a reload restores the screen and keeps control (the closing page frees the seat at once)', async () => {
  const before = await screen();
  assert.match(before, /^\[shell-42\]$/m);
  await page.reload();
  await until(async () => (await view()).state === 'connected' && /^\[shell-42\]$/m.test(await screen()), 'the restored screen');
  const restored = await screen();
  assert.match(restored, /^hi$/m);
  assert.match(restored, /^\[shell-42\]$/m);
  // The old page closed its socket with 1001 while holding no input, so the server freed the seat at once:
  // the reloaded page is Controller without waiting out the grace and without pressing Reconnect.
  await until(async () => (await view()).role !== null, 'a role');
  assert.equal((await view()).role, 'controller');
  assert.match((await page.locator('shared-terminal [part="status"]').textContent()) ?? '', /^\s*Controller/);
  await runAtPrompt('echo "still [$KEPT]"', /^still \[shell-42\]$/m);
});

test('a flood faster than the page: it skips ahead (catch-ups in place), then holds the whole history again', async () => {
  const renderer = await page.evaluateHandle(() => document.querySelector('shared-terminal')!.renderer);
  const stats = () => server.transport.stats().views.find((v) => v.ownerId === OWNER_ID)!;
  // The page must be the slower side: on a loaded machine the server's parse slows as much as the page's,
  // and a page that kept up took 14 s to fall behind twice. So the page runs on a CPU throttled the way
  // DevTools slows a page for a slow device, and the flood goes on until the page has skipped ahead, then
  // ends with one whole pass. `$((6*7))` keeps the typed command line from matching the end line.
  const cdp = await page.context().newCDPSession(page);
  const stop = join(tmpdir(), `st-flood-stop-${process.pid}`);
  rmSync(stop, { force: true });
  const last = 20_000;
  const command = `while [ ! -e ${stop} ]; do seq -f 'flood line %g' 1 ${last}; done; echo flood-over-$((6*7))`;
  await typeCommand(command);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 8 });
  // While it catches up (before the full snapshot), each catch-up is applied to the same renderer.
  await until(async () => {
    const kept = await page.evaluate((r) => r === document.querySelector('shared-terminal')!.renderer, renderer);
    return stats().catchUps >= 2 && stats().partial ? (assert.ok(kept, 'catch-ups keep the renderer'), true) : false;
  }, 'two catch-ups');
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await cdp.detach();
  writeFileSync(stop, '');
  await finished(command, /^flood-over-42$/m);
  rmSync(stop, { force: true });
  assert.ok(stats().skippedChars > 0, `the page skipped ahead (${stats().catchUps} catch-ups)`);
  // Once output is quiet the full snapshot arrives: the page's history is the server's newest 2,000 lines.
  const text = await until(async () => {
    const t = await screen();
    return !stats().partial && t.includes(`flood line ${last - 1900}`) ? t : '';
  }, 'the whole history in the page');
  const lines = text.split('\n');
  const end = lines.lastIndexOf(`flood line ${last}`);
  assert.equal(lines[end + 1], 'flood-over-42');
  for (let k = 0; k < 1900; k++) assert.equal(lines[end - k], `flood line ${last - k}`, `${k} lines from the end`);
  assert.equal((await view()).sockets, 1, 'no reconnect');
  await runAtPrompt('echo "after [$KEPT]"', /^after \[shell-42\]$/m);
});

test('a reconnect shows the screen with the newest history first, then the whole history parsed off screen and swapped in (never a blank screen, the scroll place kept)', async () => {
  type ScreenDetail = { historyLines: number; truncated: boolean };
  type Probe = { __screens: ScreenDetail[]; __blank: number; __samples: number; __sampling: boolean };
  await page.evaluate(() => {
    const w = window as unknown as Probe;
    const el = document.querySelector('shared-terminal')!;
    w.__screens = [];
    w.__blank = 0;
    w.__samples = 0;
    w.__sampling = true;
    el.addEventListener('shared-terminal-screen', (event) => {
      w.__screens.push((event as CustomEvent<ScreenDetail>).detail);
      // The person scrolls up 100 rows on the first screen; the swapped-in history keeps that place.
      if (w.__screens.length === 1) el.renderer!.scrollLines(-100);
    });
    // Every frame: exactly one renderer on screen, and it shows text.
    const sample = (): void => {
      if (!w.__sampling) return;
      const shown = el.shadowRoot!.querySelectorAll('.renderer:not(.staged) .xterm-rows');
      w.__samples += 1;
      if (shown.length !== 1 || !/\S/.test(shown[0]!.textContent ?? '')) w.__blank += 1;
      requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
    el.reconnect();
  });
  const screens = (await until(
    () => page.evaluate(() => ((window as unknown as Probe).__screens.length >= 2 ? (window as unknown as Probe).__screens : null)),
    'the first screen and then the whole history',
  )) as ScreenDetail[];
  const probe = await page.evaluate(() => {
    const w = window as unknown as Probe;
    w.__sampling = false;
    const el = document.querySelector('shared-terminal')!;
    const buffer = el.renderer!.buffer.active;
    return {
      blank: w.__blank,
      samples: w.__samples,
      renderers: el.shadowRoot!.querySelectorAll('.renderer').length,
      fromBottom: buffer.baseY - buffer.viewportY,
    };
  });
  assert.equal(screens[0]!.historyLines, 500, 'the first screen came with the newest 500 rows');
  assert.equal(screens[0]!.truncated, true);
  assert.ok(screens[1]!.historyLines >= 1900, `then the whole history (${screens[1]!.historyLines} rows)`);
  assert.ok(probe.samples > 0);
  assert.equal(probe.blank, 0, `frames without exactly one renderer showing text: ${probe.blank} of ${probe.samples}`);
  assert.equal(probe.renderers, 1, 'the replaced renderers are gone from the page');
  assert.equal(probe.fromBottom, 100, 'the view stayed 100 rows up from the bottom across the swap');
  const text = await screen();
  assert.ok(text.split('\n').filter((line) => line.startsWith('flood line ')).length >= 1900, 'the page holds the whole history');
  await runAtPrompt('echo "swapped [$KEPT]"', /^swapped \[shell-42\]$/m);
});

test('a snapshot with history gets a fresh renderer and the old one is let go (nothing keeps it alive)', async () => {
  await page.evaluate(() => {
    const w = window as unknown as { __oldRenderer: WeakRef<object> };
    w.__oldRenderer = new WeakRef(document.querySelector('shared-terminal')!.renderer!);
    document.querySelector('shared-terminal')!.reconnect();
  });
  await until(
    async () =>
      page.evaluate(() => {
        const w = window as unknown as { __oldRenderer: WeakRef<object> };
        const el = document.querySelector('shared-terminal')!;
        return el.connectionState === 'connected' && el.renderer !== null && el.renderer !== w.__oldRenderer.deref();
      }),
    'a fresh renderer',
  );
  await until(
    async () =>
      page.evaluate(async () => {
        const w = window as unknown as { __oldRenderer: WeakRef<object>; gc: () => void };
        w.gc();
        await new Promise((resolve) => setTimeout(resolve, 50));
        w.gc();
        return w.__oldRenderer.deref() === undefined;
      }),
    'the old renderer to be collected',
    10_000,
  );
});

test('a font change leaves stty size unchanged', async () => {
  await runAtPrompt('stty size', /^24 100$/m);
  const before = await view();
  await page.locator('shared-terminal .settings').click();
  for (let i = 0; i < 4; i++) await page.locator('shared-terminal .font-up').click();
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => document.querySelector('shared-terminal')!.fontSize), 17);
  await page.evaluate(() => document.querySelector('shared-terminal')!.renderer!.clear());
  const text = await runAtPrompt('stty size; echo "cols=$COLUMNS"', /^cols=/m);
  assert.match(text, /^24 100$/m);
  const after = await view();
  assert.deepEqual([after.rows, after.cols], [24, 100]);
  assert.equal(after.sockets, before.sockets);
});

test('Reset Terminal asks first, then shows the next generation', async () => {
  const owner = server.hub.get(OWNER_ID)!;
  const generationBefore = (await view()).generation;
  assert.equal(generationBefore, owner.state().generation);
  await page.locator('shared-terminal .settings').click();
  await page.locator('shared-terminal .reset').click();
  const dialog = page.locator('shared-terminal [role="alertdialog"]');
  await dialog.waitFor();
  assert.match((await dialog.textContent()) ?? '', /Reset Terminal\?/);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(owner.state().generation, generationBefore, 'nothing is reset before the confirmation');
  await page.locator('shared-terminal .confirm-reset').click();
  await until(
    async () => (await view()).generation === generationBefore! + 1 && (await view()).state === 'connected',
    'the next generation',
  );
  await until(async () => /[$#] $/m.test(await screen()), 'a fresh prompt');
  assert.doesNotMatch(await screen(), /shell-42/);
  await runAtPrompt('echo "[${KEPT:-gone}]"', /^\[gone\]$/m);
});
