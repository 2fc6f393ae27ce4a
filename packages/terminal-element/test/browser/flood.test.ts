// The flood screen in Chromium: a flood's catch-ups drawn on one canvas instead of xterm.js's rows, what
// stays on it, when the rows come back, and how catch-ups are acked (renderer/flood-screen.ts and
// renderer/flood-policy.ts), against the scripted server.
import { sendKeys } from '@web/test-runner-commands';
import '../../src/index.ts';
import { deepEqual, equal, ok, until } from '../helpers/assert.ts';
import { mount, nextFrames, parsedAll, screenText, shadow } from '../helpers/mount.ts';

afterEach(() => {
  document.body.replaceChildren();
});

describe('<shared-terminal> in a flood', () => {
  it("draws a flood's catch-ups on one canvas without building rows, keeps the keys, draws output that follows at once there too, and gives the rows back when output streams later", async () => {
    const m = await mount({ rows: 10, cols: 60 });
    m.server.output('before the flood\r\n');
    await parsedAll(m);
    m.el.focusTerminal();
    await nextFrames(2);
    const rows = shadow(m.el, '.xterm-rows');
    let rowsBuilt = 0;
    const observer = new MutationObserver((records) => {
      for (const record of records) if (record.addedNodes.length > 0) rowsBuilt += 1;
    });
    observer.observe(rows, { childList: true, subtree: true });
    // A catch-up: a screen of the same shell and size without history, with a true-colour background at the
    // start of its second row.
    m.server.sequence += 40;
    m.server.screen = '\x1b[H\x1b[2Jcaught up\r\n\x1b[48;2;10;200;30m    \x1b[0m green\r\n$ ';
    m.server.send(m.server.snapshotFrame());
    await parsedAll(m);
    await nextFrames(2);
    observer.disconnect();
    const canvas = shadow(m.el, '.flood-screen') as HTMLCanvasElement;
    ok(!canvas.hidden, 'the canvas is the screen');
    equal(rowsBuilt, 0, 'no row was built for the catch-up');
    ok(canvas.nextElementSibling?.classList.contains('xterm-selection'), 'the selection layer stays above it');
    // Its frames go to the compositor without the page's main-thread commit (see FloodScreen.create).
    equal(canvas.getContext('2d')!.getContextAttributes().desynchronized, true, 'a desynchronized canvas');
    // A flood's screens carry no history: xterm's scrollbar, which each one would move, is not shown.
    const scrollbar = shadow(m.el, '.xterm-scrollable-element > .scrollbar.vertical');
    equal(getComputedStyle(scrollbar).display, 'none', 'no scrollbar over the flood screen');
    const box = canvas.getBoundingClientRect();
    const ratio = canvas.width / box.width;
    const cellWidth = box.width / 60;
    const cellHeight = box.height / 10;
    const pixel = canvas.getContext('2d')!.getImageData(Math.floor(2 * cellWidth * ratio), Math.floor(1.5 * cellHeight * ratio), 1, 1).data;
    deepEqual([...pixel.slice(0, 3)], [10, 200, 30], 'the cell background is drawn in its colour');
    ok(/caught up/.test(screenText(m.el)), 'xterm.js parsed the screen (its buffer stays the truth)');

    await sendKeys({ type: 'k' });
    await until(
      () => [...m.server.framesOfType('begin'), ...m.server.framesOfType('input')].some((f) => f.input.includes('k')),
      'the key went out',
    );

    // Two more catch-ups back to back (a flood), then output right after them (a flood's little output
    // between two screens): it stays on the canvas.
    const drawnAt = (row: number) => [
      ...canvas
        .getContext('2d')!
        .getImageData(Math.floor(2 * cellWidth * ratio), Math.floor((row + 0.5) * cellHeight * ratio), 1, 1)
        .data.slice(0, 3),
    ];
    observer.observe(rows, { childList: true, subtree: true });
    for (let i = 0; i < 2; i++) {
      m.server.sequence += 40;
      m.server.send(m.server.snapshotFrame());
    }
    m.server.output('\r\n\x1b[48;2;200;10;30m    \x1b[0m between screens\r\n');
    await parsedAll(m);
    await until(() => drawnAt(3).join() === '200,10,30', 'the output drawn on the canvas');
    observer.disconnect();
    ok(!canvas.hidden, 'the canvas is still the screen');
    equal(rowsBuilt, 0, 'no row was built for output that follows a catch-up at once');

    // Nothing more: the flood is over, and the rows come back by themselves, rebuilt in full.
    await until(() => canvas.hidden && /between screens/.test(rows.textContent ?? ''), 'the rows back once the flood is quiet');
    ok(/caught up/.test(rows.textContent ?? ''), 'the catch-up is in the rows too');
    ok(getComputedStyle(scrollbar).display !== 'none', 'the scrollbar is back with the rows');
    m.server.output('streaming again\r\n');
    await parsedAll(m);
    await until(() => /streaming again/.test(rows.textContent ?? ''), 'later output in the rows');
    equal(canvas.width * canvas.height, 0, 'the hidden canvas holds no bitmap');
  });

  it('keeps the flood canvas the screen when the panel scrolls into view during a flood', async () => {
    // xterm.js pauses its rows while the terminal is off screen and resumes them when it comes into view;
    // coming into view during a flood must not bring the rows back under the canvas.
    const spacer = document.createElement('div');
    spacer.style.height = '3000px';
    document.body.append(spacer);
    window.scrollTo(0, 0);
    const m = await mount({ rows: 10, cols: 60 });
    m.server.output('before the flood\r\n');
    await parsedAll(m);
    await nextFrames(3);
    ok(m.el.getBoundingClientRect().top > window.innerHeight, 'the panel starts below the fold');
    m.server.sequence += 40;
    m.server.screen = '\x1b[H\x1b[2Jcaught up off screen\r\n$ ';
    m.server.send(m.server.snapshotFrame());
    await parsedAll(m);
    await nextFrames(2);
    const canvas = shadow(m.el, '.flood-screen') as HTMLCanvasElement;
    ok(!canvas.hidden, 'the canvas is the screen');
    const rows = shadow(m.el, '.xterm-rows');
    let rowsBuilt = 0;
    const observer = new MutationObserver((records) => {
      for (const record of records) if (record.addedNodes.length > 0) rowsBuilt += 1;
    });
    observer.observe(rows, { childList: true, subtree: true });
    m.el.scrollIntoView();
    await until(() => m.el.getBoundingClientRect().top < window.innerHeight, 'the panel in view');
    await nextFrames(4);
    observer.disconnect();
    equal(rowsBuilt, 0, 'no row was built while the canvas is the screen');
    ok(!canvas.hidden, 'the canvas is still the screen');
    // The flood ends with plain output: the rows come back, in view, with everything.
    m.server.output('after the flood\r\n');
    await parsedAll(m);
    await until(() => canvas.hidden && /after the flood/.test(rows.textContent ?? ''), 'the rows back after the flood');
    ok(/caught up off screen/.test(rows.textContent ?? ''), 'the catch-up is in the rows');
  });

  it('keeps the DOM rows for catch-ups in screen-reader mode', async () => {
    const m = await mount({ rows: 10, cols: 60 }, { 'screen-reader': '' });
    m.server.output('before the flood\r\n');
    await parsedAll(m);
    m.server.sequence += 40;
    m.server.screen = '\x1b[H\x1b[2Jcaught up for the reader\r\n$ ';
    m.server.send(m.server.snapshotFrame());
    await parsedAll(m);
    await until(() => /caught up for the reader/.test(shadow(m.el, '.xterm-rows').textContent ?? ''), 'the rows show the catch-up');
    equal(m.el.shadowRoot!.querySelector('.flood-screen'), null, 'no canvas');
  });

  it('acks a catch-up once it is drawn, so the next screen is taken when the page can draw it', async () => {
    const m = await mount({ rows: 10, cols: 60 });
    m.server.output('before the flood\r\n');
    await parsedAll(m);
    // When the catch-up was parsed, and when each frame began (a frame draws the screen: the canvas in its
    // animation-frame callback, the rows in xterm's).
    const term = m.el.renderer!;
    let parsedAt = Infinity;
    const write = term.write.bind(term);
    term.write = (data: string | Uint8Array, callback?: () => void) =>
      write(data, () => {
        if (typeof data === 'string' && data.startsWith('\x1bc')) parsedAt = performance.now();
        callback?.();
      });
    const frames: number[] = [];
    let counting = true;
    const countFrames = (): void => {
      frames.push(performance.now());
      if (counting) requestAnimationFrame(countFrames);
    };
    requestAnimationFrame(countFrames);
    const acks: { sequence: number; t: number }[] = [];
    m.server.onFrame((received) => {
      if (received.frame.type === 'ack') acks.push({ sequence: received.frame.sequence, t: performance.now() });
    });
    // The server skipped ahead: a screen of the same shell and size without history, drawn in place.
    m.server.sequence += 40;
    m.server.screen = '\x1b[H\x1b[2Jcaught up with the flood\r\n$ ';
    m.server.send(m.server.snapshotFrame());
    await until(() => acks.some((a) => a.sequence === m.server.sequence), 'the catch-up acked');
    counting = false;
    ok(/caught up with the flood/.test(screenText(m.el)), 'the catch-up replaced the screen');
    const acked = acks.find((a) => a.sequence === m.server.sequence)!.t;
    ok(
      frames.some((t) => t >= parsedAt && t <= acked),
      "a frame began between the catch-up's parse and its ack",
    );
  });
});
