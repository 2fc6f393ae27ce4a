/**
 * The element's menus and its one dialog: the settings menu (gear), the right-click menu (Copy, Paste) and
 * the Reset Terminal confirmation. Templates and keyboard rules only (the WAI-ARIA menu pattern: arrows,
 * Home and End move, Escape closes and returns focus, Tab closes and moves on); the controllers own the state.
 */
import { html, type TemplateResult } from 'lit';
import type { Messages } from '../i18n.ts';
import { MAX_FONT_SIZE, MIN_FONT_SIZE } from '../renderer/look.ts';

/** What a key did in an open menu: moved the focus, asked to close it (escape: focus back to its button). */
export type MenuKey = 'moved' | 'escape' | 'tab' | 'other';

/** Apply the menu keys to `items` (the enabled items, in order). */
export function menuKey(event: KeyboardEvent, items: readonly HTMLElement[]): MenuKey {
  const index = items.indexOf(event.composedPath()[0] as HTMLElement);
  const target = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1 }[event.key];
  if (target !== undefined) {
    event.preventDefault();
    items[(target + items.length) % items.length]?.focus();
    return 'moved';
  }
  if (event.key === 'Escape') {
    event.preventDefault();
    return 'escape';
  }
  return event.key === 'Tab' ? 'tab' : 'other';
}

export interface SettingsMenuView {
  open: boolean;
  fontSize: number;
  hasRenderer: boolean;
  screenReader: boolean;
  canReset: boolean;
}

/** Menu actions; `close` false keeps the menu open (font steps, the reader toggle). */
export interface SettingsMenuActions {
  run(action: () => void, close?: boolean): void;
  reconnect(): void;
  clearView(): void;
  font(step: number): void;
  fitWidth(): void;
  toggleScreenReader(): void;
  askReset(): void;
  keydown(event: KeyboardEvent): void;
}

export function settingsMenu(v: SettingsMenuView, t: Messages, a: SettingsMenuActions): TemplateResult {
  const size = v.fontSize;
  return html`<div part="settings-menu" id="settings-menu" class="menu" role="menu" aria-label=${t.settings} ?hidden=${!v.open} @keydown=${a.keydown}>
    <button role="menuitem" tabindex="-1" class="reconnect" @click=${() => a.run(a.reconnect)}>${t.reconnect}</button>
    <button role="menuitem" tabindex="-1" class="clear" ?disabled=${!v.hasRenderer} @click=${() => a.run(a.clearView)}>${t.clearView}</button>
    <div class="font-row" role="group" aria-label=${t.fontSize(size)}>
      <span aria-hidden="true">${t.fontSize(size)}</span>
      <button
        role="menuitem"
        tabindex="-1"
        class="font-down"
        aria-label=${t.fontDownLabel}
        title=${t.fontDownLabel}
        ?disabled=${size <= MIN_FONT_SIZE}
        @click=${() => a.run(() => a.font(-1), false)}
      >
        ${t.fontDown}
      </button>
      <button
        role="menuitem"
        tabindex="-1"
        class="font-up"
        aria-label=${t.fontUpLabel}
        title=${t.fontUpLabel}
        ?disabled=${size >= MAX_FONT_SIZE}
        @click=${() => a.run(() => a.font(1), false)}
      >
        ${t.fontUp}
      </button>
    </div>
    <button role="menuitem" tabindex="-1" class="fit-width" ?disabled=${!v.hasRenderer} @click=${() => a.run(a.fitWidth)}>${t.fitWidth}</button>
    <button
      role="menuitemcheckbox"
      tabindex="-1"
      class="screen-reader"
      aria-checked=${String(v.screenReader)}
      @click=${() => a.run(a.toggleScreenReader, false)}
    >
      ${v.screenReader ? '✓ ' : ''}${t.screenReader}
    </button>
    <hr role="separator" />
    <button role="menuitem" tabindex="-1" class="reset danger" ?disabled=${!v.canReset} @click=${a.askReset}>${t.resetTerminal}</button>
  </div>`;
}

export interface ContextMenuActions {
  copy(): void;
  paste(): void;
  keydown(event: KeyboardEvent): void;
  focusout(event: FocusEvent): void;
}

export function contextMenu(
  at: { x: number; y: number },
  v: { canCopy: boolean; canPaste: boolean },
  t: Messages,
  a: ContextMenuActions,
): TemplateResult {
  return html`<div
    part="context-menu"
    class="context-menu"
    role="menu"
    aria-label=${t.contextMenu}
    style="left: ${at.x}px; top: ${at.y}px"
    @keydown=${a.keydown}
    @focusout=${a.focusout}
  >
    <button role="menuitem" tabindex="-1" class="context-copy" ?disabled=${!v.canCopy} @click=${a.copy}>${t.copy}</button>
    <button role="menuitem" tabindex="-1" class="context-paste" ?disabled=${!v.canPaste} @click=${a.paste}>${t.paste}</button>
  </div>`;
}

export function confirmDialog(t: Messages, a: { reset(): void; cancel(): void }): TemplateResult {
  return html`<div
    part="confirm"
    class="confirm"
    role="alertdialog"
    aria-labelledby="confirm-title"
    aria-describedby="confirm-body"
    @keydown=${(event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.preventDefault();
        a.cancel();
      }
    }}
  >
    <h2 id="confirm-title">${t.confirmTitle}</h2>
    <p id="confirm-body">${t.confirmBody}</p>
    <div class="buttons">
      <button class="confirm-reset danger primary" @click=${a.reset}>${t.confirmReset}</button>
      <button class="cancel" @click=${a.cancel}>${t.cancel}</button>
    </div>
  </div>`;
}
