/**
 * The input gate: owns the lease as this view sees it and the keys a person types before it is granted.
 * At an idle prompt the first key asks for a lease (begin); keys typed while it is requested or queued are
 * held and leave once, together, when it is granted on a live socket. After a reconnect, held keys and a
 * pending lease survive only if the server announced the lease again before its first status frame;
 * otherwise they are dropped with a notice, never sent late. The first key and the held keys leave
 * together, so together they stay within the server's per-frame input limit.
 */
import { utf8ByteLength, type LeaseFrame, type RoleFrame, type StatusFrame } from '@shared-terminal/server/protocol';
import type { ViewNoticeCode } from './notices.ts';

/** none: no lease. requested: a begin or takeover was sent, no answer yet. queued/granted: the server said so. */
export type LeaseState = 'none' | 'requested' | 'queued' | 'granted';

export interface LeaseView {
  state: LeaseState;
  origin: 'idle' | 'takeover' | null;
  leaseId: number | null;
  /** Why the last lease ended (set with state none after a revoke). */
  reason: LeaseFrame['reason'] | null;
}

/**
 * Where the current socket's attach stands. attaching: no status frame yet. lease-announced: a lease frame
 * came before the first status frame (held keys may survive). attached: the first status frame came.
 */
export type AttachPhase = 'attaching' | 'lease-announced' | 'attached';

/** What the connection knows that the gate's rules read. */
export interface GateView {
  role: RoleFrame['role'] | null;
  readonlyRequested: boolean;
  connected: boolean;
  status: StatusFrame | null;
}

/** send: an input frame now. begin: a begin frame with these keys (then `requested('idle')`). held: kept for the grant. */
export type InputDecision =
  { kind: 'send'; input: string } | { kind: 'begin'; input: string } | { kind: 'held' } | { kind: 'refused'; notice: ViewNoticeCode };

export interface GateEvents {
  lease(view: LeaseView): void;
  notice(code: ViewNoticeCode): void;
}

/** Why the lease is forgotten: the server's revoke reason, or a local cause (the terminal went, a reset). */
export type ForgetReason = LeaseView['reason'] | 'disposed' | 'reset' | null;

/** The input a frame may carry before the role frame says the server's limit. */
const DEFAULT_FRAME_LIMIT = 65536;

export const NO_LEASE: Readonly<LeaseView> = Object.freeze({ state: 'none', origin: null, leaseId: null, reason: null });

export class InputGate {
  private readonly events: GateEvents;
  private view: LeaseView = { ...NO_LEASE };
  private attach: AttachPhase = 'attaching';
  /** Bytes of the current lease's first key plus the keys held for its grant (see the header). */
  private leaseBytes = 0;
  /** Keys typed before the grant, in order. */
  private held = '';
  private inputLimit = 0;

  constructor(events: GateEvents) {
    this.events = events;
  }

  get lease(): LeaseView {
    return { ...this.view };
  }
  get phase(): AttachPhase {
    return this.attach;
  }
  get heldInput(): string {
    return this.held;
  }
  get bytesUsed(): number {
    return this.leaseBytes;
  }
  get maxInputBytes(): number {
    return this.inputLimit;
  }

  /** The server's per-frame input limit, from its role frame. */
  setLimit(maxInputBytes: number): void {
    this.inputLimit = maxInputBytes;
  }

  /** Keys are live: attached on this socket (its first status frame came) as the controller. */
  live(view: GateView): boolean {
    return view.connected && this.attach === 'attached' && view.role === 'controller';
  }

  /** Keys from the renderer: what to do with them. */
  input(data: string, view: GateView): InputDecision {
    if (view.role === 'readonly' || (view.readonlyRequested && view.role === null)) return { kind: 'refused', notice: 'readonly' };
    const lease = this.view.state;
    const live = this.live(view);
    if (lease === 'granted' && live) {
      if (utf8ByteLength(data) > this.frameLimit()) return { kind: 'refused', notice: 'input-limit' };
      return { kind: 'send', input: data };
    }
    if (lease !== 'none') {
      // Requested, queued, or granted but the socket is away: hold the keys for the grant.
      if (this.held.length === 0 && lease === 'granted') this.leaseBytes = 0; // a fresh batch for a granted lease
      if (!this.count(data)) return { kind: 'refused', notice: 'input-limit' };
      this.held += data;
      return { kind: 'held' };
    }
    if (!live) return { kind: 'refused', notice: 'not-connected' };
    const s = view.status;
    if (!queueIdle(s)) {
      if (s?.queueStatus === 'blocked') return { kind: 'refused', notice: 'blocked' };
      if (s?.queueStatus === 'exited' || s?.process.kind === 'exited') return { kind: 'refused', notice: 'exited' };
      return { kind: 'refused', notice: 'busy' };
    }
    this.leaseBytes = 0;
    if (!this.count(data)) return { kind: 'refused', notice: 'input-limit' };
    return { kind: 'begin', input: data };
  }

  /** A begin (origin idle) or a takeover was sent: the lease is requested. A takeover starts a fresh count. */
  requested(origin: 'idle' | 'takeover'): void {
    if (origin === 'takeover') this.leaseBytes = 0;
    this.set({ state: 'requested', origin, leaseId: null, reason: null });
  }

  /** Held keys to send now (once), if the lease is granted and the socket live; else null. */
  takeHeld(socketLive: boolean): string | null {
    if (this.held.length === 0 || this.view.state !== 'granted' || !socketLive) return null;
    const keys = this.held;
    this.held = '';
    return keys;
  }

  /** A new socket: the lease must be announced again before its first status frame. */
  attaching(): void {
    this.attach = 'attaching';
  }

  /** A status frame: the first one on a socket ends the attach and drops a lease it did not re-announce. */
  status(): void {
    if (this.attach === 'attached') return;
    const announced = this.attach === 'lease-announced';
    this.attach = 'attached';
    if (!announced && this.view.state !== 'none') this.forget(null);
  }

  leaseFrame(frame: LeaseFrame): void {
    if (this.attach === 'attaching') this.attach = 'lease-announced';
    if (frame.state === 'revoked') {
      this.forget(frame.reason ?? null);
      return;
    }
    this.set({ state: frame.state, origin: frame.origin, leaseId: frame.leaseId, reason: null });
  }

  /** The lease is gone (revoked, reset, disposed, role lost): held keys are dropped with a notice. */
  forget(reason: ForgetReason): void {
    if (this.held.length > 0) {
      this.held = '';
      this.events.notice('discarded-input');
    }
    this.leaseBytes = 0;
    if (this.view.state === 'none' && reason === null) return;
    const leaseReason = reason === 'disposed' || reason === 'reset' ? null : reason;
    if (this.view.state !== 'none' || leaseReason !== this.view.reason)
      this.set({ state: 'none', origin: null, leaseId: null, reason: leaseReason });
  }

  /** The view is disposed: forget the keys without a notice, and the lease. */
  clear(): void {
    this.held = '';
    this.set({ ...NO_LEASE });
  }

  /** The largest input one frame may carry (a bigger one would fail validation and close the socket). */
  private frameLimit(): number {
    return this.inputLimit > 0 ? this.inputLimit : DEFAULT_FRAME_LIMIT;
  }

  /** Count keys against the frame limit; refuse what would go over. */
  private count(data: string): boolean {
    const bytes = utf8ByteLength(data);
    if (this.leaseBytes + bytes > this.frameLimit()) return false;
    this.leaseBytes += bytes;
    return true;
  }

  private set(view: LeaseView): void {
    const old = this.view;
    this.view = view;
    if (old.state !== view.state || old.leaseId !== view.leaseId || old.origin !== view.origin || old.reason !== view.reason)
      this.events.lease({ ...view });
  }
}

/** The queue is completely idle: a first key may begin a lease. */
export function queueIdle(status: StatusFrame | null): boolean {
  return (
    !!status && status.queueStatus === 'ready' && status.holder === null && status.pendingCount === 0 && status.process.kind === 'running'
  );
}
