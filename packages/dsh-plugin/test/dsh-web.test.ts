/**
 * End to end in a real DSH Web 0.1.0-rc.8: the plugin installed from its packed tarball with
 * `dsh plugin --profile web add`, a keyless scripted model driving the real Agent loop, real PTYs through
 * DSH's subprocess provider (under the default workspace-write sandbox), and system Chromium.
 *
 * The five points of issue 7:
 * 1. Open terminal: status starts with Controller; `echo hello` at the idle prompt runs.
 * 2. The model starts a two-prompt program; the person answers both prompts in the panel (UTF-8); the
 *    Agent gets exactly one notice and its next call, shared_terminal_read, returns the answers. Both
 *    paths: the send already returned stdin_read, and the send taken over while still running.
 * 3. read, signal and reset return bounded results with the documented fields.
 * 4. The session logs hold no raw terminal output beyond the bounded tool results.
 * 5. Disposing the Agent, and unloading the plugin, leave no process of the terminal's tree alive.
 *
 * And issue 17 (DSH-native): one toggle (the element's own); one notice for a burst of idle commands; a
 * notice that names an answer to a waiting program; DSH's terminal card for send and a compact card for
 * read (by their DOM); every result within DSH's inline limit with the largest output the config allows,
 * parseable and newest text kept; the cursor's line in view after a reset.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  addPlugin,
  createHome,
  packPlugin,
  removeRoot,
  startDshWeb,
  type DshWeb,
  type ModelCall,
  type ScriptStep,
} from './helpers/dsh-web.ts';
import { dshInlineLimitOfInstall, ensureDshHost } from './helpers/host.ts';
import {
  chooseWorkspace,
  dock,
  expandTerminal,
  launchChromium,
  openTerminal,
  screenText,
  startConversation,
  statusText,
  terminal,
  toggle,
  typeInTerminal,
  waitForScreen,
} from './helpers/page.ts';
import { readSessionLogs } from './helpers/session-log.ts';
import { descendants, processesMatching, sleep, waitFor, waitForEnd } from './helpers/util.ts';

/** The largest maxToolOutputBytes the config allows (it may not exceed scrollbackMaxBytes, 4 MiB by default). */
const MAX_TOOL_OUTPUT_BYTES = 4 * 1024 * 1024;
/** DSH's spill-policy inline limit as the installed dsh-base sets it: the cap every result must stay under. */
const INLINE_LIMIT = dshInlineLimitOfInstall();
const NONCE = `n${process.pid}x${Date.now().toString(36)}`;
/** Sleep durations unique to this run (so that no other process on the machine matches them). */
const SLEEP = (n: number) => `${1000 + (process.pid % 5000)}.${n}`;
const SANDBOX_PROBE = join(homedir(), `.dsh-it-sandbox-probe-${NONCE}`);

/**
 * The two-prompt program. The second form never sleeps in a read: it sleeps, and looks with `read -t 0`
 * (a poll that returns at once) whether a line came, so no inspector can see it wait and the model's send
 * keeps running until the person takes it over. It prints its own prompts: under Landlock (ABI 5) ioctl on
 * a terminal opened inside the sandbox is refused, so `read -p` might print none.
 */
const TWO_PROMPTS_STDIN = `read -p 'first? ' a; read -p 'second? ' b; echo "answers: $a|$b"`;
const UNSEEN_LINE = (name: string) => `until read -t 0; do sleep 0.05; done; read ${name}`;
const TWO_PROMPTS_UNSEEN = `( printf 'first? '; ${UNSEEN_LINE('a')}; printf 'second? '; ${UNSEEN_LINE('b')}; echo "answers: $a|$b" )`;

const SCENARIOS: Record<string, ScriptStep[]> = {
  hello: [{ text: 'Hi.' }],
  'two prompts answered at the terminal': [
    { tool: 'shared_terminal_send', args: { text: TWO_PROMPTS_STDIN } },
    { text: 'The program asks two questions; please answer them in the terminal.' },
    { tool: 'shared_terminal_read', args: {} },
    { text: 'Thanks, I have your answers.' },
  ],
  'two prompts taken over': [
    { tool: 'shared_terminal_send', args: { text: TWO_PROMPTS_UNSEEN } },
    { text: 'You have the terminal now.' },
    { tool: 'shared_terminal_read', args: {} },
    { text: 'Thanks, I have your answers.' },
  ],
  'tool results': [
    { tool: 'shared_terminal_send', args: { text: 'cat' } },
    { tool: 'shared_terminal_signal', args: { signal: 'SIGINT' } },
    { tool: 'shared_terminal_send', args: { text: 'seq 1 300000' } },
    { tool: 'shared_terminal_read', args: { offset: 0, count: 5 } },
    { tool: 'shared_terminal_send', args: { text: `echo probe > ${SANDBOX_PROBE}; echo "probe-status=$?"` } },
    { tool: 'shared_terminal_send', args: { text: 'export KEEP=before-reset' } },
    { tool: 'shared_terminal_reset', args: {} },
    { tool: 'shared_terminal_send', args: { text: 'echo "keep=[${KEEP-}]"' } },
    { tool: 'shared_terminal_send', args: { text: `sleep ${SLEEP(1)} & bash -c 'setsid sleep ${SLEEP(2)} & wait' & true` } },
    { text: 'done' },
  ],
  'background for unload': [
    { tool: 'shared_terminal_send', args: { text: `sleep ${SLEEP(3)} & bash -c 'setsid sleep ${SLEEP(4)} & wait' & true` } },
    { text: 'done' },
  ],
};

const BASE_FIELDS = [
  'generation',
  'sequence',
  'rows',
  'cols',
  'viewport',
  'cursor',
  'status',
  'queueStatus',
  'holder',
  'pendingCount',
  'truncated',
];

function sessionCalls(web: DshWeb, scenario: string): ModelCall[] {
  return web.calls().filter((call) => call.scenario === scenario);
}

/** The tool results (parsed JSON) the model saw in one scenario, in order. */
function toolResults(web: DshWeb, scenario: string): { text: string; value: Record<string, unknown> | undefined; isError: boolean }[] {
  return sessionCalls(web, scenario).flatMap((call) =>
    call.fresh
      .filter((message) => message.toolResult)
      .map((message) => {
        let value: Record<string, unknown> | undefined;
        try {
          value = JSON.parse(message.text) as Record<string, unknown>;
        } catch {
          value = undefined;
        }
        return { text: message.text, value, isError: message.toolResult!.isError };
      }),
  );
}

function notices(web: DshWeb, scenario: string) {
  return sessionCalls(web, scenario).flatMap((call) =>
    call.fresh.filter((message) => message.source.plugin === 'dsh-interactive-terminal'),
  );
}

/** The shells this DSH process runs for the plugin (children of DSH running the configured bash). */
function pluginShells(web: DshWeb): number[] {
  return descendants(web.process.pid!).filter((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/exe`).endsWith('/bash');
    } catch {
      return false;
    }
  });
}

function shellIn(web: DshWeb, cwd: string): number | undefined {
  return pluginShells(web).find((pid) => {
    try {
      return readlinkSync(`/proc/${pid}/cwd`) === cwd;
    } catch {
      return false;
    }
  });
}

describe('dsh-interactive-terminal in DSH Web 0.1.0-rc.8 (installed from the packed tarball)', () => {
  let web: DshWeb;
  let browser: Browser;
  let page: Page;
  let root: string;

  before(async () => {
    ensureDshHost();
    // The UI language follows each page's browser: English here, Chinese on the touch page below.
    const made = createHome('dsh-it-e2e', { locale: 'browser' });
    root = made.root;
    packPlugin(root);
    const added = addPlugin(made.home, './dsh-interactive-terminal-0.1.0.tgz', root);
    assert.match(added, /dsh-interactive-terminal/);
    // A user row of one key: the rest must come from the plugin's defaults.
    writeFileSync(
      join(made.home, 'profiles', 'web', 'cordis.patch.yml'),
      `- id: dsh-interactive-terminal\n  config:\n    maxToolOutputBytes: ${MAX_TOOL_OUTPUT_BYTES}\n`,
    );
    web = await startDshWeb({ ...made, scenarios: SCENARIOS });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US', colorScheme: 'light' });
    await page.goto(web.url);
    await chooseWorkspace(page, web.workspace);
  });

  after(async () => {
    await browser?.close().catch(() => undefined);
    await web?.stop();
    if (existsSync(SANDBOX_PROBE)) removeRoot(SANDBOX_PROBE);
    if (root) removeRoot(root);
  });

  it('1. one toggle opens the terminal: the status starts with Controller; a burst of idle commands gives one notice', async () => {
    await startConversation(page, 'hello', { newSession: false });
    await waitFor(() => sessionCalls(web, 'hello').length >= 1, 'the model to answer the first prompt');
    // One control for the panel: the element's own toggle, collapsed and not connected until expanded.
    await toggle(page).waitFor({ state: 'visible' });
    assert.equal(
      await dock(page)
        .getByRole('button', { name: /open terminal|hide terminal/i })
        .count(),
      0,
      'no second toggle above the panel',
    );
    assert.equal(await toggle(page).getAttribute('aria-expanded'), 'false');
    assert.doesNotMatch(await statusText(page), /\| connected\b/, 'no shell before the first expansion');
    await openTerminal(page);
    assert.match(await statusText(page), /^Controller/);
    await waitForScreen(page, /[#$]$/m, 'the idle prompt');
    await typeInTerminal(page, `echo hello-${NONCE}`);
    const screen = await waitForScreen(page, new RegExp(`^hello-${NONCE}$`, 'm'), 'the echo output');
    assert.match(screen, new RegExp(`echo hello-${NONCE}`));
    // Two more command lines within the quiet period (default 3 s): still one notice for all three. Each is
    // typed once the prompt is back (and the person's lease with it), as a person would.
    await waitForScreen(page, /^hello-\S+\n\S*[#$]$/m, 'the prompt after the echo');
    await sleep(300);
    await typeInTerminal(page, 'true');
    await waitForScreen(page, /[#$] true\n\S*[#$]$/m, 'the prompt after true');
    await sleep(300);
    await typeInTerminal(page, 'false');
    await waitForScreen(page, /[#$] false\n\S*[#$]$/m, 'the prompt after false');
    await waitFor(() => notices(web, 'hello').length >= 1, 'the notice of the idle burst');
    await sleep(4000);
    const told = notices(web, 'hello');
    assert.equal(told.length, 1, `one notice for the burst: ${told.map((n) => n.text).join(' / ')}`);
    assert.match(told[0]!.text, /ran 3 command lines at the terminal's idle prompt \(exit statuses in order: 0, 0, 1\)/);
  });

  it("a reset shows the new shell's cursor line even after the panel was scrolled down to a flood's prompt", async () => {
    await typeInTerminal(page, 'seq 1 2000');
    await waitForScreen(page, /^2000\n\S*[#$]$/m, 'the prompt after the flood');
    const element = terminal(page);
    const scrolled = await element.evaluate((el) => {
      const viewport = el.shadowRoot!.querySelector<HTMLElement>('.viewport')!;
      viewport.scrollTop = viewport.scrollHeight;
      return viewport.scrollTop;
    });
    assert.ok(scrolled > 0, `the panel scrolls (${scrolled} px)`);
    await element.locator('[part~="settings-button"]').click();
    await element.getByRole('menuitem', { name: 'Reset Terminal' }).click();
    await element.locator('.confirm-reset').click();
    await waitFor(async () => /^\S*[#$]$/.test((await screenText(page)).split('\n')[0] ?? ''), "the new shell's prompt on the first row");
    await sleep(300);
    const geometry = await element.evaluate((el) => {
      const root = el.shadowRoot!;
      const viewport = root.querySelector<HTMLElement>('.viewport')!.getBoundingClientRect();
      const screen = root.querySelector<HTMLElement>('.renderer:not(.staged) .xterm-screen')!.getBoundingClientRect();
      const term = (el as HTMLElement & { renderer: { rows: number; buffer: { active: { cursorY: number } } } }).renderer;
      const rowHeight = screen.height / term.rows;
      const cursorTop = screen.top + term.buffer.active.cursorY * rowHeight;
      return {
        viewportTop: viewport.top,
        viewportBottom: viewport.bottom,
        cursorTop,
        cursorBottom: cursorTop + rowHeight,
        cursorY: term.buffer.active.cursorY,
      };
    });
    assert.ok(
      geometry.cursorTop >= geometry.viewportTop - 1 && geometry.cursorBottom <= geometry.viewportBottom + 1,
      `the cursor's line is in view: ${JSON.stringify(geometry)}`,
    );
  });

  /** The person answers `first?` (already on screen) and `second?`; the model reads after exactly one notice. */
  async function answerBothPromptsThenRead(scenario: string): Promise<void> {
    await typeInTerminal(page, '你好');
    await waitForScreen(page, /second\?$/m, 'the second prompt');
    await typeInTerminal(page, '🙂');
    await waitForScreen(page, /^answers: 你好\|🙂$/m, 'the answers');
    const [, read] = await waitFor(() => {
      const results = toolResults(web, scenario);
      return results.length >= 2 ? results : undefined;
    }, 'the model to read after the notice');
    // The answers are on the screen: the read's viewport (its history page holds what scrolled off).
    assert.match(`${String(read!.value?.['text'])}\n${String(read!.value?.['viewport'])}`, /answers: 你好\|🙂/);
    await sleep(500);
    assert.equal(notices(web, scenario).length, 1, 'exactly one notice');
  }

  it("2a. the model's send returned stdin_read; the person answers both prompts; one notice; the next read has the answers", async () => {
    const scenario = 'two prompts answered at the terminal';
    await startConversation(page, scenario, { newSession: true });
    await openTerminal(page);
    await waitFor(() => toolResults(web, scenario).length >= 1, 'the send to return');
    const [send] = toolResults(web, scenario);
    assert.equal(send!.value?.['waitReason'], 'stdin_read', send!.text);
    await waitForScreen(page, /first\?$/m, 'the first prompt');
    await answerBothPromptsThenRead(scenario);
    const calls = sessionCalls(web, scenario);
    const noticeCall = calls.find((call) => call.fresh.some((message) => message.source.plugin === 'dsh-interactive-terminal'))!;
    assert.equal(
      SCENARIOS[scenario]![noticeCall.step] && 'tool' in SCENARIOS[scenario]![noticeCall.step]!
        ? (SCENARIOS[scenario]![noticeCall.step] as { tool: string }).tool
        : '',
      'shared_terminal_read',
      'the call after the notice is the read',
    );
    // The notice names what happened: the person answered the waiting program, not "typed at the idle prompt".
    const [notice] = notices(web, scenario);
    assert.match(notice!.text, /answered a program that was waiting for input/);
    assert.doesNotMatch(notice!.text, /idle prompt/);
  });

  it('DSH draws the send as its terminal card and the read as a compact card, never the raw result', async () => {
    const scenario = 'two prompts answered at the terminal';
    const sendRow = page.locator('[data-tool="shared_terminal_send"]').first();
    await sendRow.waitFor({ state: 'visible' });
    await sendRow.getByRole('button').first().click();
    const copy = sendRow.getByRole('button', { name: 'Copy' });
    await copy.waitFor({ state: 'visible', timeout: 10_000 });
    const sendText = (await sendRow.textContent()) ?? '';
    assert.ok(sendText.includes("read -p 'first? '"), `the command: ${sendText.slice(0, 300)}`);
    assert.match(sendText, /first\?/, 'the output');
    assert.match(sendText, /waiting for input/, 'why it returned');
    assert.doesNotMatch(sendText, /"generation"|"queueStatus"/, 'no raw result object');
    const readRow = page.locator('[data-tool="shared_terminal_read"]').first();
    await readRow.waitFor({ state: 'visible' });
    assert.match((await readRow.textContent()) ?? '', /Read the shared terminal's screen/, "the compact card's summary");
    await readRow.getByRole('button').first().click();
    await readRow.getByRole('button', { name: 'Copy' }).waitFor({ state: 'visible', timeout: 10_000 });
    await waitFor(async () => /answers: 你好\|🙂/.test((await readRow.textContent()) ?? ''), 'the read card shows the screen');
    assert.doesNotMatch((await readRow.textContent()) ?? '', /"generation"|"queueStatus"/);
    assert.ok(notices(web, scenario).length === 1);
  });

  it("2b. the person takes over the model's running send and answers; the send returns human_handoff; one notice; the read has the answers", async () => {
    const scenario = 'two prompts taken over';
    await startConversation(page, scenario, { newSession: true });
    await openTerminal(page);
    await waitForScreen(page, /first\?$/m, 'the first prompt');
    assert.equal(
      toolResults(web, scenario).length,
      0,
      'the send is still running (the reader never sleeps in a read: no inspector sees it)',
    );
    const takeover = dock(page).getByRole('button', { name: 'Take over input' });
    await waitFor(() => takeover.isEnabled(), 'Take over input to be offered');
    await takeover.click();
    const [send] = await waitFor(() => {
      const results = toolResults(web, scenario);
      return results.length >= 1 ? results : undefined;
    }, 'the send to return after the takeover');
    assert.equal(send!.value?.['waitReason'], 'human_handoff', send!.text);
    await answerBothPromptsThenRead(scenario);
    assert.match(notices(web, scenario)[0]!.text, /took over/);
  });

  it("a touch device gets a read-only view; the panel follows DSH's language and dark theme", async () => {
    // A tablet: touch input (pointer: coarse), Chinese browser, dark colour scheme.
    const phone = await browser.newContext({
      viewport: { width: 1024, height: 900 },
      locale: 'zh-CN',
      colorScheme: 'dark',
      hasTouch: true,
      isMobile: true,
    });
    try {
      const touch = await phone.newPage();
      await touch.goto(web.url);
      // DSH Web keeps the session out of the URL: pick it in the sidebar.
      await touch.getByText('two prompts taken over', { exact: true }).first().click();
      await expandTerminal(touch);
      const element = terminal(touch);
      // The element's own words in Chinese: "Read only (触屏设备只读) | 已连接 | …".
      await waitFor(
        async () => /^Read only\b.*已连接/.test(await statusText(touch).catch(() => '')),
        'the touch view to connect read only',
      );
      assert.equal(await element.getAttribute('lang'), 'zh-CN');
      assert.equal(await element.getAttribute('theme'), 'dark');
      assert.equal(await element.getAttribute('readonly'), '');
      await waitForScreen(touch, /^answers: 你好\|🙂$/m, 'the same screen as the Controller');
      // The desktop view keeps control.
      assert.match(await statusText(page), /^Controller/);
      assert.equal(await terminal(page).getAttribute('theme'), 'light');
      assert.equal(await terminal(page).getAttribute('lang'), 'en');
    } finally {
      await phone.close();
    }
  });

  it('3. read, signal and reset return bounded results with the documented fields (and the shell is confined)', async () => {
    const scenario = 'tool results';
    const cwd = join(web.workspace, 'lab-tools');
    mkdirSync(cwd, { recursive: true });
    await web.lab('create', { sessionId: 'lab-tools', cwd, prompt: scenario });
    const results = await waitFor(
      () => {
        const found = toolResults(web, scenario);
        return found.length >= 9 ? found : undefined;
      },
      'all nine tool calls',
      60_000,
    );
    for (const result of results) {
      assert.equal(result.isError, false, result.text);
      // Whole JSON within DSH's inline limit, so DSH's spill policy never cuts it (the config allows 4 MiB).
      assert.ok(result.value, `the model got JSON that parses: ${result.text.slice(0, 200)} … ${result.text.slice(-200)}`);
      assert.ok(
        Buffer.byteLength(result.text) <= INLINE_LIMIT,
        `within DSH's inline limit ${INLINE_LIMIT}: ${Buffer.byteLength(result.text)} bytes`,
      );
      for (const field of BASE_FIELDS) assert.ok(result.value && field in result.value, `${field} in ${result.text.slice(0, 200)}`);
      assert.equal(result.value!['rows'], 40, 'default rows (the user row set only maxToolOutputBytes)');
      assert.equal(result.value!['cols'], 160);
    }
    const [cat, signal, seq, read, probe, , reset, afterReset] = results.map((result) => result.value!);
    assert.equal(cat!['waitReason'], 'stdin_read');
    const waitGroup = (cat!['inputWait'] as { processGroupId: number }).processGroupId;
    assert.equal(signal!['processGroupId'], waitGroup);
    assert.equal(signal!['waitReason'], 'prompt');
    for (const field of ['output', 'queueTimeMs', 'waitReason']) assert.ok(field in signal!, field);
    assert.equal(seq!['truncated'], true);
    assert.match(String(seq!['output']), /\n300000$/, 'the newest output is kept');
    assert.ok(Buffer.byteLength(JSON.stringify(seq)) > INLINE_LIMIT / 2, "the cap is DSH's limit, not a much smaller one");
    assert.ok(Number(read!['lineEnd']) - Number(read!['lineBegin']) <= 5);
    for (const field of ['text', 'totalLines', 'lineBegin', 'lineEnd']) assert.ok(field in read!, field);
    assert.match(String(probe!['output']), /probe-status=1/, 'writing outside the workspace is refused by the sandbox');
    assert.ok(!existsSync(SANDBOX_PROBE));
    assert.equal(reset!['generation'], 2);
    for (const field of ['queueTimeMs', 'waitReason']) assert.ok(field in reset!, field);
    assert.equal(afterReset!['generation'], 2);
    assert.match(String(afterReset!['output']), /keep=\[\]/, 'reset destroyed the shell state');
  });

  it('refuses a sandbox mode change while the terminal is live, and allows the same mode', async () => {
    const refused = await web.lab<{ changed: boolean; error?: string }>('sandbox', { sessionId: 'lab-tools', mode: 'danger-full-access' });
    assert.equal(refused.changed, false);
    assert.match(refused.error ?? '', /cannot change sandbox mode/);
    const same = await web.lab<{ changed: boolean }>('sandbox', { sessionId: 'lab-tools', mode: 'workspace-write' });
    assert.equal(same.changed, true);
  });

  it('4. the session logs hold no raw terminal output beyond the bounded tool results', async () => {
    const logs = readSessionLogs(web.home);
    assert.ok(logs.length >= 4, `session logs: ${logs.map((log) => log.sessionId).join(', ')}`);
    for (const log of logs) {
      assert.ok(!log.raw.includes(`hello-${NONCE}`), `${log.sessionId}: the person's keystrokes and their output never enter a log`);
      for (const event of log.events) {
        const text = JSON.stringify(event);
        if (event.type === 'tool/result') {
          const content = JSON.stringify((event.data as { message?: { content?: unknown } }).message?.content ?? '');
          assert.ok(Buffer.byteLength(content) <= INLINE_LIMIT * 2 + 512, `${log.sessionId}: tool result bounded`);
          continue;
        }
        if (event.type === 'tool/call' || event.type.startsWith('assistant/')) continue;
        assert.ok(!text.includes('answers: '), `${log.sessionId}: ${event.type} holds terminal output`);
        assert.ok(!text.includes('你好'), `${log.sessionId}: ${event.type} holds the person's input`);
      }
      for (const event of log.events.filter((event) => event.type === 'user/message')) {
        const source = (event.data as { source?: { plugin?: string } }).source;
        if (source?.plugin === 'dsh-interactive-terminal') assert.doesNotMatch(JSON.stringify(event), /root@|first\?|second\?/);
      }
    }
  });

  it("5a. disposing the Agent ends its terminal's whole process tree", async () => {
    const shell = shellIn(web, join(web.workspace, 'lab-tools'));
    assert.ok(shell, "the lab Agent's shell is running");
    // The send that started them returned at the prompt, before the background `bash -c` had necessarily
    // exec'd its sleep (CI once looked too early and found one of the two).
    await waitFor(
      () => processesMatching(`sleep ${SLEEP(1)}`).length === 1 && processesMatching(`sleep ${SLEEP(2)}`).length === 1,
      'both background sleeps',
    );
    const tree = [shell, ...processesMatching(`sleep ${SLEEP(1)}`), ...processesMatching(`sleep ${SLEEP(2)}`)];
    assert.equal(tree.length, 3, `shell and both background sleeps: ${tree}`);
    await web.lab('dispose', { sessionId: 'lab-tools' });
    await waitForEnd(tree, 'every process of the tree to end', 10_000, () => `; DSH printed last: ${web.output().slice(-3000)}`);
    const status = await web.lab<{ live: boolean }>('status', { sessionId: 'lab-tools' });
    assert.equal(status.live, false);
  });

  it("5b. unloading the plugin ends every terminal, closes the panel's socket and removes its routes", async () => {
    const cwd = join(web.workspace, 'lab-unload');
    mkdirSync(cwd, { recursive: true });
    await web.lab('create', { sessionId: 'lab-unload', cwd, prompt: 'background for unload' });
    await waitFor(
      () => processesMatching(`sleep ${SLEEP(4)}`).length === 1 && processesMatching(`sleep ${SLEEP(3)}`).length === 1,
      'the background sleeps',
    );
    const shells = pluginShells(web);
    assert.ok(shells.length >= 3, `the browser sessions' and the lab's shells: ${shells}`);
    const tree = [...shells, ...processesMatching(`sleep ${SLEEP(3)}`), ...processesMatching(`sleep ${SLEEP(4)}`)];
    assert.match(await statusText(page), /connected/);

    // DSH watches this file and reloads the plugin's row: the plugin unloads.
    web.writeUserPatch(`- id: dsh-interactive-terminal\n  disabled: true\n`);
    // Should a process outlive the unload, the failure says which, and what DSH printed and logged.
    await waitForEnd(tree, 'every terminal process to end', 30_000).catch(async (error: unknown) => {
      const logged = await web.lab<{ lines: string[] }>('log', {}).then(
        (log) => log.lines.join('\n'),
        () => '(the lab did not answer)',
      );
      throw new Error(`${(error as Error).message}; DSH printed last: ${web.output().slice(-3000)}; DSH logged last:\n${logged}`, {
        cause: error,
      });
    });
    await waitFor(async () => !/\bconnected\b/.test(await statusText(page).catch(() => '')), 'the panel to lose its connection', 15_000);
    const token = await fetch(`${web.url}/dsh-interactive-terminal/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rpcId: 'x', method: 'token', payload: { sessionId: 'lab-unload' } }),
    });
    assert.notEqual(token.status, 200, 'the token channel is gone');
    assert.ok((await screenText(page).catch(() => '')) !== undefined);
  });
});
