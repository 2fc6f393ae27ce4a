// Keeping the cursor's line in view when a new screen or a person's key moves it (revealCursorLine below).
import type { Terminal } from '@xterm/xterm';

/**
 * Bring the cursor's line into view in the element's scroll container.
 *
 * The renderer is as tall as the PTY's rows, and the container around it (`part="viewport"`) is capped
 * by `--shared-terminal-max-height`, so it scrolls. Its scroll position survives a new renderer: after a
 * flood the person scrolls down to the prompt at the bottom, a reset starts a shell at the top, and the
 * new shell's lines sat above the visible part, which looked blank. After a new generation, a full
 * snapshot and the person's own keys, the cursor's line is scrolled into view (the least scroll that
 * shows it), inside xterm.js's own scrollback too (unless told to keep a person reading history there).
 */
export function revealCursorLine(container: HTMLElement, term: Terminal, options: { keepScrollback?: boolean } = {}): void {
  const buffer = term.buffer.active;
  if (buffer.viewportY !== buffer.baseY) {
    // The person reads history in xterm.js's scrollback: leave both where they are.
    if (options.keepScrollback) return;
    term.scrollToBottom();
  }
  const screen = term.element?.querySelector<HTMLElement>('.xterm-screen');
  if (!screen || term.rows <= 0) return;
  const screenBox = screen.getBoundingClientRect();
  const rowHeight = screenBox.height / term.rows;
  if (!(rowHeight > 0)) return;
  const containerBox = container.getBoundingClientRect();
  // The line's place in the container's scrolled content.
  const top = screenBox.top - containerBox.top - container.clientTop + container.scrollTop + buffer.cursorY * rowHeight;
  const bottom = top + rowHeight;
  if (top < container.scrollTop) container.scrollTop = Math.max(0, Math.floor(top));
  else if (bottom > container.scrollTop + container.clientHeight) container.scrollTop = Math.ceil(bottom - container.clientHeight);
}

/**
 * How long after a key a cursor move still counts as its echo and is followed into view. Longer than any
 * echo takes; short enough that output long after a key with no echo (a password) does not pull the panel
 * away from history the person went on to read.
 */
const ECHO_FOLLOW_MS = 1000;

/**
 * A person's keys bring the cursor's line into view, as a terminal does: at once when the key goes out,
 * and again once its echo has moved the cursor (a new line at the panel's edge), at most once per frame.
 *
 * Never in a frame asked for at the key itself: while a frame is pending the browser holds the echo's
 * WebSocket message until that frame is drawn, which cost up to a frame's time (about 16 ms) on one key
 * in three. The reveal at the key only reads the layout and asks for no frame unless it has to scroll;
 * once the echo is parsed a frame comes anyway (to draw it), so following it then costs nothing.
 */
export class InputReveal {
  private pending: { moved: { dispose(): void }; timer: ReturnType<typeof setTimeout> } | null = null;
  private frameAsked = false;
  private readonly reveal: (term: Terminal) => void;

  constructor(reveal: (term: Terminal) => void) {
    this.reveal = reveal;
  }

  /** A key went out from `term`. */
  keyed(term: Terminal): void {
    this.reveal(term);
    this.cancel();
    const moved = term.onCursorMove(() => this.followEcho(term));
    const timer = setTimeout(() => this.cancel(), ECHO_FOLLOW_MS);
    this.pending = { moved, timer };
  }

  /** Forget a pending follow (the renderer went away). */
  cancel(): void {
    if (!this.pending) return;
    this.pending.moved.dispose();
    clearTimeout(this.pending.timer);
    this.pending = null;
  }

  private followEcho(term: Terminal): void {
    this.cancel();
    if (this.frameAsked) return;
    this.frameAsked = true;
    requestAnimationFrame(() => {
      this.frameAsked = false;
      this.reveal(term);
    });
  }
}
