/**
 * The notice list: which notices show (at most MAX_NOTICES, one per code, newest last), which are errors,
 * which carry a Reconnect button, and which go away by themselves once the view is connected again.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { ViewNotice, ViewNoticeCode } from '../connection.ts';
import type { Messages } from '../i18n.ts';

export interface ShownNotice {
  id: number;
  code: ViewNoticeCode;
  detail: string | null;
}

const MAX_NOTICES = 4;
const ERROR_NOTICES: ReadonlySet<ViewNoticeCode> = new Set([
  'protocol-error',
  'disposed',
  'blocked',
  'exited',
  'operation-failed',
  'connect-failed',
  'refused',
]);
/** Notices that describe a passing condition: they go away once the view is connected again. */
const TRANSIENT_NOTICES: ReadonlySet<ViewNoticeCode> = new Set([
  'reconnecting',
  'connect-failed',
  'not-connected',
  'protocol-error',
  'disposed',
]);
/** Notices whose way out is Reconnect: they carry the button. */
const RECONNECT_NOTICES: ReadonlySet<ViewNoticeCode> = new Set(['protocol-error', 'controller-available', 'connect-failed', 'refused']);

let nextNoticeId = 1;

/** The list with `notice` added: it replaces one of its code, and the oldest go past the limit. */
export function withNotice(list: readonly ShownNotice[], notice: ViewNotice): { list: ShownNotice[]; shown: ShownNotice } {
  const shown: ShownNotice = { id: nextNoticeId++, code: notice.code, detail: notice.detail };
  return { list: [...list.filter((n) => n.code !== notice.code), shown].slice(-MAX_NOTICES), shown };
}

/** The list once connected again: passing conditions are over. */
export function withoutTransient(list: readonly ShownNotice[]): ShownNotice[] {
  return list.filter((n) => !TRANSIENT_NOTICES.has(n.code));
}

export function noticeText(t: Messages, notice: ShownNotice): string {
  const text = (t.notice[notice.code] as string | undefined) ?? notice.detail ?? notice.code;
  return (notice.code === 'connect-failed' || notice.code === 'refused') && notice.detail ? `${text} (${notice.detail})` : text;
}

export function noticeList(
  t: Messages,
  list: readonly ShownNotice[],
  actions: { dismiss(id: number): void; reconnect(): void },
): TemplateResult {
  return html`<div part="notices" class="notices" role="log" aria-live="polite">
    ${list.map(
      (n) => html`<div part="notice" class="notice ${ERROR_NOTICES.has(n.code) ? 'error' : ''}" data-code=${n.code}>
        <span>${noticeText(t, n)}</span>
        ${
          RECONNECT_NOTICES.has(n.code)
            ? html`<button class="notice-reconnect" @click=${() => (actions.dismiss(n.id), actions.reconnect())}>${t.reconnect}</button>`
            : nothing
        }
        <button class="notice-dismiss" aria-label=${t.dismiss} title=${t.dismiss} @click=${() => actions.dismiss(n.id)}>×</button>
      </div>`,
    )}
  </div>`;
}
