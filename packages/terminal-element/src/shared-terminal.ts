/**
 * <shared-terminal>: the element. It owns the public surface (properties, attributes, events, parts and
 * CSS properties, documented on the class for the Custom Elements Manifest), the connection's wiring to
 * reactive state, and the render. Behaviour lives in rooms it composes: `connection.ts` (and its rooms in
 * `connection/`), `renderer/` (renderer stack, flood pacing, flood canvas, look), `controllers/` (settings menu,
 * search, clipboard) and `views/` (status line, notices, menus, search bar).
 *
 * Over 500 lines: about 70 are the class documentation and 60 the property declarations, and the rest is
 * the wiring of the rooms above; no rule lives here alone.
 */
import { LitElement, html, nothing, type PropertyValues, type TemplateResult } from 'lit';
import { Terminal } from '@xterm/xterm';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { CloseCode, type Connector, type SnapshotFrame, type StatusFrame } from '@shared-terminal/server/protocol';
import { NO_LEASE } from './connection/input-gate.ts';
import {
  TerminalConnection,
  type ConnectionState,
  type LeaseView,
  type SocketFactory,
  type ViewNotice,
  type ViewNoticeCode,
} from './connection.ts';
import { messagesFor, resolveLocale, type Messages } from './i18n.ts';
import { isFocusReport, silenceQueryReplies } from './query-replies.ts';
import { skipEmptySelectionRedraws } from './selection-redraws.ts';
import { InputReveal, revealCursorLine } from './cursor-line.ts';
import { RendererStack } from './renderer/renderer-stack.ts';
import { panelStyles, xtermStyles } from './styles.ts';
import {
  DEFAULT_FONT_SIZE,
  MAX_FONT_SIZE,
  MIN_FONT_SIZE,
  clampFontSize,
  cssValue,
  fitFontSize,
  isDark,
  xtermTheme,
} from './renderer/look.ts';
import type { SharedTerminalEventDetails } from './events.ts';
import { isMac, shortcutFor } from './shortcuts.ts';
import { noticeList, noticeText, withNotice, withoutTransient, type ShownNotice } from './views/notices.ts';
import { statusDetail, statusLine } from './views/status-line.ts';
import { SettingsMenuController } from './controllers/settings-menu.ts';
import { SearchController } from './controllers/search.ts';
import { ClipboardController } from './controllers/clipboard.ts';

export { DEFAULT_FONT_SIZE, MAX_FONT_SIZE, MIN_FONT_SIZE } from './renderer/look.ts';
export { modelWaiting, type StatusEventDetail } from './views/status-line.ts';

/** Detail of `shared-terminal-screen`: a snapshot was parsed and is on screen. */
export interface ScreenEventDetail {
  generation: number;
  /** The last output the screen includes. */
  sequence: number;
  /** History rows that came with it. */
  historyLines: number;
  /** Older history was left out: evicted by the server's limits, or still coming (a reconnect's first
   *  screen carries the newest rows; the full history follows in a moment). */
  truncated: boolean;
}

export interface NoticeEventDetail {
  code: ViewNoticeCode;
  message: string;
}
/** The `theme` attribute: `auto` follows the page's `prefers-color-scheme`. */
type ThemeName = 'light' | 'dark' | 'auto';

/** A link in the output: a new tab that cannot reach back into this page (no opener, no referrer). */
function openLink(event: MouseEvent, uri: string): void {
  event.preventDefault();
  window.open(uri, '_blank', 'noopener,noreferrer');
}

/**
 * @tag shared-terminal
 * @summary A persistent terminal that a person shares with an AI agent: xterm.js at the server's fixed size,
 * the lease UI (Controller / Read only, Take over input, Interrupt input), a settings menu and notices.
 *
 * @property connector - `({ readonly }) => Promise<{ url, token }>`: the host's way to get a WebSocket URL and
 *   a fresh one-time token. Setting another connector starts over (a new session: proof and keys forgotten).
 * @property socketFactory - Advanced: how to open the socket (defaults to `new WebSocket(url, protocols)`).
 * @property touchDevice - `true`/`false` to override the `(pointer: coarse)` check; touch views are read only.
 *
 * @attr readonly - Ask for a read-only view: no input, no takeover, no reset.
 * @attr collapsed - Hide the terminal. The socket, the shell and any lease stay. The first connection waits
 *   until the element is first expanded (that is when the server starts the shell).
 * @attr font-size - Font size in CSS pixels (8–32, default 13). Never changes the PTY's rows and columns.
 * @attr lang - `en` or `zh-CN`; without it, the nearest ancestor's `lang` (English for anything else).
 * @attr theme - `light` (default), `dark`, or `auto` (follows the page's `prefers-color-scheme`).
 * @attr screen-reader - Turn on xterm.js's screen-reader mode.
 *
 * @event shared-terminal-connection - `{ state, previous, closeCode, retryInMs }`: the connection changed.
 * @event shared-terminal-role - `{ role: 'controller' | 'readonly', reason }`: this view's role changed.
 * @event shared-terminal-status - The server's status frame: `{ process, queueStatus, holder, pendingCount,
 *   pendingKinds, takeoverId, inputWait, modelWaiting }` (who holds input, queue depth, a model operation
 *   waiting behind the person).
 * @event shared-terminal-lease - `{ state: 'none' | 'requested' | 'queued' | 'granted', origin, leaseId, reason }`.
 * @event shared-terminal-notice - `{ code, message }`: a notice was shown (discarded input, input limit,
 *   reconnecting, exited, blocked, ...).
 * @event shared-terminal-generation - `{ generation, previous, rows, cols }`: a (new) shell generation is shown.
 * @event shared-terminal-screen - `{ generation, sequence, historyLines, truncated }`: a snapshot from the
 *   server is parsed and on screen (on connect: the screen with the newest history first, then the whole
 *   history, parsed off screen and swapped in; and after catching up with a flood).
 * @event shared-terminal-toggle - `{ collapsed }`: the person collapsed or expanded the panel.
 * @event shared-terminal-font-size - `{ fontSize }`: the person changed the font size.
 *
 * @csspart panel - The whole card.
 * @csspart header - The top row: toggle, status line, actions.
 * @csspart toggle - The collapse/expand button.
 * @csspart status - The status line (starts with "Controller" or "Read only").
 * @csspart role - The role word in the status line.
 * @csspart connection - The connection state in the status line.
 * @csspart takeover-button - "Take over input".
 * @csspart interrupt-button - "Interrupt input".
 * @csspart settings-button - The settings (gear) button.
 * @csspart settings-menu - The settings menu.
 * @csspart confirm - The Reset Terminal confirmation.
 * @csspart notices - The notice list.
 * @csspart notice - One notice.
 * @csspart search - The scrollback search bar (Ctrl+Shift+F, ⌘F on macOS).
 * @csspart context-menu - The right-click menu (Copy, Paste).
 * @csspart body - The terminal area (hidden when collapsed).
 * @csspart viewport - The scroll container around the renderer (scrolls sideways for wide terminals).
 * @csspart terminal - The element xterm.js renders into.
 *
 * @cssproperty --shared-terminal-background - Terminal background.
 * @cssproperty --shared-terminal-foreground - Terminal text.
 * @cssproperty --shared-terminal-cursor - Cursor colour.
 * @cssproperty --shared-terminal-selection - Selection colour.
 * @cssproperty --shared-terminal-panel-background - Card background.
 * @cssproperty --shared-terminal-panel-foreground - Card text.
 * @cssproperty --shared-terminal-muted - Secondary text.
 * @cssproperty --shared-terminal-border - Borders.
 * @cssproperty --shared-terminal-accent - Primary buttons.
 * @cssproperty --shared-terminal-accent-foreground - Text on primary buttons.
 * @cssproperty --shared-terminal-danger - Errors and Reset Terminal.
 * @cssproperty --shared-terminal-warning - Warnings (model waiting, input waits).
 * @cssproperty --shared-terminal-focus-ring - Focus outline.
 * @cssproperty --shared-terminal-font-family - Terminal font.
 * @cssproperty --shared-terminal-ui-font - Font of the card.
 * @cssproperty --shared-terminal-radius - Card corner radius.
 * @cssproperty --shared-terminal-max-height - Largest height of the terminal area before it scrolls.
 */
export class SharedTerminalElement extends LitElement {
  static override styles = [xtermStyles, panelStyles];

  static override properties = {
    connector: { attribute: false },
    socketFactory: { attribute: false },
    touchDevice: { attribute: false },
    readonly: { type: Boolean, reflect: true },
    collapsed: { type: Boolean, reflect: true },
    fontSize: { type: Number, attribute: 'font-size', reflect: true },
    lang: { type: String },
    theme: { type: String, reflect: true },
    screenReader: { type: Boolean, attribute: 'screen-reader', reflect: true },
    connectionState: { state: true },
    retryInMs: { state: true },
    role: { state: true },
    roleReason: { state: true },
    status: { state: true },
    lease: { state: true },
    notices: { state: true },
    hasRenderer: { state: true },
  };

  declare connector: Connector | null;
  declare socketFactory: SocketFactory | null;
  declare touchDevice: boolean | null;
  declare readonly: boolean;
  declare collapsed: boolean;
  declare fontSize: number;
  declare lang: string;
  declare theme: ThemeName;
  declare screenReader: boolean;

  declare connectionState: ConnectionState;
  declare retryInMs: number | null;
  declare role: 'controller' | 'readonly' | null;
  declare roleReason: string | null;
  declare status: StatusFrame | null;
  declare lease: LeaseView;
  declare notices: ShownNotice[];
  declare hasRenderer: boolean;

  private connection: TerminalConnection | null = null;
  private connectionConnector: Connector | null = null;
  private unsubscribers: Array<() => void> = [];
  /** The xterm.js renderers on screen and off (renderer/renderer-stack.ts). */
  private readonly stack = new RendererStack({
    container: () => this.renderRoot?.querySelector<HTMLElement>('.xterm-host') ?? null,
    activeElement: () => (this.renderRoot as ShadowRoot | undefined)?.activeElement ?? null,
    createTerminal: (frame, wrapper) => this.createRenderer(frame, wrapper),
    ackTarget: () => this.connection,
    screenReader: () => this.screenReader,
    shown: (frame, term, how) => {
      this.fire('shared-terminal-screen', {
        generation: frame.generation,
        sequence: frame.sequence,
        historyLines: frame.historyLines,
        truncated: frame.truncated,
      } satisfies ScreenEventDetail);
      if (how !== 'in-place') this.revealCursor(term, how === 'swapped' ? { keepScrollback: true } : {});
    },
    changed: () => (this.hasRenderer = this.stack.term !== null),
  });
  /** The person's keys bring the cursor's line into view (cursor-line.ts). */
  private readonly inputReveal = new InputReveal((term) => this.revealCursor(term, { keepScrollback: false }));
  private readonly search = new SearchController(this, { term: () => this.term, root: () => this.renderRoot, dark: () => isDark(this) });
  private readonly menu = new SettingsMenuController(this, {
    root: () => this.renderRoot,
    reset: () => this.connection?.reset(),
    actions: {
      reconnect: () => this.reconnect(),
      clearView: () => this.clearView(),
      font: (step) => this.changeFont(step),
      fitWidth: () => void this.fitWidth(),
      toggleScreenReader: () => (this.screenReader = !this.screenReader),
    },
  });
  private readonly clipboard = new ClipboardController(this, {
    term: () => this.term,
    root: () => this.renderRoot,
    canPaste: () => !this.readonlyView && this.role === 'controller',
    denied: () => this.showNotice({ code: 'clipboard-denied', detail: null }),
  });
  /** The page's colour scheme, for theme="auto" (xterm's colours are set from script, not CSS). */
  private colorScheme: MediaQueryList | null = null;

  constructor() {
    super();
    this.connector = null;
    this.socketFactory = null;
    this.touchDevice = null;
    this.readonly = false;
    this.collapsed = false;
    this.fontSize = DEFAULT_FONT_SIZE;
    this.lang = '';
    this.theme = 'light';
    this.screenReader = false;
    this.connectionState = 'idle';
    this.retryInMs = null;
    this.role = null;
    this.roleReason = null;
    this.status = null;
    this.lease = { ...NO_LEASE };
    this.notices = [];
    this.hasRenderer = false;
  }

  // ---------------------------------------------------------------------------------------------- public API

  /** The renderer (an xterm.js Terminal) of the current generation, or null. For tests and diagnostics. */
  get renderer(): Terminal | null {
    return this.stack.term;
  }
  get generation(): number | null {
    return this.stack.generation;
  }
  /** The PTY geometry the server fixed; font changes never touch it. */
  get rows(): number | null {
    return this.connection?.rows ?? null;
  }
  get cols(): number | null {
    return this.connection?.cols ?? null;
  }
  /** Whether this view asks for a read-only connection (attribute, or a touch device). */
  get readonlyView(): boolean {
    return this.readonly || this.isTouch();
  }

  /** Drop the socket and attach again (the resume proof in memory keeps control). */
  reconnect(): void {
    if (this.connection) this.connection.reconnect();
    else this.syncConnection();
  }
  /** Clear the local renderer only; the shell and the server's screen are untouched. */
  clearView(): void {
    this.stack.leaveFloodScreen();
    this.term?.clear();
  }
  /** Put the keyboard focus into the terminal. */
  focusTerminal(): void {
    this.term?.focus();
  }

  // ---------------------------------------------------------------------------------------------- lifecycle

  override connectedCallback(): void {
    super.connectedCallback();
    if (typeof matchMedia === 'function') {
      this.colorScheme = matchMedia('(prefers-color-scheme: dark)');
      this.colorScheme.addEventListener('change', this.onColorScheme);
    }
    if (this.hasUpdated) this.syncConnection();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.colorScheme?.removeEventListener('change', this.onColorScheme);
    this.colorScheme = null;
    this.inputReveal.cancel();
    // Keep the proof in memory: moving the element in the page resumes control.
    this.connection?.stop();
  }

  // The connection follows the properties before rendering, so that the state it reports lands in the same
  // update (no second render scheduled from inside an update).
  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('connector') || changed.has('collapsed') || changed.has('socketFactory')) this.syncConnection();
    if (changed.has('readonly') || changed.has('touchDevice')) {
      this.connection?.setReadonly(this.readonlyView);
      this.syncStdin();
    }
  }

  /** theme="auto": the CSS follows the scheme by itself; xterm's colours are read again from it. */
  private onColorScheme = (): void => {
    if (this.theme !== 'auto') return;
    this.stack.leaveFloodScreen();
    for (const term of this.renderers) term.options.theme = xtermTheme(this);
  };

  protected override updated(changed: PropertyValues<this>): void {
    // The DOM rows follow a new font, theme or reader mode at once; the flood screen would only at its next catch-up.
    if (changed.has('fontSize') || changed.has('theme') || changed.has('screenReader')) this.stack.leaveFloodScreen();
    for (const term of this.renderers) {
      if (changed.has('fontSize')) term.options.fontSize = this.clampedFontSize();
      if (changed.has('screenReader')) term.options.screenReaderMode = this.screenReader;
      if (changed.has('theme')) term.options.theme = xtermTheme(this);
    }
    if (changed.has('collapsed') && !this.collapsed && this.term) this.term.refresh(0, this.term.rows - 1);
  }

  private syncConnection(): void {
    if (!this.isConnected) return;
    if (this.connection && (this.connectionConnector !== this.connector || !this.connector)) {
      this.teardownConnection();
    }
    if (!this.connector) return;
    if (!this.connection) {
      if (this.collapsed) return; // the shell starts at the first expansion
      this.createConnection(this.connector);
      this.connection!.start();
      return;
    }
    if (this.connection.state === 'stopped') this.connection.start();
  }

  private createConnection(connector: Connector): void {
    const factory = this.socketFactory;
    const connection = new TerminalConnection({
      connector,
      readonly: this.readonlyView,
      ...(factory ? { createSocket: factory } : {}),
    });
    this.connection = connection;
    this.connectionConnector = connector;
    this.unsubscribers = [
      connection.on('state', (event) => {
        this.connectionState = event.state;
        this.retryInMs = event.retryInMs;
        if (event.state === 'connected') this.notices = withoutTransient(this.notices);
        if (event.state === 'disposed') this.stack.dispose();
        if (event.state === 'failed' && event.closeCode === CloseCode.refused) {
          // Refused before any role: show none (the status line said Controller while it retried).
          this.role = null;
          this.roleReason = null;
          this.status = null;
        }
        this.fire('shared-terminal-connection', event);
      }),
      connection.on('snapshot', (frame) => this.stack.snapshot(frame)),
      connection.on('output', (frame) => this.stack.output(frame)),
      connection.on('role', (event) => {
        this.role = event.role;
        this.roleReason = event.reason;
        this.syncStdin();
        if (event.role === 'readonly') this.menu.dismiss();
        this.fire('shared-terminal-role', event);
      }),
      connection.on('status', (frame) => {
        this.status = frame;
        this.fire('shared-terminal-status', statusDetail(frame));
      }),
      connection.on('lease', (view) => {
        this.lease = view;
        this.fire('shared-terminal-lease', view);
      }),
      connection.on('notice', (notice) => this.showNotice(notice)),
      connection.on('generation', (event) => {
        this.fire('shared-terminal-generation', { ...event, rows: connection.rows, cols: connection.cols });
      }),
    ];
  }

  private teardownConnection(): void {
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.unsubscribers = [];
    this.connection?.dispose();
    this.connection = null;
    this.connectionConnector = null;
    this.stack.dispose();
    this.connectionState = 'idle';
    this.role = null;
    this.roleReason = null;
    this.status = null;
    this.lease = { ...NO_LEASE };
    this.notices = [];
  }

  // ---------------------------------------------------------------------------------------------- renderer

  /** Scroll the cursor's line into view (see cursor-line.ts). */
  private revealCursor(term: Terminal, options: { keepScrollback?: boolean } = {}): void {
    const container = this.renderRoot.querySelector<HTMLElement>('.viewport');
    if (container && term === this.term) revealCursorLine(container, term, options);
  }

  private get term(): Terminal | null {
    return this.stack.term;
  }
  private get renderers(): Terminal[] {
    return this.stack.renderers;
  }

  private syncStdin(): void {
    for (const term of this.renderers) term.options.disableStdin = this.readonlyView || this.role !== 'controller';
  }

  /** A renderer at the snapshot's size, with this element's options, addons and handlers, opened in `wrapper`. */
  private createRenderer(frame: SnapshotFrame, wrapper: HTMLElement): Terminal {
    const term = new Terminal({
      rows: frame.rows,
      cols: frame.cols,
      scrollback: frame.scrollbackLines,
      fontSize: this.clampedFontSize(),
      fontFamily: cssValue(this, '--st-font') || 'monospace',
      theme: xtermTheme(this),
      allowProposedApi: true,
      disableStdin: this.readonlyView || this.role !== 'controller',
      screenReaderMode: this.screenReader,
      cursorBlink: false,
      windowOptions: {},
    });
    term.loadAddon(new Unicode11Addon());
    term.unicode.activeVersion = '11';
    silenceQueryReplies(term);
    // Links open in a new tab that cannot reach back into this page.
    term.loadAddon(new WebLinksAddon((event, uri) => openLink(event, uri)));
    this.search.attach(term);
    term.attachCustomKeyEventHandler((event) => this.onRendererKey(event, term));
    term.open(wrapper);
    skipEmptySelectionRedraws(term);
    term.onData((data) => {
      if (term !== this.term) return;
      if (isFocusReport(data) && !this.clipboard.pasting) return;
      this.connection?.input(data);
      this.inputReveal.keyed(term);
    });
    return term;
  }

  private clampedFontSize(): number {
    return clampFontSize(this.fontSize);
  }

  private isTouch(): boolean {
    if (this.touchDevice !== null) return this.touchDevice;
    return typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
  }

  // ---------------------------------------------------------------------------------------------- actions

  /** The element's own `lang`, else the nearest ancestor's (the page's language). */
  private get t(): Messages {
    const inherited = this.parentElement?.closest<HTMLElement>('[lang]')?.lang ?? document.documentElement.lang;
    return messagesFor(resolveLocale(this.lang || inherited));
  }

  private fire<K extends keyof SharedTerminalEventDetails>(type: K, detail: SharedTerminalEventDetails[K]): void {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
  }

  private showNotice(notice: ViewNotice): void {
    const { list, shown } = withNotice(this.notices, notice);
    this.notices = list;
    this.fire('shared-terminal-notice', { code: notice.code, message: noticeText(this.t, shown) } satisfies NoticeEventDetail);
  }

  private dismiss(id: number): void {
    this.notices = this.notices.filter((n) => n.id !== id);
  }

  private toggleCollapsed(): void {
    this.collapsed = !this.collapsed;
    this.fire('shared-terminal-toggle', { collapsed: this.collapsed });
  }

  private changeFont(step: number): void {
    const next = Math.min(MAX_FONT_SIZE, Math.max(MIN_FONT_SIZE, this.clampedFontSize() + step));
    if (next === this.fontSize) return;
    this.fontSize = next;
    this.fire('shared-terminal-font-size', { fontSize: next });
  }

  /** The largest font size at which every column fits the panel (renderer/look.ts). */
  private async fitWidth(): Promise<void> {
    const viewport = this.renderRoot.querySelector<HTMLElement>('.viewport');
    const screenWidth = (): number => this.term?.element?.querySelector<HTMLElement>('.xterm-screen')?.getBoundingClientRect().width ?? 0;
    if (!viewport || !this.term?.element?.querySelector('.xterm-screen')) return;
    await fitFontSize(viewport, screenWidth, this.clampedFontSize(), async (size) => {
      if (size === this.fontSize) return;
      this.fontSize = size;
      await this.updateComplete;
      await new Promise((resolve) => requestAnimationFrame(resolve));
    });
    this.fire('shared-terminal-font-size', { fontSize: this.clampedFontSize() });
  }

  private onTakeover(): void {
    if (this.connection?.takeover()) this.term?.focus();
  }

  private onInterrupt(): void {
    this.connection?.interrupt();
  }

  // ---------------------------------------------------------------------------------------------- clipboard, search

  /** The terminal's own shortcuts (shortcuts.ts); every other key goes to xterm.js and on to the shell. */
  private onRendererKey(event: KeyboardEvent, term: Terminal): boolean {
    const mac = isMac();
    const action = shortcutFor(event, mac);
    if (!action) return true;
    // Cmd+C without a selection means nothing on macOS; Ctrl+Shift+C never reaches the shell as ^C.
    if (action === 'copy' && mac && !term.hasSelection()) return true;
    if (event.type === 'keydown') {
      if (action === 'copy') {
        event.preventDefault();
        if (term.hasSelection()) void this.clipboard.copy(term.getSelection());
      } else if (action === 'search') {
        event.preventDefault();
        void this.search.show();
      }
      // paste: left to the browser (its own paste needs no permission): it fills xterm.js's textarea, which
      // sends the text as typed (bracketed when the program asked for it).
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------- render

  protected override render(): TemplateResult {
    const t = this.t;
    // What the person may do is the connection's to say (one rule, not two that drift apart).
    const canTakeOver = !!this.connection?.canTakeOver;
    const canInterrupt = !!this.connection?.canInterrupt;
    const canReset = !!this.connection?.canReset;
    return html`
      <section part="panel" class="panel" aria-label=${t.terminal}>
        <div part="header" class="header">
          <button
            part="toggle"
            class="toggle"
            aria-expanded=${String(!this.collapsed)}
            aria-controls="body"
            title=${this.collapsed ? t.expand : t.collapse}
            @click=${this.toggleCollapsed}
          >
            <span class="chevron" aria-hidden="true">▸</span> ${t.terminal}
          </button>
          ${statusLine(
            {
              role: this.role,
              roleReason: this.roleReason,
              readonlyView: this.readonlyView,
              touch: this.isTouch(),
              connectionState: this.connectionState,
              retryInMs: this.retryInMs,
              status: this.status,
              lease: this.lease,
            },
            t,
          )}
          <div class="actions" @focusout=${this.menu.onActionsFocusOut}>
            <button part="takeover-button" class="takeover ${canTakeOver ? 'primary' : ''}" ?disabled=${!canTakeOver} @click=${this.onTakeover}>
              ${t.takeOver}
            </button>
            <button part="interrupt-button" class="interrupt" ?disabled=${!canInterrupt} @click=${this.onInterrupt}>${t.interrupt}</button>
            <button
              part="settings-button"
              class="settings"
              aria-haspopup="menu"
              aria-expanded=${String(this.menu.state === 'menu')}
              aria-controls="settings-menu"
              aria-label=${t.settings}
              title=${t.settings}
              @click=${this.menu.onGearClick}
              @keydown=${this.menu.onGearKey}
            >
              <span aria-hidden="true">⚙</span>
            </button>
            ${this.menu.renderMenu({ fontSize: this.clampedFontSize(), hasRenderer: this.hasRenderer, screenReader: this.screenReader, canReset }, t)}
          </div>
        </div>
        ${this.menu.renderConfirm(t)}
        ${noticeList(t, this.notices, { dismiss: (id) => this.dismiss(id), reconnect: () => this.reconnect() })}
        ${this.search.open && !this.collapsed ? this.search.render(t) : nothing}
        <div part="body" id="body" class="body ${this.collapsed ? 'collapsed' : ''}" aria-hidden=${String(this.collapsed)}>
          <div part="viewport" class="viewport">
            ${this.hasRenderer ? nothing : html`<div class="placeholder">${t.connection[this.connectionState]}…</div>`}
            <div
              part="terminal"
              class="xterm-host"
              @paste=${{ handleEvent: this.clipboard.onPasteCapture, capture: true }}
              @contextmenu=${this.clipboard.onContextMenu}
            ></div>
          </div>
        </div>
        ${this.clipboard.render(t) ?? nothing}
      </section>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'shared-terminal': SharedTerminalElement;
  }
}
