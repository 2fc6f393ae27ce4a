/**
 * One browser view: a WebSocket attached to one generation of one owner's terminal. The view owns what
 * goes out on its socket and in what order:
 *
 * - Snapshot first, then outputs with consecutive sequences. While a snapshot is being taken the view
 *   buffers outputs (it subscribed before asking), and drops those the snapshot already contains. The first
 *   snapshot carries the newest ATTACH_HISTORY_LINES of history (a reconnect shows its screen at once); a
 *   full one follows as soon as the view has parsed it.
 * - Pacing for a view that acks (what its renderer parsed): at most FLOW_WINDOW_CHARS of output is in
 *   flight; more is held, and once acks bring it under FLOW_RESUME_CHARS the held output follows. When
 *   more than HELD_MAX_CHARS pile up (a flood faster than the page can parse), the view drops them and
 *   skips ahead: its next frame is a snapshot of the current screen alone (a catch-up). Output waits for the
 *   catch-up's ack; if more came meanwhile than the catch-up weighed, another catch-up follows instead (at
 *   most ten a second: FLOOD_SCREEN_INTERVAL_MS), else the output does. The output that carries a typed
 *   key's echo (see expectEcho) or the shell's prompt brings a catch-up at once when it would wait for one
 *   or be dropped: a person sees the key, or the flood's end, without waiting for acks or the pace. Once
 *   output has been quiet for SETTLE_MS, one full snapshot gives it back the whole history. So a slow page
 *   never slows the program (nothing here pauses the shell), and a keystroke's echo or an interrupt's
 *   prompt waits behind at most a window of output, never behind the whole flood. tmux and mosh do the same.
 * - A view that does not ack has a bounded send queue: when the socket's buffered bytes would pass the
 *   limit the view stops sending output and, once the socket has drained, sends a fresh snapshot
 *   instead. Nothing here can grow memory without bound.
 *
 * It knows nothing of roles' rules or leases: the room decides those and tells the view its role.
 */
import type { WebSocket } from 'ws';
import { systemClock } from '../queue/clock.ts';
import {
  CloseCode,
  FLOW_RESUME_CHARS,
  FLOW_WINDOW_CHARS,
  PROTOCOL_VERSION,
  encodeFrame,
  type NoticeCode,
  type RoleFrame,
  type ServerFrame,
  type StatusFrame,
} from '../protocol/index.ts';
import type { OutputEvent, TerminalGeneration } from '../terminal/generation.ts';
import { CLOSE_REASONS, NOTICES, closeReason } from './messages.ts';

/** Bytes a view's socket may have queued (beyond its last snapshot) before it counts as behind. */
export const SEND_QUEUE_BYTES = 1_048_576;
/** Frames a client may send before its attach finished (they wait for the snapshot). */
const MAX_EARLY_FRAMES = 32;
/** Resyncs a view may ask for while its socket has not taken the last snapshot: past this it asks faster
 *  than it reads, and is closed (each would otherwise queue a whole snapshot). */
export const MAX_UNREAD_RESYNCS = 16;
/** Output held for a paced view (its window is full) beyond which it skips ahead to a catch-up snapshot. */
export const HELD_MAX_CHARS = 65_536;
/** Quiet time after which a view that caught up without its history gets the full snapshot. */
export const SETTLE_MS = 250;
/** Shortest time between two catch-ups of a flood (10 screens a second), screens a person waits for aside (see admit). */
export const FLOOD_SCREEN_INTERVAL_MS = 100;
/** How long a typed character's echo is looked for in a flood's output (see View.expectEcho). */
const ECHO_WAIT_MS = 1000;
/** History rows in a view's first snapshot. A page parses ~5 MB/s of coloured replay: a full 10,000-row
 *  history (~1.2 MB) is a quarter of a second before anything shows, the newest 500 rows ~10 ms. The rest
 *  follows in a full snapshot once the view has parsed the first one (the element swaps it in when parsed). */
export const ATTACH_HISTORY_LINES = 500;

export type ViewPhase = 'attaching' | 'snapshotting' | 'live' | 'behind' | 'closed';
/** Why the view closed: lifecycle closes (reset, disposal, shutdown) end control at once, others start grace. */
/** Why a view went away. `left`: the browser closed it on purpose (1001, going away: the page was closed,
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
  // pacing (a view that acks)
  private acking = false;
  private unacked: { sequence: number; chars: number }[] = [];
  private unackedChars = 0;
  private held: OutputEvent[] = [];
  private heldChars = 0;
  /** Held output was dropped: the next thing this view gets is a catch-up snapshot. */
  private skipping = false;
  /** The last character a person typed, while its echo is awaited (see expectEcho). */
  private awaitedEcho: { ch: string; until: number } | undefined;
  /** Awaited output (an echo, the prompt) is held (window full): dropping that output sends a catch-up. */
  private awaitedHeld = false;
  /** Size of the catch-up snapshot the view has not acked yet (0: none). Output waits for that ack. */
  private catchUpInFlight = 0;
  /** When the last catch-up went out, and the timer that sends the next one at the flood's pace. */
  private lastCatchUpAt = -Infinity;
  private paceTimer: unknown;
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
  private skippedChars = 0;
  private outputsSent = 0;

  private readonly scrollbackLines: number;
  /** Pacing follows the page's real parse speed, so its quiet timer runs on real time (the injected clock
   *  of the transport is for tokens, grace and heartbeats). */
  private readonly clock = systemClock;

  constructor(options: { id: number; ownerId: string; ws: WebSocket; host: ViewHost; now: number; scrollbackLines: number }) {
    this.scrollbackLines = options.scrollbackLines;
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
      unackedChars: this.unackedChars,
      holding: this.held.length > 0 || this.skipping,
      heldChars: this.heldChars,
      snapshots: this.snapshots,
      resyncs: this.resyncs,
      catchUps: this.catchUps,
      skippedChars: this.skippedChars,
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
        this.close(1008, 'protocol', CLOSE_REASONS.early);
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
  async refresh(options: { reason: 'attach' | 'client' | 'behind' | 'catch-up' | 'settle' | 'backfill'; afterSnapshot?: () => void }): Promise<void> {
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
    this.resetFlow();
    if (this.acking) {
      this.unacked.push({ sequence: snapshot.sequence, chars: replay.length });
      this.unackedChars = replay.length;
    }
    // A catch-up leaves the history out: the full snapshot follows once output has been quiet. A first
    // snapshot cut at ATTACH_HISTORY_LINES gets the rest right after its ack (or, from a view that does not
    // ack, after the same quiet time).
    this.backfill = first && snapshot.historyLines === ATTACH_HISTORY_LINES && snapshot.truncated;
    this.partial = catchUp || this.backfill;
    if (catchUp) {
      this.catchUps += 1;
      this.lastCatchUpAt = this.clock.now();
    }
    if (catchUp && this.acking) this.catchUpInFlight = replay.length;
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
    if (this.acking && !this.admit(event)) return;
    this.sendOutput(event);
  }

  /**
   * A person typed `input`: while this view takes catch-ups, the screen that carries the echo goes out as
   * soon as the server reads it, without waiting for the catch-up in flight to be acked (a person typing into
   * a flood sees each key one screen sooner; a stray match, such as the same character in the flood, costs
   * one screen). Only the last printable character is looked for, for at most ECHO_WAIT_MS.
   */
  expectEcho(input: string): void {
    const printable = [...input].filter((ch) => ch >= ' ' && ch !== '\x7f').at(-1);
    this.awaitedEcho = printable === undefined ? undefined : { ch: printable, until: this.clock.now() + ECHO_WAIT_MS };
  }

  /** Whether this output carries the awaited echo (then it is no longer awaited: one screen per key). */
  private echoArrived(event: OutputEvent): boolean {
    const awaited = this.awaitedEcho;
    if (!awaited) return false;
    if (this.clock.now() > awaited.until) {
      this.awaitedEcho = undefined;
      return false;
    }
    if (!event.data.includes(awaited.ch)) return false;
    this.awaitedEcho = undefined;
    return true;
  }

  /**
   * Whether a paced view may get this output now; if not it is held, or dropped once too much is held.
   *
   * Two kinds of output are what a person waits to see, and their screen does not wait for the flood's
   * pace: a typed key's echo, and the prompt back (a flood ended or was interrupted). An echo also goes
   * without the ack of a catch-up in flight (a key typed into a flood shows on the next screen). A prompt
   * that finds a catch-up in flight but nothing dropped waits for its ack like any output (the page is
   * about to ack; another screen would cost it more than the little output held meanwhile).
   */
  private admit(event: OutputEvent): boolean {
    const echo = this.echoArrived(event); // asked once per chunk: it stops looking once the echo came
    const awaited = echo || event.prompt === true;
    if (this.skipping ? awaited : echo && this.catchUpInFlight > 0) {
      // Output that waits for a catch-up, or would be dropped: the screen that carries it goes at once.
      this.skipAhead();
      this.skippedChars += event.data.length;
      this.catchUpNow();
      return false;
    }
    if (this.skipping) {
      this.skippedChars += event.data.length;
      return false;
    }
    const fits = this.unackedChars === 0 || this.unackedChars + event.data.length <= FLOW_WINDOW_CHARS;
    if (this.held.length === 0 && fits && this.catchUpInFlight === 0) return true;
    // Held behind a full window or a catch-up: it goes out with the held output, or, if that is dropped,
    // at once.
    if (awaited) this.awaitedHeld = true;
    this.held.push(event);
    this.heldChars += event.data.length;
    // Faster than the page parses: drop what is held and catch up from the screen when it has room.
    if (this.heldChars > HELD_MAX_CHARS) this.skipAhead();
    return false;
  }

  /** Drop the held output: the view's next frame is a catch-up snapshot (at once if it held awaited output). */
  private skipAhead(): void {
    this.skippedChars += this.heldChars;
    this.held = [];
    this.heldChars = 0;
    this.skipping = true;
    if (this.awaitedHeld) {
      this.awaitedHeld = false;
      this.catchUpNow();
    }
  }

  /**
   * A catch-up now, for awaited output (a typed key's echo, the prompt back) the page would otherwise see
   * only with the next paced one: not waiting for the ack of what is in flight. Run after the generation
   * has queued the chunk that carries it for its screen (the output event comes before that).
   */
  private catchUpNow(): void {
    queueMicrotask(() => {
      if (this.currentPhase === 'live') void this.refresh({ reason: 'catch-up' });
    });
  }

  private sendOutput(event: OutputEvent): void {
    const frame = encodeFrame({ v: PROTOCOL_VERSION, type: 'output', generation: event.generation, sequence: event.sequence, data: event.data });
    if (this.ws.bufferedAmount + frame.length > this.sendLimit) {
      this.fallBehind();
      return;
    }
    this.rawSend(frame);
    this.lastSequence = event.sequence;
    this.outputsSent += 1;
    if (this.acking) {
      this.unacked.push({ sequence: event.sequence, chars: event.data.length });
      this.unackedChars += event.data.length;
    }
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
    if (this.outstandingSends === 0) queueMicrotask(() => {
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
    this.acking = true;
    while (this.unacked.length > 0 && this.unacked[0]!.sequence <= sequence) {
      this.unackedChars -= this.unacked.shift()!.chars;
    }
    if (this.currentPhase !== 'live' || this.unackedChars > FLOW_RESUME_CHARS) return;
    if (this.backfill && !this.skipping && this.unackedChars === 0) {
      this.backfill = false;
      void this.refresh({ reason: 'backfill' });
      return;
    }
    if (this.catchUpInFlight > 0) {
      // Everything waits for the catch-up's own ack (an older ack can still arrive after it was sent).
      if (this.unackedChars > 0) return;
      // It is parsed. If more output came meanwhile than the snapshot weighed, the flood goes on: another
      // screen costs the page less than that output would (and shows the same), so the page gets screens
      // (at the flood's pace, see nextFloodScreen) instead of output it would draw and throw away.
      const snapshotChars = this.catchUpInFlight;
      this.catchUpInFlight = 0;
      if (this.heldChars > snapshotChars) this.skipAhead();
    }
    if (this.skipping) {
      this.nextFloodScreen();
      return;
    }
    while (this.held.length > 0) {
      const next = this.held[0]!;
      if (this.unackedChars > 0 && this.unackedChars + next.data.length > FLOW_WINDOW_CHARS) break;
      this.held.shift();
      this.heldChars -= next.data.length;
      this.sendOutput(next);
    }
    if (this.held.length === 0) this.awaitedHeld = false; // it went out with the held output
  }

  /**
   * The next catch-up of a flood, at most one per FLOOD_SCREEN_INTERVAL_MS. The page could take one per
   * frame it draws, but a flood's screens are a blur to a person, and on a small machine every screen the
   * page parses and draws is CPU the program, the shell's echo and the server do not get. A screen that
   * carries a typed key's echo or the prompt back does not wait for this pace (see admit).
   */
  private nextFloodScreen(): void {
    if (this.paceTimer !== undefined) return;
    const wait = this.lastCatchUpAt + FLOOD_SCREEN_INTERVAL_MS - this.clock.now();
    if (wait <= 0) {
      void this.refresh({ reason: 'catch-up' });
      return;
    }
    this.paceTimer = this.clock.setTimeout(() => {
      this.paceTimer = undefined;
      if (this.skipping && this.catchUpInFlight === 0 && this.unackedChars === 0 && this.currentPhase === 'live') {
        void this.refresh({ reason: 'catch-up' });
      }
    }, wait);
  }

  private resetFlow(): void {
    this.unacked = [];
    this.unackedChars = 0;
    this.held = [];
    this.heldChars = 0;
    this.skipping = false;
    this.awaitedHeld = false;
    this.catchUpInFlight = 0;
    this.backfill = false;
  }

  /** (Re)start the quiet timer after which a view without its history gets the full snapshot. */
  private armSettle(): void {
    if (this.settleTimer !== undefined) this.clock.clearTimeout(this.settleTimer);
    this.settleTimer = this.clock.setTimeout(() => {
      this.settleTimer = undefined;
      if (!this.partial || this.currentPhase !== 'live') return;
      if (this.skipping || this.unackedChars > FLOW_RESUME_CHARS) {
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
    if (!this.closed) this.markClosed(code === 1001 ? 'left' : 'network');
  }

  private markClosed(kind: CloseKind): void {
    this.currentPhase = 'closed';
    this.pending = [];
    this.early = [];
    this.resetFlow();
    if (this.settleTimer !== undefined) this.clock.clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    if (this.paceTimer !== undefined) this.clock.clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
    this.host.closed(this, kind);
  }

  /** Whether a status went unsent while behind (for diagnostics and tests). */
  get statusPending(): boolean {
    return this.statusDirty;
  }
}
