// What every good terminal has, through the real element in Chromium with Playwright's real keyboard and
// mouse: copy and paste shortcuts, a context menu, clickable links, a search of the scrollback, and a theme
// that follows the system's colour scheme.
import { emulateMedia, sendKeys, sendMouse } from '@web/test-runner-commands';
import { deepEqual, equal, ok, until } from '../helpers/assert.ts';
import { mount, nextFrames, parsedAll, shadow, type Mounted } from '../helpers/mount.ts';

/** Everything the view sent to the shell: the first key's begin frame and the input frames after it. */
function sent(m: Mounted): string {
  return [...m.server.framesOfType('begin'), ...m.server.framesOfType('input')].map((f) => f.input).join('');
}

/** The middle of a cell, in page coordinates. */
function cellCentre(m: Mounted, row: number, col: number): [number, number] {
  const screen = shadow(m.el, '.xterm-screen').getBoundingClientRect();
  const term = m.el.renderer!;
  return [
    Math.round(screen.left + ((col + 0.5) * screen.width) / term.cols),
    Math.round(screen.top + ((row + 0.5) * screen.height) / term.rows),
  ];
}

afterEach(async () => {
  document.body.replaceChildren();
  await emulateMedia({ colorScheme: 'light' });
});

describe('terminal conveniences', () => {
  it('copies the selection with Ctrl+Shift+C and sends the shell nothing for it', async () => {
    const m = await mount({ mode: 'shell' });
    m.server.output('\x1b[2J\x1b[Hcopy this line\r\n');
    await parsedAll(m);
    await navigator.clipboard.writeText('before');
    m.el.focusTerminal();
    await sendKeys({ press: 'Control+Shift+C' });
    equal(await navigator.clipboard.readText(), 'before', 'nothing selected: the clipboard is untouched');
    m.el.renderer!.select(0, m.el.renderer!.buffer.active.viewportY, 9);
    await sendKeys({ press: 'Control+Shift+C' });
    await until(async () => (await navigator.clipboard.readText()) === 'copy this', 'the selection copied');
    await sendKeys({ type: 'x' });
    await until(() => sent(m).includes('x'), 'a plain key still goes out');
    equal(sent(m), 'x', 'Ctrl+Shift+C sent no ^C (nor anything else)');
  });

  it('pastes with Ctrl+Shift+V and Shift+Insert as typed input', async () => {
    const m = await mount({ mode: 'shell' });
    m.el.focusTerminal();
    await navigator.clipboard.writeText('echo pasted');
    await sendKeys({ press: 'Control+Shift+V' });
    await until(() => sent(m) === 'echo pasted', `the clipboard went out (sent ${JSON.stringify(sent(m))})`);
    await navigator.clipboard.writeText(' again');
    await sendKeys({ press: 'Shift+Insert' });
    await until(() => sent(m) === 'echo pasted again', `Shift+Insert pasted too (sent ${JSON.stringify(sent(m))})`);
  });

  it('offers Copy and Paste in a context menu', async () => {
    const m = await mount({ mode: 'shell' });
    m.server.output('\x1b[2J\x1b[Hpick me\r\n');
    await parsedAll(m);
    await sendMouse({ type: 'click', position: cellCentre(m, 3, 10), button: 'right' });
    await m.el.updateComplete;
    const menu = shadow(m.el, '[part="context-menu"]');
    equal(menu.getAttribute('role'), 'menu');
    const copy = shadow(m.el, '.context-copy') as HTMLButtonElement;
    const paste = shadow(m.el, '.context-paste') as HTMLButtonElement;
    deepEqual([copy.textContent?.trim(), paste.textContent?.trim()], ['Copy', 'Paste']);
    ok(copy.disabled, 'Copy is off without a selection');
    await navigator.clipboard.writeText('from the menu');
    paste.click();
    await until(() => sent(m) === 'from the menu', `Paste sent the clipboard (sent ${JSON.stringify(sent(m))})`);
    equal(m.el.shadowRoot!.querySelector('[part="context-menu"]'), null, 'the menu closed');

    m.el.renderer!.select(0, m.el.renderer!.buffer.active.viewportY, 4);
    await sendMouse({ type: 'click', position: cellCentre(m, 3, 10), button: 'right' });
    await m.el.updateComplete;
    const copyNow = shadow(m.el, '.context-copy') as HTMLButtonElement;
    ok(!copyNow.disabled, 'Copy is on with a selection');
    copyNow.click();
    await until(async () => (await navigator.clipboard.readText()) === 'pick', 'the selection copied from the menu');
  });

  it('opens a link in the output in a new tab without an opener', async () => {
    const m = await mount({ rows: 10, cols: 80 });
    m.server.output('\x1b[2J\x1b[Hdocs at https://example.com/guide?x=1 today\r\n');
    await parsedAll(m);
    await nextFrames(2);
    const opened: unknown[][] = [];
    const open = window.open;
    window.open = (...args: unknown[]) => (opened.push(args), null);
    try {
      const at = cellCentre(m, 0, 15);
      await sendMouse({ type: 'move', position: at });
      await until(
        () =>
          shadow(m.el, '.xterm-screen').classList.contains('xterm-cursor-pointer') ||
          m.el.renderer!.element!.classList.contains('xterm-cursor-pointer'),
        'the link is under the pointer',
      );
      await sendMouse({ type: 'click', position: at });
      await until(() => opened.length > 0, 'the link opened');
    } finally {
      window.open = open;
    }
    deepEqual(opened, [['https://example.com/guide?x=1', '_blank', 'noopener,noreferrer']]);
  });

  it('searches the scrollback with Ctrl+Shift+F: next, previous and a match count, in English and Chinese', async () => {
    for (const [lang, first, second, none] of [
      ['en', '1 of 3', '2 of 3', 'No results'],
      ['zh-CN', '第 1 个，共 3 个', '第 2 个，共 3 个', '无结果'],
    ] as const) {
      const m = await mount({ rows: 6, cols: 60 }, { lang });
      // Matches in the scrollback (scrolled out of the 6 rows) as well as on the screen.
      m.server.output(
        ['needle one', ...Array.from({ length: 20 }, (_, i) => `hay ${i}`), 'needle two', 'more hay', 'needle three'].join('\r\n'),
      );
      await parsedAll(m);
      m.el.focusTerminal();
      await sendKeys({ press: 'Control+Shift+F' });
      await m.el.updateComplete;
      const bar = shadow(m.el, '[part="search"]');
      const input = shadow(m.el, '.search input') as HTMLInputElement;
      equal(m.el.shadowRoot!.activeElement, input, 'the search box has the focus');
      await sendKeys({ type: 'needle' });
      const count = () => shadow(m.el, '.search-count').textContent?.trim();
      await until(() => count() === first, `${lang}: the first match (${count()})`);
      ok(m.el.renderer!.getSelection() === 'needle', 'the match is selected');
      await sendKeys({ press: 'Enter' });
      await until(() => count() === second, `${lang}: Enter goes to the next (${count()})`);
      await sendKeys({ press: 'Shift+Enter' });
      await until(() => count() === first, `${lang}: Shift+Enter goes back (${count()})`);
      (shadow(m.el, '.search-next') as HTMLButtonElement).click();
      await until(() => count() === second, `${lang}: the next button`);
      (shadow(m.el, '.search-previous') as HTMLButtonElement).click();
      await until(() => count() === first, `${lang}: the previous button`);
      input.focus();
      input.select();
      await sendKeys({ type: 'no such thing' });
      await until(() => count() === none, `${lang}: nothing matched (${count()})`);
      await sendKeys({ press: 'Escape' });
      await m.el.updateComplete;
      ok(!bar.isConnected, 'Escape closed the search');
      equal(sent(m), '', 'the search typed nothing into the shell');
      document.body.replaceChildren();
    }
  });

  it('a search with more matches than are highlighted says how many matched', async () => {
    const m = await mount({ rows: 6, cols: 60 });
    m.server.output(Array.from({ length: 600 }, () => 'needle needle').join('\r\n'));
    await parsedAll(m);
    m.el.focusTerminal();
    await sendKeys({ press: 'Control+Shift+F' });
    await m.el.updateComplete;
    await sendKeys({ type: 'needle' });
    const count = () => shadow(m.el, '.search-count').textContent?.trim() ?? '';
    // 1,200 matches: the count stops at the highlight limit and says so.
    await until(() => count() === '1 of 1000+', `the first of more than 1000 (${count()})`);
    await sendKeys({ press: 'Shift+Enter' });
    await until(() => count() === '1000+ matches', `the last match lies past the limit (${count()})`);
  });

  it('theme="auto" follows the system colour scheme, in the panel and in the terminal', async () => {
    await emulateMedia({ colorScheme: 'light' });
    const m = await mount({}, { theme: 'auto' });
    equal(m.el.renderer!.options.theme!.background, '#ffffff');
    await emulateMedia({ colorScheme: 'dark' });
    await until(() => m.el.renderer!.options.theme!.background === '#0d1117', 'the terminal turned dark');
    equal(getComputedStyle(shadow(m.el, '.body')).backgroundColor, 'rgb(13, 17, 23)', 'and the panel');
    await emulateMedia({ colorScheme: 'light' });
    await until(() => m.el.renderer!.options.theme!.background === '#ffffff', 'and light again');
  });
});

describe('a page the server refuses', () => {
  it('says it was refused and why, shows no role, and does not retry', async () => {
    const reason = 'origin http://127.0.0.1:5174 is not allowed: start the server with --allow-origin http://127.0.0.1:5174';
    let sockets = 0;
    const el = document.createElement('shared-terminal');
    el.touchDevice = false;
    // What a browser sees of the standalone server's refusal: a socket that closes with 4005 and the reason.
    el.socketFactory = () => {
      sockets += 1;
      const socket = {
        onopen: null,
        onmessage: null,
        onerror: null,
        onclose: null as ((e: { code: number; reason: string }) => void) | null,
        send() {},
        close() {},
      };
      setTimeout(() => socket.onclose?.({ code: 4005, reason }), 0);
      return socket;
    };
    el.connector = async () => ({ url: 'ws://127.0.0.1:1/terminal', token: 'A'.repeat(43) });
    document.body.append(el);
    await until(() => el.connectionState === 'failed', 'the view gave up');
    await el.updateComplete;
    const notice = shadow(el, '[part="notice"]');
    equal(notice.dataset['code'], 'refused');
    ok(notice.textContent!.includes(`The server refused this page. (${reason})`), notice.textContent!);
    ok(notice.querySelector('.notice-reconnect'), 'with a Reconnect button for after the server is fixed');
    const status = shadow(el, '[part="status"]').textContent!.trim();
    ok(!/Controller|Read only/.test(status), `no role word: ${status}`);
    equal(el.shadowRoot!.querySelector('[part="notice"][data-code="reconnecting"]'), null, 'no "reconnecting"');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    equal(sockets, 1, 'one attempt, no retries');
  });
});
