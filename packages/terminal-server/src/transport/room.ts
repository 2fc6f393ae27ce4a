/**
 * One owner's browser room: its views, its controller seat, and what human frames do.
 *
 * The seat is the single controller of an owner. It belongs to whoever holds its resume proof (32 random
 * bytes; only the digest is kept; a new proof on every claim), outlives its socket for disconnectGraceMs
 * and keeps any human lease meanwhile. When grace runs out the lease is abandoned (SIGINT recovery, like
 * a cancelled model send) and the seat is free: the next view to attach takes it.
 *
 * Human frames of the seat run one after another on the seat's chain, so keys reach the terminal in the
 * order they were typed even though starting a lease is asynchronous.
 */
import type { WebSocket } from 'ws';
import type { TerminalConfig } from '../config.ts';
import type { HumanSession, HumanSettled } from '../hub/human-session.ts';
import type { OwnerState, OwnerTerminal } from '../hub/owner.ts';
import type { Clock } from '../time.ts';
import type { OutputEvent } from '../terminal/generation.ts';
import {
  CloseCode,
  PROTOCOL_VERSION,
  READONLY_FRAME_TYPES,
  parseClientFrame,
  utf8ByteLength,
  type ClientFrame,
  type LeaseFrame,
  type RoleReason,
  type StatusFrame,
} from '../protocol/index.ts';
import { CLOSE_REASONS, NOTICES, noticeFor } from './messages.ts';
import { digestOf, newSecret, sameDigest } from './secrets.ts';
import type { TokenStore } from './tokens.ts';
import { type CloseKind, View, type ViewHost } from './view.ts';

export interface RoomContext {
  config: TerminalConfig;
  clock: Clock;
  tokens: TokenStore;
  nextViewId(): number;
  humanSettled(event: HumanSettled): void;
  /** The owner was disposed: forget the room. */
  gone(room: OwnerRoom): void;
}

interface Seat {
  proofDigest: string;
  /**
   * The proof that claimed the seat last, still valid while its successor may not have reached the page:
   * the new proof travels in the role frame, after the snapshot, and a connection that drops before it
   * arrives leaves the page with this one. It stops being valid once the page shows it has the new one
   * (it acks output sent after the role frame, or resumes with it).
   */
  previousDigest: string | undefined;
  /** The sequence of the snapshot the role frame followed: an ack past it proves the role arrived. */
  roleSequence: number;
  /** The page showed it holds the current proof (see confirmProof). */
  proofConfirmed: boolean;
  view: View | undefined;
  lease: HumanSession | undefined;
  graceTimer: unknown;
  chain: Promise<void>;
}

type MutatingFrame = Exclude<ClientFrame, { type: 'ack' | 'resync' | 'ping' }>;

export class OwnerRoom implements ViewHost {
  readonly owner: OwnerTerminal;
  readonly ownerId: string;
  /** Bumped by every reset and by disposal: tokens carry the epoch they were issued in. */
  epoch = 0;
  readonly views = new Set<View>();
  private seat: Seat | undefined;
  private readonly context: RoomContext;
  private readonly unsubscribe: () => void;
  private shuttingDown = false;

  constructor(owner: OwnerTerminal, context: RoomContext) {
    this.owner = owner;
    this.ownerId = owner.ownerId;
    this.context = context;
    const onOutput = (event: OutputEvent) => {
      for (const view of this.views) view.pushOutput(event);
    };
    const onState = (state: OwnerState) => {
      for (const view of this.views) {
        const frame = this.statusFrame(view, state);
        if (frame) view.sendStatus(frame);
      }
    };
    const onReset = (event: { generation: number }) => this.onReset(event.generation);
    const onDisposed = () => this.onDisposed();
    const onSettled = (event: HumanSettled) => this.context.humanSettled(event);
    owner.on('output', onOutput);
    owner.on('state', onState);
    owner.on('reset', onReset);
    owner.on('disposed', onDisposed);
    owner.on('human-settled', onSettled);
    this.unsubscribe = () => {
      owner.off('output', onOutput);
      owner.off('state', onState);
      owner.off('reset', onReset);
      owner.off('disposed', onDisposed);
      owner.off('human-settled', onSettled);
    };
  }

  get hasController(): boolean {
    return this.seat !== undefined;
  }

  // ------------------------------------------------------------------ attach

  /** A socket that passed the fence and spent a valid token: attach it. */
  async attach(ws: WebSocket, options: { readonly: boolean; resume: string | undefined; epoch: number }): Promise<void> {
    const view = new View({
      id: this.context.nextViewId(),
      ownerId: this.ownerId,
      ws,
      host: this,
      now: this.context.clock.now(),
      scrollbackLines: this.context.config.scrollbackLines,
    });
    this.views.add(view);
    ws.on('message', (data, isBinary) => {
      view.lastSeen = this.context.clock.now();
      if (isBinary) {
        view.close(CloseCode.protocolError, 'protocol', CLOSE_REASONS.binary);
        return;
      }
      const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      view.receive(bytes.toString('utf8'));
    });
    ws.on('pong', () => {
      view.lastSeen = this.context.clock.now();
    });
    ws.on('close', (code: number) => view.socketClosed(code));
    ws.on('error', () => undefined);

    let generation;
    try {
      generation = await this.owner.ensure();
    } catch (error) {
      if (this.owner.isDisposed) view.close(CloseCode.disposed, 'lifecycle', CLOSE_REASONS.disposed);
      else
        view.close(CloseCode.serverError, 'lifecycle', CLOSE_REASONS.attachFailed(error instanceof Error ? error.message : String(error)));
      return;
    }
    if (view.closed) return;
    if (this.epoch !== options.epoch || this.owner.generation !== generation) {
      view.close(CloseCode.reset, 'lifecycle', CLOSE_REASONS.reset);
      return;
    }
    view.bind(generation);
    await view.refresh({ reason: 'attach', afterSnapshot: () => this.claim(view, options) });
  }

  /** Decide the new view's role, right after its first snapshot went out. */
  private claim(view: View, options: { readonly: boolean; resume: string | undefined }): void {
    const maxInputBytes = this.context.config.maxInputBytes;
    const readonly = (reason: RoleReason) =>
      view.sendRole({ v: PROTOCOL_VERSION, type: 'role', generation: view.generation ?? 0, role: 'readonly', reason, maxInputBytes });
    if (options.readonly) return readonly('readonly-requested');
    const seat = this.seat;
    let reason: RoleReason;
    const presented = options.resume !== undefined ? digestOf(options.resume) : undefined;
    if (!seat) {
      this.seat = {
        proofDigest: '',
        previousDigest: undefined,
        roleSequence: 0,
        proofConfirmed: false,
        view,
        lease: undefined,
        graceTimer: undefined,
        chain: Promise.resolve(),
      };
      reason = 'granted';
    } else if (
      presented !== undefined &&
      (sameDigest(presented, seat.proofDigest) || (seat.previousDigest !== undefined && sameDigest(presented, seat.previousDigest)))
    ) {
      // What the page holds stays valid until it shows it got the proof this claim sends.
      seat.previousDigest = presented;
      const previous = seat.view;
      seat.view = view;
      this.clearGrace(seat);
      // The same client on a newer socket (its old one may not have closed yet): the old one goes.
      if (previous && previous !== view) previous.close(CloseCode.normal, 'moved', CLOSE_REASONS.moved);
      reason = 'resumed';
    } else {
      return readonly(options.resume !== undefined ? 'invalid-resume' : 'controller-busy');
    }
    const proof = newSecret();
    this.seat!.proofDigest = digestOf(proof);
    this.seat!.roleSequence = view.sentSequence;
    this.seat!.proofConfirmed = false;
    view.sendRole({
      v: PROTOCOL_VERSION,
      type: 'role',
      generation: view.generation ?? 0,
      role: 'controller',
      reason,
      resume: proof,
      maxInputBytes,
    });
    const lease = this.seat!.lease;
    if (lease && !lease.closed) view.sendEssential(this.leaseFrame(view, lease, 'granted'));
  }

  // ------------------------------------------------------------------ ViewHost

  status(view: View): StatusFrame | undefined {
    return this.statusFrame(view, this.owner.state());
  }

  private statusFrame(view: View, state: OwnerState): StatusFrame | undefined {
    if (view.generation === undefined || state.generation !== view.generation) return undefined;
    const status = state.status;
    return {
      v: PROTOCOL_VERSION,
      type: 'status',
      generation: view.generation,
      process: status.kind === 'running' ? { kind: 'running' } : { kind: 'exited', exitCode: status.exitCode, signal: status.signal },
      queueStatus: state.queueStatus,
      holder: state.holder,
      pendingCount: state.pendingCount,
      pendingKinds: [...state.pendingKinds],
      takeoverId: state.takeoverId,
      inputWait: state.inputWait ? inputWaitFrame(state.inputWait) : null,
    };
  }

  frame(view: View, text: string): void {
    const parsed = parseClientFrame(text, { maxInputBytes: Number.MAX_SAFE_INTEGER });
    if (!parsed.ok) {
      view.close(CloseCode.protocolError, 'protocol', parsed.error);
      return;
    }
    const frame = parsed.frame;
    if (view.role !== 'controller' && !READONLY_FRAME_TYPES.has(frame.type)) {
      view.close(CloseCode.protocolError, 'protocol', CLOSE_REASONS.readonly);
      return;
    }
    switch (frame.type) {
      case 'ping':
        view.sendPong(frame.t);
        return;
      case 'resync':
        view.requestResync();
        return;
      case 'ack':
        if (frame.generation === view.generation) {
          view.ack(frame.sequence);
          this.confirmProof(view, frame.sequence);
        } else view.sendNotice('stale-generation', NOTICES.stale(frame.generation, view.generation ?? 0));
        return;
      default:
        break;
    }
    const seat = this.seat;
    if (!seat || seat.view !== view) {
      view.close(CloseCode.protocolError, 'protocol', CLOSE_REASONS.readonly);
      return;
    }
    if (frame.generation !== view.generation) {
      view.sendNotice('stale-generation', NOTICES.stale(frame.generation, view.generation ?? 0));
      return;
    }
    if ((frame.type === 'begin' || frame.type === 'input') && utf8ByteLength(frame.input) > this.context.config.maxInputBytes) {
      view.sendNotice('input-limit', NOTICES.overCap(utf8ByteLength(frame.input), this.context.config.maxInputBytes));
      return;
    }
    seat.chain = seat.chain.then(() => this.human(seat, frame)).catch(() => undefined);
  }

  /** Output sent after the role frame is acked: the page has the new proof, the one before it ends. */
  private confirmProof(view: View, sequence: number): void {
    const seat = this.seat;
    if (seat && seat.view === view && !seat.proofConfirmed && sequence > seat.roleSequence && sequence <= view.sentSequence) {
      seat.previousDigest = undefined;
      seat.proofConfirmed = true;
    }
  }

  closed(view: View, kind: CloseKind): void {
    this.views.delete(view);
    const seat = this.seat;
    if (!seat || seat.view !== view) return;
    seat.view = undefined;
    if (kind === 'lifecycle' || this.shuttingDown) return;
    const graceMs = this.context.config.disconnectGraceMs;
    // A controller page that was closed or reloaded on purpose, holding no input, frees the seat at once:
    // the reloaded page (which has no proof: it lives in memory only) becomes controller again instead
    // of waiting out the grace. A held lease keeps the grace, so a reload never interrupts a program.
    const idle = !seat.lease || seat.lease.closed;
    const leftIdle = kind === 'left' && idle;
    // A first claim whose page never showed it got the proof (the socket was aborted while it opened, or
    // dropped before the role frame arrived): no page can resume it, so holding it through grace would only
    // make that page read only until grace ends. Free it at once (it holds no input, so nothing is lost).
    const unreachable = idle && !seat.proofConfirmed && seat.previousDigest === undefined;
    if (graceMs === 0 || leftIdle || unreachable) {
      this.expireSeat(seat);
      return;
    }
    seat.graceTimer = this.context.clock.setTimeout(() => {
      seat.graceTimer = undefined;
      this.expireSeat(seat);
    }, graceMs);
  }

  // ------------------------------------------------------------------ human input

  private async human(seat: Seat, frame: MutatingFrame): Promise<void> {
    if (this.seat !== seat) return;
    const current = this.owner.generation?.generation;
    if (current !== frame.generation) {
      this.noticeSeat(seat, 'stale-generation', NOTICES.stale(frame.generation, current ?? 0));
      return;
    }
    const open = await this.openLease(seat);
    // Every view of this terminal shows the echo as soon as the server reads it, even mid-flood.
    if (frame.type === 'begin' || frame.type === 'input') for (const view of this.views) view.expectEcho(frame.input);
    try {
      switch (frame.type) {
        case 'begin':
          if (open) await open.input(frame.input);
          else this.track(seat, await this.owner.beginHuman(frame.input));
          return;
        case 'input':
          if (open) await open.input(frame.input);
          else this.noticeSeat(seat, 'lease-closed', NOTICES.noLease);
          return;
        case 'takeover':
          if (open) this.noticeSeat(seat, 'takeover-unavailable', NOTICES.alreadyHolding);
          else this.track(seat, this.owner.takeover(Number(frame.takeoverId)));
          return;
        case 'interrupt':
          if (open) await open.interrupt();
          else this.noticeSeat(seat, 'lease-closed', NOTICES.nothingToInterrupt);
          return;
        case 'reset':
          // The person confirmed destroying the shell: their own lease must not hold the reset back.
          open?.abandon();
          this.owner.reset().catch((error: unknown) => {
            const notice = noticeFor(error, 'Reset Terminal');
            this.noticeSeat(seat, notice.code, notice.message);
          });
          return;
      }
    } catch (error) {
      const what = frame.type === 'takeover' ? 'Take over input' : frame.type === 'interrupt' ? 'Interrupt input' : 'Input';
      const notice = noticeFor(error, what);
      this.noticeSeat(seat, notice.code, notice.message);
    }
  }

  /** The seat's lease if it is open (waiting for its grant first, so input never races the first write). */
  private async openLease(seat: Seat): Promise<HumanSession | undefined> {
    const lease = seat.lease;
    if (!lease || lease.closed) return undefined;
    await lease.granted.catch(() => undefined);
    return lease.closed ? undefined : lease;
  }

  private track(seat: Seat, lease: HumanSession): void {
    seat.lease = lease;
    const send = (state: LeaseFrame['state'], reason?: LeaseFrame['reason']) => {
      const view = this.seat === seat ? seat.view : undefined;
      if (view && !view.closed) view.sendEssential(this.leaseFrame(view, lease, state, reason));
    };
    send('queued');
    lease.granted.then(
      () => {
        if (seat.lease === lease && !lease.closed) send('granted');
      },
      () => undefined,
    );
    lease.result.then(
      (result) => this.endLease(seat, lease, () => send('revoked', result.waitReason)),
      () => this.endLease(seat, lease, () => send('revoked', 'failed')),
    );
  }

  private endLease(seat: Seat, lease: HumanSession, announce: () => void): void {
    if (seat.lease !== lease) return;
    seat.lease = undefined;
    announce();
  }

  private leaseFrame(view: View, lease: HumanSession, state: LeaseFrame['state'], reason?: LeaseFrame['reason']): LeaseFrame {
    const frame: LeaseFrame = {
      v: PROTOCOL_VERSION,
      type: 'lease',
      generation: view.generation ?? 0,
      state,
      leaseId: lease.id,
      origin: lease.origin,
    };
    if (reason !== undefined) frame.reason = reason;
    return frame;
  }

  private noticeSeat(seat: Seat, code: Parameters<View['sendNotice']>[0], message: string): void {
    const view = this.seat === seat ? seat.view : undefined;
    view?.sendNotice(code, message);
  }

  // ------------------------------------------------------------------ seat lifecycle

  private clearGrace(seat: Seat): void {
    if (seat.graceTimer !== undefined) this.context.clock.clearTimeout(seat.graceTimer);
    seat.graceTimer = undefined;
  }

  /** Grace is over: abandon the lease and free the seat for the next view. */
  private expireSeat(seat: Seat): void {
    if (this.seat !== seat || seat.view) return;
    this.seat = undefined;
    this.clearGrace(seat);
    const lease = seat.lease;
    seat.lease = undefined;
    if (lease && !lease.closed) lease.abandon();
    for (const view of this.views) {
      if (view.role === 'readonly') view.sendNotice('controller-available', NOTICES.controllerAvailable);
    }
  }

  private dropSeat(): void {
    const seat = this.seat;
    this.seat = undefined;
    if (seat) this.clearGrace(seat);
  }

  private onReset(generation: number): void {
    // Outstanding tokens now carry an old epoch: they are refused (with that reason) when used.
    this.epoch += 1;
    // The lease and proof belonged to the old shell.
    this.dropSeat();
    for (const view of [...this.views]) {
      if (view.generation !== generation) view.close(CloseCode.reset, 'lifecycle', CLOSE_REASONS.reset);
    }
  }

  private onDisposed(): void {
    this.epoch += 1;
    this.context.tokens.revokeOwner(this.owner);
    this.dropSeat();
    for (const view of [...this.views]) view.close(CloseCode.disposed, 'lifecycle', CLOSE_REASONS.disposed);
    this.unsubscribe();
    this.context.gone(this);
  }

  /** The transport is closing: close every socket and give up the seat (its lease is abandoned). */
  shutdown(): void {
    this.shuttingDown = true;
    const seat = this.seat;
    this.seat = undefined;
    if (seat) {
      this.clearGrace(seat);
      if (seat.lease && !seat.lease.closed) seat.lease.abandon();
    }
    for (const view of [...this.views]) view.close(CloseCode.shutdown, 'lifecycle', CLOSE_REASONS.shutdown);
    this.unsubscribe();
  }
}

/** What a page is told of a program waiting for input. */
function inputWaitFrame(wait: NonNullable<OwnerState['inputWait']>): NonNullable<StatusFrame['inputWait']> {
  const frame: NonNullable<StatusFrame['inputWait']> = { command: wait.command ?? null, secret: wait.secret };
  if (wait.busy) frame.busy = true;
  return frame;
}
