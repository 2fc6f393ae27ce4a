/**
 * The standalone shared terminal end to end: the real `shared-terminal` CLI process, real PTYs running
 * bash, the system Chromium showing `<shared-terminal>`, and the model's side through the HTTP API, the
 * events stream and a real MCP client. Each test uses its own agent id on one server.
 */
import { test, expect, type Browser } from '@playwright/test';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ReadResult, SendResult } from '@shared-terminal/server';
import {
  CLI,
  rawRequest,
  startCli,
  tempDir,
  upgradeStatus,
  waitFor,
  writeConfig,
  type RunningCli,
} from '../../packages/standalone/test/helpers/cli.ts';
import { agentApi, subscribeEvents } from '../support/agent-api.ts';
import { chooseSetting, openAgentPage, terminalView, typeInTerminal } from '../support/shared-terminal.ts';

/** Short grace and a small input cap, so the tests see both within seconds. */
const CONFIG = { rows: 24, cols: 100, disconnectGraceMs: 1500, maxInputBytes: 160 };
const SCREENSHOT_DIR =
  process.env['UPDATE_SCREENSHOTS'] === '1'
    ? new URL('../screenshots/', import.meta.url).pathname
    : new URL('../../.artifacts/e2e-screenshots/', import.meta.url).pathname;

let cli: RunningCli;
/** A page on another origin of the same host (same site, so a SameSite=Strict cookie still travels). */
let foreign: Server;
let foreignOrigin: string;

const link = (agent: string) => `${cli.base}/agents/${agent}?token=${cli.token}`;

let configDir: string;

test.beforeAll(async () => {
  configDir = tempDir('st-e2e-config-');
  cli = await startCli(['--config', writeConfig(configDir, CONFIG)]);
  foreign = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>another app</title><p>another app on this host</p>');
  });
  await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  foreignOrigin = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  foreign?.close();
  const exit = await cli?.stop();
  rmSync(configDir, { recursive: true, force: true });
  expect(exit?.code).toBe(0);
});

test('1. typing echo hello at the idle prompt in the page', async ({ page }) => {
  const events = await subscribeEvents(cli, 'one');
  // The printed address opens the agent list; its form starts an agent and opens its page.
  await page.goto(`${cli.base}/?token=${cli.token}`);
  await expect(page).toHaveURL(`${cli.base}/`); // the token left the address bar
  await expect(page.getByRole('heading', { name: 'Agents' })).toBeVisible();
  await page.getByLabel('New agent').fill('not valid!');
  await page.getByRole('button', { name: 'Open terminal' }).click();
  await expect(page.getByRole('alert')).toContainText('agent ids match [A-Za-z0-9_-]{1,64}');
  await page.getByLabel('New agent').fill('one');
  await page.getByRole('button', { name: 'Open terminal' }).click();
  await expect(page).toHaveURL(`${cli.base}/agents/one`);
  const view = terminalView(page);
  await expect(view.role).toHaveText('Controller');
  await expect(view.element.locator('[part~="connection"]')).toHaveText(/^connected/);
  await typeInTerminal(view, 'echo hello');
  await expect(view.screen).toContainText('echo hellohello');
  const settled = await events.nextSettled();
  expect(settled).toMatchObject({ agent: 'one', origin: 'idle', waitReason: 'prompt', exitCode: 0 });
  const read = await agentApi(cli, 'one').read();
  expect(read.viewport).toMatch(/echo hello\nhello\n/);
  await page.goto(`${cli.base}/`);
  await expect(page.locator('#agents a', { hasText: 'one' })).toHaveAttribute('href', '/agents/one');
  events.close();
});

test('2. the model starts two prompts, the person answers 你好 and 🙂, the events stream and a read report it', async ({ page }) => {
  const api = agentApi(cli, 'two');
  const events = await subscribeEvents(cli, 'two');
  const view = await openAgentPage(page, link('two'));
  const send = await api.send(`read -p 'first? ' a; read -p 'second? ' b; echo "$a|$b"`);
  expect(send.waitReason).toBe('stdin_read');
  await expect(view.screen).toContainText('first?');
  await typeInTerminal(view, '你好');
  await expect(view.screen).toContainText('second?');
  await typeInTerminal(view, '🙂');
  const settled = await events.nextSettled();
  expect(settled).toMatchObject({ agent: 'two', origin: 'idle', waitReason: 'prompt', exitCode: 0 });
  expect(settled.message).toContain('shared_terminal_read');
  const read = await api.read();
  expect(read.viewport).toMatch(/^你好\|🙂$/m);
  await expect(view.screen).toContainText('你好|🙂');
  // The README's picture: the page down to the end of the terminal.
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const box = await view.element.boundingBox();
  const size = page.viewportSize()!;
  await page.screenshot({
    path: join(SCREENSHOT_DIR, 'agent-page.png'),
    clip: { x: 0, y: 0, width: size.width, height: Math.ceil((box?.y ?? 0) + (box?.height ?? size.height) + 16) },
  });
  events.close();
});

test('3. taking over a running model send returns human_handoff to the model', async ({ page }) => {
  // A program that waits for a line without blocking in read(): input-wait detection cannot see it, so
  // the model's send keeps running until the person takes over.
  writeFileSync(
    join(cli.dir, 'wait-line.py'),
    [
      'import os, time',
      'os.set_blocking(0, False)',
      'print("waiting for a line", flush=True)',
      'while True:',
      '    try:',
      '        line = os.read(0, 1024)',
      '        break',
      '    except BlockingIOError:',
      '        time.sleep(0.05)',
      'print("got", line.decode().strip(), flush=True)',
    ].join('\n'),
  );
  const api = agentApi(cli, 'three');
  const events = await subscribeEvents(cli, 'three');
  const view = await openAgentPage(page, link('three'));
  let settledSend: SendResult | undefined;
  const sending = api.send('python3 wait-line.py').then((result) => (settledSend = result));
  await expect(view.screen).toContainText('waiting for a line');
  await expect(view.takeOver).toBeEnabled();
  expect(settledSend).toBeUndefined();
  await view.takeOver.click();
  const handed = await sending;
  expect(handed.waitReason).toBe('human_handoff');
  await typeInTerminal(view, 'taken over');
  const settled = await events.nextSettled();
  expect(settled).toMatchObject({ agent: 'three', origin: 'takeover', waitReason: 'prompt', exitCode: 0 });
  expect((await api.read()).viewport).toMatch(/^got taken over$/m);
  events.close();
});

test('4. Interrupt input stops the foreground program and the prompt returns', async ({ page }) => {
  const api = agentApi(cli, 'four');
  const view = await openAgentPage(page, link('four'));
  await typeInTerminal(view, 'sleep 600; echo not-reached');
  await expect(view.interrupt).toBeEnabled();
  expect((await api.summary()).holder).toBe('human');
  await view.interrupt.click();
  await expect.poll(async () => (await api.summary()).holder).toBeNull();
  const read = await api.read();
  expect(read.viewport).not.toMatch(/^not-reached$/m);
  await typeInTerminal(view, 'echo "after=$?"');
  await expect(view.screen).toContainText('after=130');
});

async function touchPage(browser: Browser, agent: string) {
  const context = await browser.newContext({ hasTouch: true, isMobile: true, viewport: { width: 820, height: 1000 } });
  const page = await context.newPage();
  return { context, view: await openAgentPage(page, link(agent), 'Read only') };
}

test('5. reload restores the screen; a second tab is read only; after grace Reconnect takes control; touch is read only', async ({
  browser,
}) => {
  const api = agentApi(cli, 'five');
  const context = await browser.newContext();
  const first = await context.newPage();
  const view = await openAgentPage(first, link('five'));
  await typeInTerminal(view, 'echo "restored=$((3*5))"');
  await expect(view.screen).toContainText('restored=15');

  const second = await context.newPage();
  let other = await openAgentPage(second, `${cli.base}/agents/five`, 'Read only');
  await expect(other.status).toContainText('another view controls this terminal');
  await expect(other.screen).toContainText('restored=15');
  await typeInTerminal(other, 'echo typed-in-read-only');
  await typeInTerminal(view, 'echo controller-still-types');
  await expect(other.screen).toContainText('controller-still-types');
  expect((await api.read()).viewport).not.toContain('typed-in-read-only');

  await first.close();
  // The server tells read-only views when the controller's grace has passed.
  await expect(other.notices.locator('[data-code="controller-available"]')).toBeVisible({ timeout: CONFIG.disconnectGraceMs + 10_000 });
  await chooseSetting(other, 'Reconnect');
  await expect(other.role).toHaveText('Controller');
  await typeInTerminal(other, 'echo second-tab-controls');
  await expect(other.screen).toContainText('second-tab-controlssecond-tab-controls');

  await second.reload();
  other = terminalView(second);
  await expect(other.screen).toContainText('restored=15');
  // The reloaded page closed with 1001 holding no input: the server freed the seat, so it is Controller again.
  await expect(other.role).toHaveText('Controller');
  await expect(other.screen).toContainText('second-tab-controlssecond-tab-controls');

  const touch = await touchPage(browser, 'five');
  expect(await touch.view.page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
  await expect(touch.view.status).toContainText('touch devices view read only');
  await expect(touch.view.screen).toContainText('second-tab-controls');
  await expect(touch.view.takeOver).toBeDisabled();
  await touch.context.close();
  await context.close();
});

test('6. Reset Terminal asks first, then the next generation starts without the old shell state', async ({ page }) => {
  const api = agentApi(cli, 'six');
  const view = await openAgentPage(page, link('six'));
  await typeInTerminal(view, 'export MARK=before-reset; echo "mark=[$MARK]"');
  await expect(view.screen).toContainText('mark=[before-reset]');
  const confirm = view.element.getByRole('alertdialog');
  await chooseSetting(view, 'Reset Terminal');
  await expect(confirm).toContainText('Reset Terminal?');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await expect(confirm).toBeHidden();
  expect((await api.summary()).generation).toBe(1);

  await chooseSetting(view, 'Reset Terminal');
  await confirm.getByRole('button', { name: 'Reset' }).click();
  await expect.poll(async () => (await api.summary()).generation).toBe(2);
  await expect(view.role).toHaveText('Controller');
  await expect(view.screen).not.toContainText('mark=[before-reset]');
  await typeInTerminal(view, 'echo "mark=[$MARK] gen2"');
  await expect(view.screen).toContainText('mark=[] gen2');
  expect((await api.read()).generation).toBe(2);
});

test('7. the input limit shows a notice; exit keeps the final screen until Reset', async ({ page }) => {
  const api = agentApi(cli, 'seven');
  const view = await openAgentPage(page, link('seven'));
  await typeInTerminal(view, 'x'.repeat(CONFIG.maxInputBytes + 8), false);
  await expect(view.notices.locator('[data-code="input-limit"]')).toContainText('Input limit reached');
  await view.interrupt.click();
  await expect.poll(async () => (await api.summary()).holder).toBeNull();

  await typeInTerminal(view, 'echo final-words');
  await expect(view.screen).toContainText('final-wordsfinal-words');
  await typeInTerminal(view, 'exit');
  await expect(view.status).toContainText('exited');
  await expect.poll(async () => (await api.summary()).status.kind).toBe('exited');
  // The final screen stays on the server: a new tab restores it from the snapshot.
  const late = await openAgentPage(await page.context().newPage(), `${cli.base}/agents/seven`, 'Read only');
  await expect(late.screen).toContainText('final-words');
  await late.page.close();
  const read: ReadResult = await api.read();
  expect(read.status.kind).toBe('exited');
  expect(read.viewport).toMatch(/^final-words$/m);

  await chooseSetting(view, 'Reset Terminal');
  await view.element.getByRole('alertdialog').getByRole('button', { name: 'Reset' }).click();
  await expect.poll(async () => (await api.summary()).generation).toBe(2);
  await expect(view.status).not.toContainText('exited');
  expect((await api.read()).viewport).not.toContain('final-words');
});

test('8. without the token everything is refused; a cross-origin request with the cookie is refused', async ({ browser }) => {
  const anonymous = await browser.newContext();
  const page = await anonymous.newPage();
  for (const path of ['/', '/agents/eight', '/assets/agent.js', '/assets/element/index.js', '/api/agents', '/api/agents/eight/events']) {
    const response = await page.goto(`${cli.base}${path}`);
    expect(response?.status(), path).toBe(401);
    await expect(page.locator('shared-terminal')).toHaveCount(0);
  }
  const apiCall = await anonymous.request.post(`${cli.base}/api/agents/eight/tools/shared_terminal_send`, {
    data: { text: 'touch anonymous-marker' },
  });
  expect(apiCall.status()).toBe(401);

  // A valid one-time WebSocket token is not enough without the cookie.
  const ticket = (await (
    await fetch(`${cli.base}/api/agents/eight/terminal-token`, {
      method: 'POST',
      headers: { ...cli.auth, 'Content-Type': 'application/json' },
      body: '{}',
    })
  ).json()) as { token: string };
  const origin = { Host: `127.0.0.1:${cli.port}`, Origin: cli.base, 'Sec-WebSocket-Protocol': `shared-terminal.v1, token.${ticket.token}` };
  expect(await upgradeStatus(cli.port, origin)).toBe(401);
  await page.goto(foreignOrigin);
  // A page of another origin is refused in a close frame it can read (nothing else is sent to it).
  const refusal = await page.evaluate(async (url) => {
    const socket = new WebSocket(url, ['shared-terminal.v1', `token.${'A'.repeat(43)}`]);
    let messages = 0;
    socket.onmessage = () => (messages += 1);
    return new Promise<{ code: number; reason: string; messages: number }>((resolve) => {
      socket.onclose = (event) => resolve({ code: event.code, reason: event.reason, messages });
    });
  }, `ws://127.0.0.1:${cli.port}/terminal`);
  expect(refusal).toEqual({
    code: 4005,
    reason: `origin ${foreignOrigin} is not allowed: start the server with --allow-origin ${foreignOrigin}`,
    messages: 0,
  });
  await anonymous.close();

  // Signed in (the cookie), then a page of another origin on the same host calls the API.
  const signedIn = await browser.newContext();
  const own = await signedIn.newPage();
  await openAgentPage(own, link('eight'));
  const crossPage = await signedIn.newPage();
  await crossPage.goto(foreignOrigin);
  await crossPage.evaluate(async (url) => {
    await fetch(url, {
      method: 'POST',
      mode: 'no-cors',
      credentials: 'include',
      headers: { 'Content-Type': 'text/plain' },
      body: '{"text":"touch csrf-marker"}',
    }).catch(() => undefined);
  }, `${cli.base}/api/agents/csrf/tools/shared_terminal_send`);
  const crossWithCookie = await signedIn.request.post(`${cli.base}/api/agents/csrf/tools/shared_terminal_send`, {
    headers: { Origin: foreignOrigin },
    data: { text: 'touch csrf-marker' },
  });
  expect(crossWithCookie.status()).toBe(403);
  expect((await crossWithCookie.json()).error.code).toBe('forbidden-origin');
  const sameWithCookie = await signedIn.request.get(`${cli.base}/api/agents`, { headers: { Origin: cli.base } });
  expect(sameWithCookie.status()).toBe(200);
  const agents = ((await sameWithCookie.json()) as { agents: Array<{ id: string }> }).agents.map((a) => a.id);
  expect(agents).not.toContain('csrf');
  expect(existsSync(join(cli.dir, 'csrf-marker'))).toBe(false);
  expect(existsSync(join(cli.dir, 'anonymous-marker'))).toBe(false);
  const foreignHost = await rawRequest(cli.port, { path: '/api/agents', headers: { Host: `rebind.example:${cli.port}`, ...cli.auth } });
  expect(foreignHost.status).toBe(403);
  await signedIn.close();
});

test('9. a real MCP client lists the four tools, runs send and read, and hears the human settle', async ({ page }) => {
  const dir = tempDir('st-e2e-mcp-');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent', 'mcp-e2e', '--cwd', dir],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'e2e-mcp-client', version: '1.0.0' });
  const notices: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    notices.push(notification.params.data);
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'shared_terminal_send',
      'shared_terminal_read',
      'shared_terminal_signal',
      'shared_terminal_reset',
    ]);
    const sent = await client.callTool({ name: 'shared_terminal_send', arguments: { text: 'echo "mcp-says-$((6*7))"' } });
    const sendResult = JSON.parse((sent.content as Array<{ text: string }>).at(-1)!.text) as SendResult;
    expect(sendResult.output).toMatch(/^mcp-says-42$/m);
    const read = await client.callTool({ name: 'shared_terminal_read', arguments: {} });
    expect(JSON.parse((read.content as Array<{ text: string }>).at(-1)!.text).viewport).toMatch(/^mcp-says-42$/m);

    // The person opens the address the MCP server printed on stderr and types into the same terminal.
    const address = await waitFor(
      () => /^shared-terminal: (http:\/\/127\.0\.0\.1:\d+\/agents\/mcp-e2e\?token=\S+)$/m.exec(stderr)?.[1],
      'the page address on stderr',
    );
    const view = await openAgentPage(page, address);
    await expect(view.screen).toContainText('mcp-says-42');
    await typeInTerminal(view, 'echo person-was-here');
    await expect.poll(() => notices.length).toBe(1);
    expect(notices[0]).toMatchObject({ event: 'human-settled', agent: 'mcp-e2e', origin: 'idle', waitReason: 'prompt' });
    const next = await client.callTool({ name: 'shared_terminal_read', arguments: {} });
    const items = next.content as Array<{ text: string }>;
    expect(items[0]!.text).toMatch(/^Notice: The human finished an interaction/);
    expect(JSON.parse(items.at(-1)!.text).viewport).toMatch(/^person-was-here$/m);
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('10. a flood the page cannot keep up with is drawn on the flood canvas; the rows come back with the final screen', async ({
  page,
}) => {
  const view = await openAgentPage(page, link('ten'));
  // Note every time the flood canvas is shown (it exists only once the first catch-up came).
  await page.evaluate(() => {
    const root = document.querySelector('shared-terminal')!.shadowRoot!;
    const seen = { canvasShown: 0 };
    (window as unknown as { __flood: typeof seen }).__flood = seen;
    new MutationObserver(() => {
      const canvas = root.querySelector<HTMLCanvasElement>('.renderer:not(.staged) .flood-screen');
      if (canvas && !canvas.hidden) seen.canvasShown += 1;
    }).observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['hidden'] });
  });
  // About 11 MB as fast as `seq` writes it. The page must be the slower side: a loaded machine slows the
  // server's parse as much as the page's, and a page that keeps up never needs the canvas. So until the
  // canvas shows, the page runs on a CPU throttled the way DevTools slows a page for a slow device.
  await typeInTerminal(
    view,
    "seq -f 'flood line %.0f ------------------------------------------------------------------------------------' 1 120000; echo flood-$((6*7))",
  );
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 8 });
  const canvasShown = () => page.evaluate(() => (window as unknown as { __flood: { canvasShown: number } }).__flood.canvasShown);
  await expect.poll(canvasShown, { timeout: 30_000 }).toBeGreaterThan(0);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
  await cdp.detach();
  await expect(view.screen).toContainText('flood-42', { timeout: 30_000 });
  // The rows hold the final screen and the canvas is gone (or its renderer was replaced by the full history).
  await expect(view.element.locator('.renderer:not(.staged) .flood-screen:not([hidden])')).toHaveCount(0);
  await expect(view.screen).toContainText('flood line 120000');
  await typeInTerminal(view, 'echo after-the-flood');
  await expect(view.screen).toContainText('echo after-the-floodafter-the-flood');
});
