// <shared-terminal> in Chromium: real xterm.js, real keyboard (Playwright key presses), the scripted server
// in the page for the other end (the real server is in test/e2e).
import { sendKeys } from '@web/test-runner-commands';
import { Terminal } from '@xterm/xterm';
import '../../src/index.ts';
import { ScriptedServer } from '@shared-terminal/test-support/scripted-server';
import { deepEqual, equal, ok, until } from '../helpers/assert.ts';
import { mount, nextFrames, parsedAll, screenText, shadow } from '../helpers/mount.ts';

afterEach(() => {
  document.body.replaceChildren();
});

/** A 40-row terminal in a 200 px panel (so the panel scrolls), `lines` lines printed, then a `$ ` prompt. */
async function mountPanelWithLines(lines: number) {
  const m = await mount({ rows: 40, cols: 80 });
  m.el.style.setProperty('--shared-terminal-max-height', '200px');
  await m.el.updateComplete;
  const viewport = shadow(m.el, '.viewport');
  m.server.output(Array.from({ length: lines }, (_, i) => `line ${i}`).join('\r\n') + '\r\n$ ');
  await parsedAll(m);
  /** The cursor's row lies inside the panel's scroll container. */
  const cursorLineVisible = (): boolean => {
    const screen = shadow(m.el, '.xterm-screen').getBoundingClientRect();
    const box = viewport.getBoundingClientRect();
    const rowHeight = screen.height / m.el.renderer!.rows;
    const top = screen.top + m.el.renderer!.buffer.active.cursorY * rowHeight;
    return top >= box.top - 1 && top + rowHeight <= box.bottom + 1;
  };
  return { m, viewport, cursorLineVisible };
}

describe('<shared-terminal>', () => {
  it('renders at the server geometry; font size never changes rows and columns; wide terminals scroll sideways', async () => {
    const m = await mount({ rows: 30, cols: 220 }, { 'font-size': '13' });
    equal(m.el.renderer!.rows, 30);
    equal(m.el.renderer!.cols, 220);
    const viewport = shadow(m.el, '.viewport');
    ok(viewport.scrollWidth > viewport.clientWidth, 'a 220-column terminal is wider than the page and scrolls');
    const width = shadow(m.el, '.xterm-screen').getBoundingClientRect().width;
    m.el.fontSize = 18;
    await m.el.updateComplete;
    await until(() => shadow(m.el, '.xterm-screen').getBoundingClientRect().width > width, 'the screen grows with the font');
    equal(m.el.renderer!.rows, 30);
    equal(m.el.renderer!.cols, 220);
    equal(m.server.sockets.length, 1, 'no reconnect for a font change');
  });

  it('draws runs of one style as plain inline text that stays on the cell grid and fills the row with its background', async () => {
    const m = await mount({ rows: 10, cols: 60 });
    // A background run after wide characters, then runs of several colours on the next row.
    m.server.output('\x1b[2J\x1b[H\u4e2d\u6587\x1b[41m bg \x1b[0m plain\r\n\x1b[31mred\x1b[32mgreen\x1b[34mblue\x1b[0m');
    await parsedAll(m);
    const rows = shadow(m.el, '.xterm-rows');
    await until(
      () => /bg/.test(rows.children[0]?.textContent ?? '') && /blue/.test(rows.children[1]?.textContent ?? ''),
      'both rows drawn',
    );
    const cell = m.el.renderer!.element!.querySelector('.xterm-screen')!.getBoundingClientRect().width / 60;
    const rowBox = (rows.children[0] as HTMLElement).getBoundingClientRect();
    const runs = [...rows.querySelectorAll<HTMLSpanElement>('span')].filter((span) => !span.classList.contains('xterm-cursor'));
    ok(runs.length >= 5, 'one element per run');
    for (const run of runs) equal(getComputedStyle(run).display, 'inline', 'a run is an inline box (one layout box per row, not per run)');
    const background = runs.find((span) => span.textContent === ' bg ');
    ok(background, 'the background run');
    const box = background.getClientRects()[0]!;
    ok(
      Math.abs(box.left - rowBox.left - 4 * cell) < 1,
      `the run after two wide characters starts at column 4 (${(box.left - rowBox.left) / cell})`,
    );
    ok(Math.abs(box.width - 4 * cell) < 1, 'and is 4 cells wide');
    ok(Math.abs(box.height - rowBox.height) < 0.5, `its background fills the row (${box.height} of ${rowBox.height} px)`);
    const blue = runs.find((span) => span.textContent === 'blue')!;
    ok(Math.abs(blue.getClientRects()[0]!.left - rowBox.left - 8 * cell) < 1, 'runs of the next row stay on the grid');
  });

  it('builds each row once a frame while output scrolls with nothing selected; a selection still draws, follows and clears', async () => {
    const m = await mount({ rows: 10, cols: 60 });
    m.server.output('start\r\n');
    await parsedAll(m);
    await nextFrames(2);
    const rows = shadow(m.el, '.xterm-rows');
    const builds = new Map<Node, number>();
    const observer = new MutationObserver((records) => {
      for (const record of records) if (record.target.parentNode === rows) builds.set(record.target, (builds.get(record.target) ?? 0) + 1);
    });
    observer.observe(rows, { childList: true, subtree: true });
    // One write that scrolls every row: the renderer draws the rows once; xterm.js's selection refresh on
    // the scroll (nothing selected) must not build them all again.
    m.server.output(Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\r\n'));
    await parsedAll(m);
    await nextFrames(3);
    observer.disconnect();
    equal(builds.size, 10, 'every row was drawn');
    deepEqual([...new Set(builds.values())], [1], 'and built once');

    const term = m.el.renderer!;
    const selection = shadow(m.el, '.xterm-selection');
    term.select(0, term.buffer.active.baseY + 2, 30);
    await nextFrames(2);
    ok(selection.children.length > 0, 'a selection is drawn');
    const top = (selection.children[0] as HTMLElement).style.top;
    m.server.output('\r\none more line');
    await parsedAll(m);
    await nextFrames(2);
    ok(
      selection.children.length > 0 && (selection.children[0] as HTMLElement).style.top !== top,
      'it moves up with its text when output scrolls',
    );
    term.clearSelection();
    await nextFrames(2);
    equal(selection.children.length, 0, 'a cleared selection is gone');
  });

  it('sends the first typed key in begin and the keys typed before the grant once, after it', async () => {
    const m = await mount({ mode: 'manual' });
    m.el.focusTerminal();
    await sendKeys({ type: 'echo hi' });
    await until(() => m.el.lease.state === 'requested', 'lease requested');
    deepEqual(
      m.server.framesOfType('begin').map((f) => f.input),
      ['e'],
    );
    deepEqual(m.server.framesOfType('input'), []);
    m.server.grant();
    await until(() => m.server.framesOfType('input').length === 1, 'held keys sent');
    deepEqual(
      m.server.framesOfType('input').map((f) => f.input),
      ['cho hi'],
    );
    await sendKeys({ press: 'Enter' });
    await until(() => m.server.framesOfType('input').length === 2, 'enter sent');
    deepEqual(
      m.server.framesOfType('input').map((f) => f.input),
      ['cho hi', '\r'],
    );
    deepEqual(m.server.framesOfType('begin').length, 1);
  });

  it('never sends the replies xterm.js makes to terminal queries, but keeps keys and pastes', async () => {
    // Without the guard, xterm.js answers a device-attributes query on its own: the guard is what stops it.
    const bare = new Terminal({ allowProposedApi: true });
    const host = document.createElement('div');
    document.body.append(host);
    bare.open(host);
    const bareReplies: string[] = [];
    bare.onData((d) => bareReplies.push(d));
    await new Promise<void>((r) => bare.write('\x1b[c\x1b[6n', r));
    ok(bareReplies.length >= 2, 'an unguarded renderer replies');
    bare.dispose();

    const m = await mount({ mode: 'manual' });
    m.el.focusTerminal();
    await sendKeys({ press: 'a' });
    m.server.grant();
    m.server.setStatus({ queueStatus: 'busy', holder: 'human' });
    const queries = [
      '\x1b[c', // DA1
      '\x1b[>c', // DA2
      '\x1b[5n', // DSR
      '\x1b[6n', // CPR
      '\x1b[?6n', // DECXCPR
      '\x1b[?2004$p', // DECRQM (private)
      '\x1b[4$p', // DECRQM (ANSI)
      '\x1bP$qm\x1b\\', // DECRQSS
      '\x1b]10;?\x07', // foreground colour
      '\x1b]11;?\x07', // background colour
      '\x1b]12;?\x07', // cursor colour
      '\x1b]4;1;?\x07', // palette colour
      '\x1b[18t', // window size report
      '\x1b[?1004h', // focus reports on (xterm.js reports the focus state at once)
    ];
    m.server.output(queries.join(''));
    await parsedAll(m);
    m.el.renderer!.blur();
    m.el.focusTerminal();
    await new Promise((r) => setTimeout(r, 50));
    deepEqual(m.server.framesOfType('input'), [], 'no query reply and no focus report was sent');

    await sendKeys({ press: 'z' });
    await until(() => m.server.framesOfType('input').length === 1, 'a real key is sent');
    const textarea = shadow(m.el, 'textarea');
    const data = new DataTransfer();
    data.setData('text/plain', '\x1b[O');
    textarea.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    await until(() => m.server.framesOfType('input').length === 2, 'a paste that looks like a focus report is sent');
    deepEqual(
      m.server.framesOfType('input').map((f) => f.input),
      ['z', '\x1b[O'],
    );
  });

  it('read-only views disable input, takeover and reset', async () => {
    const m = await mount({ status: { queueStatus: 'busy', holder: 'model-send', takeoverId: '3' } }, { readonly: '' });
    ok(shadow(m.el, '[part="status"]').textContent!.trim().startsWith('Read only'));
    ok(m.server.socket!.readonlyMode, 'asked for a read-only view');
    equal((shadow(m.el, '.takeover') as HTMLButtonElement).disabled, true);
    equal((shadow(m.el, '.reset') as HTMLButtonElement).disabled, true);
    equal(m.el.renderer!.options.disableStdin, true);
    m.el.focusTerminal();
    await sendKeys({ type: 'ls' });
    await new Promise((r) => setTimeout(r, 50));
    deepEqual(
      m.server.received.filter((r) => r.frame.type !== 'ack' && r.frame.type !== 'ping'),
      [],
    );
  });

  it('a touch device gets a read-only view', async () => {
    const server = new ScriptedServer();
    const el = document.createElement('shared-terminal');
    el.touchDevice = true;
    el.socketFactory = server.createSocket;
    el.connector = server.connector;
    document.body.append(el);
    await until(() => el.role === 'readonly', 'read only');
    deepEqual(server.connectorCalls, [{ readonly: true }]);
    ok(shadow(el, '[part="status"]').textContent!.includes('touch'));
  });

  it('says when the waiting program is still working', async () => {
    const m = await mount({
      mode: 'shell',
      status: { queueStatus: 'busy', holder: 'model-send', takeoverId: '9', inputWait: { command: 'jshell', secret: false, busy: true } },
    });
    const status = shadow(m.el, '[part="status"]').textContent!.replace(/\s+/g, ' ');
    ok(status.includes('jshell is waiting for input (still working)'), status);
  });

  it('shows the lease flow: model busy, Take over input, granted, Interrupt input', async () => {
    const m = await mount({
      mode: 'shell',
      status: { queueStatus: 'busy', holder: 'model-send', takeoverId: '9', inputWait: { command: 'python3', secret: false } },
    });
    const status = (): string => shadow(m.el, '[part="status"]').textContent!.replace(/\s+/g, ' ');
    ok(status().startsWith(' Controller') || status().startsWith('Controller'), status());
    ok(status().includes('model holds input'), status());
    ok(status().includes('python3 is waiting for input'), status());
    const takeover = shadow(m.el, '.takeover') as HTMLButtonElement;
    equal(takeover.disabled, false);
    takeover.focus();
    await sendKeys({ press: 'Enter' });
    await until(() => m.el.lease.state === 'granted', 'granted');
    deepEqual(
      m.server.framesOfType('takeover').map((f) => f.takeoverId),
      ['9'],
    );
    ok(status().includes('you hold input'), status());
    const interrupt = shadow(m.el, '.interrupt') as HTMLButtonElement;
    await m.el.updateComplete;
    equal(interrupt.disabled, false);
    interrupt.click();
    await until(() => m.el.lease.state === 'none', 'lease ends at the prompt');
    equal(m.server.framesOfType('interrupt').length, 1);
    const leaseStates = m.events.filter((e) => e.type === 'shared-terminal-lease').map((e) => (e.detail as { state: string }).state);
    deepEqual(leaseStates, ['requested', 'granted', 'none']);
  });

  it('shows a model operation waiting behind the person', async () => {
    const m = await mount({ status: { queueStatus: 'busy', holder: 'human', pendingCount: 1, pendingKinds: ['model-send'] } });
    const text = shadow(m.el, '[part="status"]').textContent!;
    ok(text.includes('1 queued'), text);
    ok(text.includes('model operation waiting'), text);
    const status = m.events.filter((e) => e.type === 'shared-terminal-status').at(-1)!.detail as {
      modelWaiting: boolean;
      pendingCount: number;
    };
    equal(status.modelWaiting, true);
    equal(status.pendingCount, 1);
  });

  it('settings menu: keyboard opening, arrow keys, Escape; Reset Terminal asks first, then shows the next generation', async () => {
    const m = await mount({ mode: 'shell' });
    const settings = shadow(m.el, '.settings');
    settings.focus();
    await sendKeys({ press: 'Enter' });
    await until(() => m.el.shadowRoot!.activeElement?.classList.contains('reconnect'), 'first item focused');
    equal(settings.getAttribute('aria-expanded'), 'true');
    await sendKeys({ press: 'ArrowDown' });
    ok(m.el.shadowRoot!.activeElement!.classList.contains('clear'));
    await sendKeys({ press: 'ArrowUp' });
    await sendKeys({ press: 'ArrowUp' });
    ok(m.el.shadowRoot!.activeElement!.classList.contains('reset'), 'wraps to the last item');
    await sendKeys({ press: 'Escape' });
    equal(m.el.shadowRoot!.activeElement, settings);
    equal(shadow(m.el, '.menu').hidden, true);

    settings.click();
    await m.el.updateComplete;
    shadow(m.el, '.font-up').click();
    await m.el.updateComplete;
    equal(m.el.fontSize, 14);
    equal(m.el.getAttribute('font-size'), '14');
    shadow(m.el, '.reset').click();
    await m.el.updateComplete;
    const dialog = shadow(m.el, '[role="alertdialog"]');
    ok(dialog.textContent!.includes('Reset Terminal?'));
    equal(m.server.framesOfType('reset').length, 0, 'nothing is reset before the confirmation');
    equal(m.el.shadowRoot!.activeElement, shadow(m.el, '.confirm .cancel'), 'Cancel has the focus');
    shadow(m.el, '.confirm-reset').click();
    await until(() => m.el.generation === 2, 'the next generation is shown');
    deepEqual(
      m.server.framesOfType('reset').map((f) => f.confirmed),
      [true],
    );
    const generations = m.events
      .filter((e) => e.type === 'shared-terminal-generation')
      .map((e) => (e.detail as { generation: number }).generation);
    deepEqual(generations, [1, 2]);
  });

  it("a new generation shows the cursor's line, wherever the person had scrolled the panel", async () => {
    // Output fills the screen; the person scrolls the panel down to the prompt on the last row.
    const { m, viewport, cursorLineVisible } = await mountPanelWithLines(60);
    viewport.scrollTop = viewport.scrollHeight;
    ok(viewport.scrollTop > 100, `the panel scrolls (${viewport.scrollTop})`);
    m.server.resetGeneration();
    await until(() => m.el.generation === 2, 'the next generation');
    await until(() => m.el.renderer!.buffer.active.cursorX > 0, 'its prompt');
    await nextFrames(2);
    equal(m.el.renderer!.buffer.active.cursorY, 0, 'the new shell starts at the top');
    ok(cursorLineVisible(), `the cursor's line is in view (panel scrolled ${viewport.scrollTop} px)`);
  });

  it("a person's key brings the cursor's line into view at once and follows its echo, asking for no frame before the echo", async () => {
    // The prompt on row 20 of 40; the 200 px panel shows about ten rows.
    const { m, viewport, cursorLineVisible } = await mountPanelWithLines(20);
    viewport.scrollTop = 0;
    ok(!cursorLineVisible(), 'the prompt is out of view');
    m.el.focusTerminal();
    // Frames asked for between the key and its echo (a pending frame holds the echo's message back).
    const native = window.requestAnimationFrame;
    let asked = 0;
    window.requestAnimationFrame = (callback) => {
      asked += 1;
      return native.call(window, callback);
    };
    try {
      await sendKeys({ press: 'a' });
      ok(cursorLineVisible(), `in view at once, before any echo (panel scrolled ${viewport.scrollTop} px)`);
      m.server.grant();
      await until(() => m.server.framesOfType('begin').length + m.server.framesOfType('input').length > 0, 'the key sent');
      await new Promise((resolve) => setTimeout(resolve, 30));
      equal(asked, 0, 'no frame asked for while the echo is on its way');
    } finally {
      window.requestAnimationFrame = native;
    }
    // The echo moves the cursor three rows down, past the panel's bottom edge: the panel follows it.
    const before = viewport.scrollTop;
    m.server.output('a\r\none\r\ntwo\r\n$ ');
    await parsedAll(m);
    await nextFrames(2);
    ok(viewport.scrollTop > before, `the panel followed the echo (${before} -> ${viewport.scrollTop} px)`);
    ok(cursorLineVisible(), "the echo's line is in view");
  });

  it('Fit width in the settings menu picks the largest font at which every column fits the panel', async () => {
    const m = await mount({ rows: 10, cols: 160 }, { 'font-size': '13' });
    m.el.style.width = '1000px';
    await m.el.updateComplete;
    const viewport = shadow(m.el, '.viewport');
    const screenWidth = () => shadow(m.el, '.xterm-screen').getBoundingClientRect().width;
    ok(viewport.scrollWidth > viewport.clientWidth, 'at 13 px the 160 columns are wider than the panel');
    shadow(m.el, '.settings').click();
    await m.el.updateComplete;
    shadow(m.el, '.fit-width').click();
    await until(() => m.events.some((e) => e.type === 'shared-terminal-font-size'), 'the new font size');
    const fitted = m.el.fontSize;
    ok(fitted < 13 && fitted >= 8, `font size ${fitted}`);
    await nextFrames(2);
    ok(screenWidth() <= viewport.clientWidth, `the screen (${screenWidth()} px) fits the panel (${viewport.clientWidth} px)`);
    equal(m.el.renderer!.cols, 160, 'the PTY keeps its columns');
    m.el.fontSize = fitted + 1;
    await m.el.updateComplete;
    await nextFrames(2);
    ok(screenWidth() > viewport.clientWidth - 8, 'one size larger would not fit: the largest size was chosen');
  });

  it('collapse and expand keep the socket; a collapsed element connects only when first expanded', async () => {
    const m = await mount({ mode: 'shell' });
    m.server.output('kept\r\n');
    await parsedAll(m);
    m.el.collapsed = true;
    await m.el.updateComplete;
    ok(shadow(m.el, '.body').classList.contains('collapsed'));
    m.el.collapsed = false;
    await m.el.updateComplete;
    equal(m.server.sockets.length, 1);
    ok(screenText(m.el).includes('kept'));

    const lazy = await mount({}, { collapsed: '' });
    await new Promise((r) => setTimeout(r, 50));
    equal(lazy.server.connectorCalls.length, 0, 'no shell before the first expansion');
    shadow(lazy.el, '.toggle').click();
    await until(() => lazy.el.connectionState === 'connected', 'connected after expanding');
    deepEqual(lazy.events.find((e) => e.type === 'shared-terminal-toggle')?.detail, { collapsed: false });
  });

  it('keeps the resume proof in memory only and fires an event for every state change', async () => {
    const before = { local: localStorage.length, session: sessionStorage.length, cookie: document.cookie };
    const m = await mount({ mode: 'shell' });
    deepEqual({ local: localStorage.length, session: sessionStorage.length, cookie: document.cookie }, before);
    m.server.notice('resynced');
    await until(() => m.events.some((e) => e.type === 'shared-terminal-notice'), 'notice event');
    const types = new Set(m.events.map((e) => e.type));
    for (const type of [
      'shared-terminal-connection',
      'shared-terminal-role',
      'shared-terminal-status',
      'shared-terminal-generation',
      'shared-terminal-notice',
    ])
      ok(types.has(type), `${type} fired`);
    ok(shadow(m.el, '[part="notice"]').textContent!.includes('refreshed from the server'));
  });

  it('the status line reads, and copies, as its words alone: no stray whitespace around or between them', async () => {
    const m = await mount();
    const text = shadow(m.el, '[part="status"]').textContent!;
    ok(/^Controller \| connected/.test(text), JSON.stringify(text));
    ok(!/\s{2,}|^\s|\s$/.test(text), JSON.stringify(text));
  });

  it('speaks Chinese with lang="zh-CN" and follows the dark theme', async () => {
    const m = await mount({ status: { queueStatus: 'busy', holder: 'model-send', takeoverId: '1' } }, { lang: 'zh-CN', theme: 'dark' });
    equal(shadow(m.el, '.takeover').textContent!.trim(), '接手输入');
    equal(shadow(m.el, '.interrupt').textContent!.trim(), '中断输入');
    ok(shadow(m.el, '[part="status"]').textContent!.trim().startsWith('Controller'));
    equal(m.el.renderer!.options.theme!.background, '#0d1117');
    m.el.theme = 'light';
    await m.el.updateComplete;
    equal(m.el.renderer!.options.theme!.background, '#ffffff');
  });

  it('names every control, gives the status line a role, and follows the page language', async () => {
    const m = await mount({ status: { queueStatus: 'busy', holder: 'model-send', takeoverId: '2' } });
    m.server.notice('busy');
    shadow(m.el, '.settings').click();
    await m.el.updateComplete;
    const controls = [...m.el.shadowRoot!.querySelectorAll<HTMLElement>('button')];
    ok(controls.length >= 10, `found ${controls.length} buttons`);
    for (const control of controls) {
      const name = (control.getAttribute('aria-label') ?? control.textContent ?? '').trim();
      ok(name.length > 0, `a button without a name: ${control.outerHTML}`);
    }
    equal(shadow(m.el, '[part="status"]').getAttribute('role'), 'status');
    equal(shadow(m.el, '[part="settings-menu"]').getAttribute('role'), 'menu');
    equal(shadow(m.el, '.settings').getAttribute('aria-haspopup'), 'menu');
    ok(shadow(m.el, 'textarea').getAttribute('aria-label'), 'the terminal input has a name');

    const wrapper = document.createElement('div');
    wrapper.lang = 'zh-CN';
    document.body.append(wrapper);
    const server = new ScriptedServer();
    const el = document.createElement('shared-terminal');
    el.touchDevice = false;
    el.socketFactory = server.createSocket;
    el.connector = server.connector;
    wrapper.append(el);
    await el.updateComplete;
    equal(shadow(el, '.takeover').textContent!.trim(), '接手输入');
  });

  it('turns on xterm.js screen-reader mode from the settings menu', async () => {
    const m = await mount();
    shadow(m.el, '.settings').click();
    await m.el.updateComplete;
    const item = shadow(m.el, '.screen-reader');
    equal(item.getAttribute('role'), 'menuitemcheckbox');
    item.click();
    await m.el.updateComplete;
    equal(m.el.renderer!.options.screenReaderMode, true);
    equal(item.getAttribute('aria-checked'), 'true');
    ok(m.el.hasAttribute('screen-reader'));
  });
});
