/**
 * One browser view: a WebSocket attached to one generation of one owner's terminal. The view owns what
 * goes out on its socket and in what order:
 *
 * - Snapshot first, then outputs with consecutive sequences. While a snapshot is being taken the view
 *   buffers outputs (it subscribed before asking), and drops those the snapshot already contains. The first
 *   snapshot carries the newest ATTACH_HISTORY_LINES of history; the full one follows once the view has
 *   parsed it, and a view that caught up without its history gets it once output is quiet (SETTLE_MS).
 * - A view that acks is paced (pacing.ts: window, held output, catch-ups).
 * - A view that does not ack has a bounded send queue: past the limit it stops sending output and, once
 *   the socket has drained, sends a fresh snapshot instead. Nothing here grows memory without bound.
 *
 * It knows nothing of roles' rules or leases: the room decides those and tells the view its role.
 */
import type { WebSocket } from 'ws';
import { type Clock, systemClock } from '../time.ts';
import {
  CloseCode,
  PROTOCOL_VERSION,
  encodeFrame,
  type NoticeCode,
  type RoleFrame,
  type ServerFrame,
  type StatusFrame,
} from '../protocol/index.ts';
import type { OutputEvent, TerminalGeneration } from '../terminal/generation.ts';
import { CLOSE_REASONS, NOTICES, closeReason } from './messages.ts';
import { Pacer } from './pacing.ts';

/** Bytes a view's socket may have queued (beyond its last snapshot) before it counts as behind. */
export const SEND_QUEUE_BYTES = 1_048_576;
/** Frames a client may send before its attach finished (they wait for the snapshot). */
const MAX_EARLY_FRAMES = 32;
/** Resyncs a view may ask for while its socket has not taken the last snapshot: past this it asks faster
 *  than it reads, and is closed (each would otherwise queue a whole snapshot). */
export const MAX_UNREAD_RESYNCS = 16;
/** Quiet time after which a view that caught up without its history gets the full snapshot. */
const SETTLE_MS = 250;
/** History rows in a view's first snapshot: few enough to show at once, the rest follows in a full
 *  snapshot once the view has parsed the first one (the bench report has the parse times). */
export const ATTACH_HISTORY_LINES = 500;

export type ViewPhase = 'attaching' | 'snapshotting' | 'live' | 'behind' | 'closed';
/** Why a view went away (lifecycle closes, reset, disposal, shutdown, end control at once; others start grace). `left`: the browser closed it on purpose (1001, going away: the page was closed,
 *  reloaded or navigated), as opposed to `network`, a connection that dropped. */
export type CloseKind = 'network' | 'left' | 'protocol' | 'lifecycle' | 'moved';

export interface ViewHost {
  /** A text frame after attach; the room parses and dispatches it. */
  frame(view: View, text: string): void;
  /** The status frame for this view's generation (sent after every snapshot). */
  status(view: View): StatusFrame | undefined;
  /** The view is closed: release whatever it held. Called once. */
  closed(view: View, kind: CloseKind): void;
}

export interface ViewStats {
  id: number;
  ownerId: string;
  role: 'controller' | 'readonly' | null;
  generation: number | null;
  phase: ViewPhase;
  bufferedAmount: number;
  /** Largest socket buffer seen right after a send. */
  peakBufferedAmount: number;
  unackedChars: number;
  /** Output waiting for the view's window (or dropped: it will catch up from a snapshot). */
  holding: boolean;
  heldChars: number;
  snapshots: number;
  resyncs: number;
  /** Snapshots of the current screen alone that let the view skip output it could not keep up with. */
  catchUps: number;
  /** Output characters dropped for this view because a catch-up replaced them. */
  skippedChars: number;
  /** The view caught up without its history; a full snapshot follows once output is quiet. */
  partial: boolean;
  outputsSent: number;
  /** Last time the client was heard from (a frame or a pong), on the transport's clock. */
  lastSeen: number;
}

export class View {
  readonly id: number;
  readonly ownerId: string;
  readonly ws: WebSocket;
  /** Last time anything (a frame or a pong) arrived, on the transport's clock. */
  lastSeen: number;
  private readonly host: ViewHost;
  private generationRef: TerminalGeneration | undefined;
  private currentPhase: ViewPhase = 'attaching';
  private currentRole: 'controller' | 'readonly' | null = null;
  private attached = false;
  private early: string[] = [];
  private pending: OutputEvent[] = [];
  private lastSequence = 0;
  private refreshAgain = false;
  private sendLimit = SEND_QUEUE_BYTES;
  private outstandingSends = 0;
  /** A client resync waits for the socket to take what is queued (see requestResync); how many came. */
  private resyncWaiting = 0;
  private statusDirty = false;
  private readonly pacer: Pacer;
  /** The view's history was cut short by a catch-up: a full snapshot follows once output is quiet. */
  private partial = false;
  /** The first snapshot held the newest history alone: the full one follows as soon as the view acks it. */
  private backfill = false;
  private settleTimer: unknown;
  // diagnostics
  private peakBuffered = 0;
  private snapshots = 0;
  private resyncs = 0;
  private catchUps = 0;
  private outputsSent = 0;

  private readonly scrollbackLines: number;
  /** Pacing follows the page's real parse speed, so its timers run on real time (the transport's injected
   *  clock is for tokens, grace and heartbeats). */
  private readonly clock: Clock;

  constructor(options: {
    id: number;
    ownerId: string;
    ws: WebSocket;
    host: ViewHost;
    now: number;
    scrollbackLines: number;
    paceClock?: Clock;
  }) {
    this.scrollbackLines = options.scrollbackLines;
    this.clock = options.paceClock ?? systemClock;
    this.pacer = new Pacer(this.clock, {
      send: (event) => this.sendOutput(event),
      catchUp: () => {
        if (this.currentPhase === 'live') void this.refresh({ reason: 'catch-up' });
      },
    });
    this.id = options.id;
    this.ownerId = options.ownerId;
    this.ws = options.ws;
    this.host = options.host;
    this.lastSeen = options.now;
  }

  get phase(): ViewPhase {
    return this.currentPhase;
  }

  get closed(): boolean {
    return this.currentPhase === 'closed';
  }

  get generation(): number | undefined {
    return this.generationRef?.generation;
  }

  get role(): 'controller' | 'readonly' | null {
    return this.currentRole;
  }

  /** The sequence of the last snapshot or output sent on this socket. */
  get sentSequence(): number {
    return this.lastSequence;
  }

  stats(): ViewStats {
    return {
      id: this.id,
      ownerId: this.ownerId,
      role: this.currentRole,
      generation: this.generation ?? null,
      phase: this.currentPhase,
      bufferedAmount: this.ws.bufferedAmount,
      peakBufferedAmount: this.peakBuffered,
      unackedChars: this.pacer.inFlight,
      holding: this.pacer.behind,
      heldChars: this.pacer.heldChars,
      snapshots: this.snapshots,
      resyncs: this.resyncs,
      catchUps: this.catchUps,
      skippedChars: this.pacer.skippedChars,
      partial: this.partial,
      outputsSent: this.outputsSent,
      lastSeen: this.lastSeen,
    };
  }

  // ------------------------------------------------------------------ incoming

  /** A raw message from the socket. */
  receive(text: string): void {
    if (this.closed) return;
    if (!this.attached) {
      // Frames sent before the snapshot wait for it (a reconnecting controller may ack or ping at once).
      if (this.early.length >= MAX_EARLY_FRAMES) {
        this.close(CloseCode.protocolError, 'protocol', CLOSE_REASONS.early);
        return;
      }
      this.early.push(text);
      return;
    }
    this.host.frame(this, text);
  }

  // ------------------------------------------------------------------ attach and snapshots

  /** Bind to the generation; outputs buffer from now on until the first snapshot is out. */
  bind(generation: TerminalGeneration): void {
    this.generationRef = generation;
    this.currentPhase = 'snapshotting';
  }

  /**
   * Send a fresh snapshot, then (for the first one) whatever `afterSnapshot` sends (role, lease), then the
   * status, then the outputs that arrived meanwhile. Concurrent requests are coalesced into one more round.
   */
  async refresh(options: {
    reason: 'attach' | 'client' | 'behind' | 'catch-up' | 'settle' | 'backfill';
    afterSnapshot?: () => void;
  }): Promise<void> {
    const generation = this.generationRef;
    if (!generation || this.closed) return;
    if (this.currentPhase === 'snapshotting' && options.reason !== 'attach') {
      // A catch-up asked for meanwhile is not worth a full snapshot: the outputs buffered during this one
      // go through admit afterwards and bring the next catch-up (or their echo's) themselves.
      if (options.reason !== 'catch-up') this.refreshAgain = true;
      return;
    }
    this.currentPhase = 'snapshotting';
    this.pending = [];
    const catchUp = options.reason === 'catch-up';
    const first = options.reason === 'attach';
    let snapshot: Awaited<ReturnType<TerminalGeneration['snapshot']>>;
    try {
      snapshot = await generation.snapshot(catchUp ? { history: false } : first ? { maxHistoryLines: ATTACH_HISTORY_LINES } : {});
    } catch {
      // The generation is being replaced or disposed; the room closes this view for that reason.
      return;
    }
    if (this.closed) return;
    const replay = encodeFrame({
      v: PROTOCOL_VERSION,
      type: 'snapshot',
      generation: generation.generation,
      sequence: snapshot.sequence,
      rows: snapshot.rows,
      cols: snapshot.cols,
      replay: snapshot.replay,
      historyLines: snapshot.historyLines,
      truncated: snapshot.truncated,
      scrollbackLines: this.scrollbackLines,
    });
    // The screen is rebuilt from this: what was unacknowledged or held no longer matters, but the replay
    // itself is in flight until the view acks its sequence.
    this.pacer.snapshotSent(snapshot.sequence, replay.length, catchUp);
    // A catch-up leaves the history out: the full snapshot follows once output has been quiet. A first
    // snapshot cut at ATTACH_HISTORY_LINES gets the rest right after its ack (or, from a view that does not
    // ack, after the same quiet time).
    this.backfill = first && snapshot.historyLines === ATTACH_HISTORY_LINES && snapshot.truncated;
    this.partial = catchUp || this.backfill;
    if (catchUp) this.catchUps += 1;
    this.lastSequence = snapshot.sequence;
    this.sendLimit = SEND_QUEUE_BYTES + replay.length;
    this.snapshots += 1;
    this.rawSend(replay);
    if (this.partial) this.armSettle();
    options.afterSnapshot?.();
    if (options.reason === 'behind') {
      this.resyncs += 1;
      this.sendNotice('resynced', NOTICES.resynced);
    }
    this.statusDirty = false;
    const status = this.host.status(this);
    if (status) this.rawSend(encodeFrame(status));
    this.currentPhase = 'live';
    const buffered = this.pending;
    this.pending = [];
    for (const event of buffered) this.pushOutput(event);
    if (!this.attached) {
      this.attached = true;
      const early = this.early;
      this.early = [];
      for (const text of early) if (!this.closed) this.host.frame(this, text);
    }
    if (this.refreshAgain && !this.closed) {
      this.refreshAgain = false;
      void this.refresh({ reason: 'client' });
    }
  }

  // ------------------------------------------------------------------ outgoing

  /** A chunk of the generation's output. */
  pushOutput(event: OutputEvent): void {
    if (event.generation !== this.generation) return;
    switch (this.currentPhase) {
      case 'snapshotting':
        this.pending.push(event);
        return;
      case 'live':
        break;
      default:
        return; // attaching (not bound yet), behind (a snapshot follows the drain), closed
    }
    if (event.sequence <= this.lastSequence) return; // the snapshot already has it
    if (this.partial) this.armSettle();
    if (!this.pacer.admit(event)) return;
    this.sendOutput(event);
  }

  /** A person typed `input`: the screen that carries its echo does not wait for the flood's pace. */
  expectEcho(input: string): void {
    this.pacer.expectEcho(input);
  }

  private sendOutput(event: OutputEvent): void {
    const frame = encodeFrame({
      v: PROTOCOL_VERSION,
      type: 'output',
      generation: event.generation,
      sequence: event.sequence,
      data: event.data,
    });
    if (this.ws.bufferedAmount + frame.length > this.sendLimit) {
      this.fallBehind();
      return;
    }
    this.rawSend(frame);
    this.lastSequence = event.sequence;
    this.outputsSent += 1;
    this.pacer.sent(event.sequence, event.data.length);
  }

  sendRole(frame: RoleFrame): void {
    this.currentRole = frame.role;
    this.rawSend(encodeFrame(frame));
  }

  /** Frames that must arrive (lease changes): small and rare, sent whatever the queue. */
  sendEssential(frame: ServerFrame): void {
    this.rawSend(encodeFrame(frame));
  }

  /** A status update: skipped while behind or over the limit (the next snapshot carries the latest). */
  sendStatus(frame: StatusFrame): void {
    if (this.currentPhase !== 'live' || this.ws.bufferedAmount > this.sendLimit) {
      this.statusDirty = true;
      return;
    }
    this.statusDirty = false;
    this.rawSend(encodeFrame(frame));
  }

  /** Notices and pongs are dropped for a socket that does not read (a client cannot grow them). */
  sendNotice(code: NoticeCode, message: string): void {
    this.sendDroppable(encodeFrame({ v: PROTOCOL_VERSION, type: 'notice', generation: this.generation ?? 0, code, message }));
  }

  sendPong(t: number): void {
    this.sendDroppable(encodeFrame({ v: PROTOCOL_VERSION, type: 'pong', generation: this.generation ?? 0, t }));
  }

  private sendDroppable(text: string): void {
    if (this.ws.bufferedAmount + text.length > this.sendLimit) return;
    this.rawSend(text);
  }

  private rawSend(text: string): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.outstandingSends += 1;
    this.ws.send(text, () => {
      this.outstandingSends -= 1;
      if (this.outstandingSends !== 0) return;
      if (this.currentPhase === 'behind') void this.refresh({ reason: 'behind' });
      else if (this.resyncWaiting > 0) {
        this.resyncWaiting = 0;
        void this.refresh({ reason: 'client' });
      }
    });
    const buffered = this.ws.bufferedAmount;
    if (buffered > this.peakBuffered) this.peakBuffered = buffered;
  }

  private fallBehind(): void {
    this.currentPhase = 'behind';
    // Output stops here; the status, if it changes meanwhile, goes out after the snapshot.
    if (this.outstandingSends === 0)
      queueMicrotask(() => {
        if (this.currentPhase === 'behind') void this.refresh({ reason: 'behind' });
      });
  }

  /**
   * The client asked for a fresh snapshot (it saw a gap). While the socket still holds frames it could not
   * write (its peer does not read), the snapshot waits until they are written, and requests meanwhile are
   * one; a view that keeps asking while it does not read is closed: no request costs more than one
   * snapshot in memory.
   */
  requestResync(): void {
    if (this.currentPhase === 'behind') return; // one is coming once the socket drains
    if (this.ws.bufferedAmount > 0 || this.currentPhase === 'snapshotting') {
      this.resyncWaiting += 1;
      if (this.resyncWaiting > MAX_UNREAD_RESYNCS) this.close(CloseCode.protocolError, 'protocol', CLOSE_REASONS.resyncFlood);
      return;
    }
    void this.refresh({ reason: 'client' });
  }

  // ------------------------------------------------------------------ pacing

  /** The view's renderer parsed every output up to `sequence` (from now on the view is paced). */
  ack(sequence: number): void {
    if (sequence > this.lastSequence) return; // not something this socket was sent (a stale ack)
    this.pacer.acked(sequence);
    if (this.currentPhase !== 'live' || !this.pacer.resumable) return;
    if (this.backfill && !this.pacer.skipping && this.pacer.inFlight === 0) {
      this.backfill = false;
      void this.refresh({ reason: 'backfill' });
      return;
    }
    this.pacer.resume();
  }

  /** (Re)start the quiet timer after which a view without its history gets the full snapshot. */
  private armSettle(): void {
    if (this.settleTimer !== undefined) this.clock.clearTimeout(this.settleTimer);
    this.settleTimer = this.clock.setTimeout(() => {
      this.settleTimer = undefined;
      if (!this.partial || this.currentPhase !== 'live') return;
      if (this.pacer.skipping || !this.pacer.resumable) {
        // Still catching up: the catch-up's own ack decides; look again after another quiet spell.
        this.armSettle();
        return;
      }
      void this.refresh({ reason: 'settle' });
    }, SETTLE_MS);
  }

  // ------------------------------------------------------------------ closing

  /** Close the socket (and, for a peer that no longer answers, drop it at once). */
  close(code: number, kind: CloseKind, reason = '', options: { terminate?: boolean } = {}): void {
    if (this.closed) return;
    this.markClosed(kind);
    try {
      if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close(code, closeReason(reason));
      if (options.terminate) this.ws.terminate();
    } catch {
      this.ws.terminate();
    }
  }

  /** The socket closed on its own (network, client close). */
  socketClosed(code?: number): void {
    if (!this.closed) this.markClosed(code === CloseCode.goingAway ? 'left' : 'network');
  }

  private markClosed(kind: CloseKind): void {
    this.currentPhase = 'closed';
    this.pending = [];
    this.early = [];
    this.pacer.dispose();
    this.backfill = false;
    if (this.settleTimer !== undefined) this.clock.clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    this.host.closed(this, kind);
  }

  /** Whether a status went unsent while behind (for diagnostics and tests). */
  get statusPending(): boolean {
    return this.statusDirty;
  }
}
