/**
 * The status line: "Controller | connected | ready | ..." (or "Read only (why)"). Queue facts show only
 * while attached (between connections they would be stale), and the role word only once the server gave
 * one (or the view asked to be read only): never a role it lacks.
 */
import { html, nothing, type TemplateResult } from 'lit';
import type { StatusFrame } from '@shared-terminal/server/protocol';
import type { ConnectionState, LeaseView } from '../connection.ts';
import type { Messages } from '../i18n.ts';

export interface StatusLineView {
  role: 'controller' | 'readonly' | null;
  roleReason: string | null;
  readonlyView: boolean;
  touch: boolean;
  connectionState: ConnectionState;
  retryInMs: number | null;
  status: StatusFrame | null;
  lease: LeaseView;
}

/** A model operation is queued behind the person who holds input (it waits until they are done). */
export function modelWaiting(status: StatusFrame): boolean {
  return status.holder === 'human' && status.pendingKinds.includes('model-send');
}

/** Detail of `shared-terminal-status`: the server's status frame without its envelope, and modelWaiting. */
export interface StatusEventDetail extends Omit<StatusFrame, 'v' | 'type'> {
  /** A model operation waits behind the person who holds input. */
  modelWaiting: boolean;
}

export function statusDetail(frame: StatusFrame): StatusEventDetail {
  return {
    generation: frame.generation,
    process: frame.process,
    queueStatus: frame.queueStatus,
    holder: frame.holder,
    pendingCount: frame.pendingCount,
    pendingKinds: frame.pendingKinds,
    takeoverId: frame.takeoverId,
    inputWait: frame.inputWait,
    modelWaiting: modelWaiting(frame),
  };
}

function readonlyReason(v: StatusLineView, t: Messages): string | undefined {
  if (v.touch && v.roleReason !== 'controller-busy' && v.roleReason !== 'invalid-resume') return t.roleReason.touch;
  return v.roleReason ? t.roleReason[v.roleReason as keyof Messages['roleReason']] : undefined;
}

export function statusLine(v: StatusLineView, t: Messages): TemplateResult {
  const s = v.status;
  const readonly = v.role === 'readonly' || (v.role === null && v.readonlyView);
  const showRole = v.role !== null || v.readonlyView;
  const reason = readonly ? readonlyReason(v, t) : undefined;
  const mine = v.lease.state === 'granted';
  const retry = v.connectionState === 'reconnecting' && v.retryInMs ? ` (${t.retryIn(Math.ceil(v.retryInMs / 1000))})` : '';
  const segments: TemplateResult[] = [
    html`<span part="connection" class="connection state-${v.connectionState}">${t.connection[v.connectionState]}${retry}</span>`,
  ];
  if (s && v.connectionState === 'connected') {
    segments.push(html`<span class="queue-status">${t.queueStatus[s.queueStatus]}</span>`);
    segments.push(html`<span class="holder">${t.holder(s.holder, mine)}</span>`);
    segments.push(html`<span class="queue">${t.queued(s.pendingCount)}</span>`);
    if (modelWaiting(s)) segments.push(html`<span class="waiting">${t.modelWaiting}</span>`);
    if (s.inputWait)
      segments.push(
        html`<span class="input-wait">${t.inputWait(s.inputWait.command, s.inputWait.secret, s.inputWait.busy === true)}</span>`,
      );
  }
  if (v.lease.state !== 'none' && !mine) segments.push(html`<span class="lease">${t.lease[v.lease.state]}</span>`);
  // Separators are text with spaces around them, so the line reads (and copies) as "Controller | connected | ...".
  const role = showRole
    ? html`<span part="role" class="role">${readonly ? t.readOnly : t.controller}</span>${reason ? html` <span class="reason">(${reason})</span>` : nothing}`
    : nothing;
  return html`<div part="status" class="status" role="status" aria-live="polite">${role}${segments.map(
    (segment, i) => html`${i > 0 || showRole ? html`<span class="sep"> | </span>` : nothing}${segment}`,
  )}</div>`;
}
