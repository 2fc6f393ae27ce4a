/**
 * Copy, paste and the right-click menu as a controller (state of its own; the host re-renders when it
 * changes). Copy writes the selection to the clipboard; Paste reads it (the browser may ask, or refuse:
 * then a notice) and hands it to xterm.js, which sends it as typed (bracketed when the program asked for
 * it). While a paste goes in, `pasting` is true: pasted text is a person's input even if it looks like a
 * focus report.
 */
import type { ReactiveControllerHost, TemplateResult } from 'lit';
import type { Terminal } from '@xterm/xterm';
import type { Messages } from '../i18n.ts';
import { contextMenu, menuKey } from '../views/menus.ts';

export interface ClipboardContext {
  /** The renderer on screen. */
  term(): Terminal | null;
  root(): ParentNode;
  /** Whether this view may type (controller, not read only). */
  canPaste(): boolean;
  denied(): void;
}

const ITEMS = '.context-menu [role="menuitem"]:not([disabled])';

export class ClipboardController {
  /** Where the context menu is open, or null. */
  menuAt: { x: number; y: number } | null = null;
  pasting = false;
  private readonly host: ReactiveControllerHost;
  private readonly context: ClipboardContext;

  constructor(host: ReactiveControllerHost, context: ClipboardContext) {
    this.host = host;
    this.context = context;
  }

  async copy(text: string): Promise<void> {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      this.context.denied();
    }
  }

  async paste(): Promise<void> {
    const term = this.context.term();
    if (!term) return;
    let text: string;
    try {
      text = await navigator.clipboard.readText();
    } catch {
      this.context.denied();
      return;
    }
    if (term !== this.context.term()) return;
    this.pasting = true;
    term.paste(text);
    this.pasting = false;
    term.focus();
  }

  /** A paste event reached the renderer (the browser's own paste): it counts as typed until the next microtask. */
  readonly onPasteCapture = (): void => {
    this.pasting = true;
    queueMicrotask(() => (this.pasting = false));
  };

  readonly onContextMenu = (event: MouseEvent): void => {
    if (!this.context.term()) return;
    event.preventDefault();
    this.setMenu({ x: event.clientX, y: event.clientY });
    void this.host.updateComplete.then(() => this.context.root().querySelector<HTMLElement>(ITEMS)?.focus());
  };

  render(t: Messages): TemplateResult | null {
    if (!this.menuAt) return null;
    return contextMenu(this.menuAt, { canCopy: !!this.context.term()?.hasSelection(), canPaste: this.context.canPaste() }, t, {
      copy: () => {
        const selection = this.context.term()?.getSelection() ?? '';
        this.closeMenu(true);
        if (selection) void this.copy(selection);
      },
      paste: () => {
        this.closeMenu(true);
        void this.paste();
      },
      keydown: (event) => {
        const key = menuKey(event, [...this.context.root().querySelectorAll<HTMLElement>(ITEMS)]);
        if (key === 'escape' || key === 'tab') this.closeMenu(key === 'escape');
      },
      focusout: (event) => {
        const next = event.relatedTarget as Node | null;
        const menu = this.context.root().querySelector('.context-menu');
        if (!next || !menu?.contains(next)) this.setMenu(null);
      },
    });
  }

  private closeMenu(returnFocus: boolean): void {
    this.setMenu(null);
    if (returnFocus) this.context.term()?.focus();
  }

  private setMenu(at: { x: number; y: number } | null): void {
    this.menuAt = at;
    this.host.requestUpdate();
  }
}
