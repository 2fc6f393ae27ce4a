/**
 * The connection controller of `<shared-terminal>`: one view's rules for talking to the server, in plain
 * TypeScript with no DOM, so that every rule can be tested with a scripted socket and an injected clock.
 *
 * It owns: getting a ticket from the host's connector, the subprotocol handshake (with the in-memory resume
 * proof), frame validation, generation and sequence checks (a gap asks for a fresh snapshot), the role,
 * status and lease state, the keys a person types before a grant (held, then sent once), the per-lease byte
 * count, acks for flow control, heartbeats, and reconnect with backoff. It knows nothing of xterm.js: the
 * element listens to `snapshot` and `output` and reports back with `parsed()`.
 *
 * What it never does: retry on its own after a protocol error (1007/1008/1009, or a frame it cannot parse)
 * or after the terminal was disposed (4002) or this view was disposed; keep the resume proof anywhere but in
 * memory; send a key twice.
 */
import {
  CloseCode,
  SECRET_PATTERN,
  encodeFrame,
  parseServerFrame,
  subprotocolsFor,
  utf8ByteLength,
  type ClientFrame,
  type Connector,
  type LeaseFrame,
  type NoticeCode,
  type OutputFrame,
  type RoleFrame,
  type ServerFrame,
  type SnapshotFrame,
  type StatusFrame,
} from '@shared-terminal/server/protocol';

/** The part of a browser WebSocket the controller uses (so tests can script one). */
export interface SocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}
export type SocketFactory = (url: string, protocols: string[]) => SocketLike;

/** Timers, injected so that tests drive time. */
export interface TimerHost {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/**
 * idle: not started. connecting: the first attempt. connected: a snapshot arrived on the current socket.
 * reconnecting: the socket was lost and a retry is scheduled or under way. failed: a protocol error; no
 * automatic retry (the person presses Reconnect). disposed: the server disposed this terminal; no retry.
 * stopped: this view stopped (removed from the page or disposed).
 */
export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'reconnecting' | 'failed' | 'disposed' | 'stopped';

/** none: no lease. requested: a begin or takeover was sent, no answer yet. queued/granted: the server said so. */
export type LeaseState = 'none' | 'requested' | 'queued' | 'granted';

export interface LeaseView {
  state: LeaseState;
  origin: 'idle' | 'takeover' | null;
  leaseId: number | null;
  /** Why the last lease ended (set with state none after a revoke). */
  reason: LeaseFrame['reason'] | null;
}

/** Notices raised by this view on top of the server's notice codes. */
export type LocalNoticeCode =
  | 'discarded-input' // keys typed before a grant were dropped (the lease ended or did not survive a reconnect)
  | 'reconnecting' // the connection was lost; sent input will not be repeated
  | 'protocol-error' // a bad frame or 1008/1009: no automatic retry
  | 'disposed' // the terminal is gone for good
  | 'connect-failed' // the host's connector failed
  | 'not-connected' // typing while there is no connection
  | 'readonly' // typing or acting in a read-only view
  | 'clipboard-denied' // the browser refused the clipboard to the context menu's Copy or Paste
  | 'refused'; // the host refused this page (close 4005; the detail is the server's reason): no automatic retry
export type ViewNoticeCode = NoticeCode | LocalNoticeCode;

export interface ViewNotice {
  code: ViewNoticeCode;
  /** The server's text for server notices, or a detail (e.g. the connector's error). */
  detail: string | null;
}

export interface ConnectionEventMap {
  state: { state: ConnectionState; previous: ConnectionState; closeCode: number | null; retryInMs: number | null };
  snapshot: SnapshotFrame;
  output: OutputFrame;
  role: { role: RoleFrame['role']; reason: RoleFrame['reason'] };
  status: StatusFrame;
  lease: LeaseView;
  notice: ViewNotice;
  generation: { generation: number; previous: number | null };
}
type Listener<T> = (event: T) => void;

export interface RetryPolicy {
  initialMs: number;
  maxMs: number;
}

export interface ConnectionOptions {
  connector: Connector;
  readonly?: boolean;
  createSocket?: SocketFactory;
  timers?: TimerHost;
  retry?: Partial<RetryPolicy>;
  /** Ping interval; two intervals with no frame at all mean the socket is dead. 0 turns heartbeats off. */
  heartbeatMs?: number;
  /** Unacknowledged output characters before an ack is sent even though writes are still queued. */
  ackEveryChars?: number;
}

const DEFAULT_RETRY: RetryPolicy = { initialMs: 250, maxMs: 8000 };
/** Close codes after which a person must press Reconnect. */
const NO_RETRY_CODES: ReadonlySet<number> = new Set([CloseCode.protocolError, CloseCode.tooBig, 1007]);
/** Held keys when the server has not said its limit yet (before the role frame). */
const MAX_HELD_BYTES_DEFAULT = 65536;

const defaultTimers: TimerHost = {
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

function defaultSocketFactory(url: string, protocols: string[]): SocketLike {
  const WebSocketClass = (globalThis as { WebSocket?: new (url: string, protocols: string[]) => SocketLike }).WebSocket;
  if (!WebSocketClass) throw new Error('no WebSocket in this environment: pass createSocket');
  return new WebSocketClass(url, protocols);
}

export class TerminalConnection {
  private readonly connector: Connector;
  private readonly createSocket: SocketFactory;
  private readonly timers: TimerHost;
  private readonly retryPolicy: RetryPolicy;
  private readonly heartbeatMs: number;
  private readonly ackEveryChars: number;
  private readonly listeners = new Map<keyof ConnectionEventMap, Set<Listener<never>>>();

  private wantReadonly: boolean;
  private connectionState: ConnectionState = 'idle';
  private socket: SocketLike | null = null;
  /** Bumped by every attempt, stop and reconnect: late connector answers and socket events of old attempts are ignored. */
  private attempt = 0;
  private failures = 0;
  private retryTimer: unknown = null;
  private heartbeatTimer: unknown = null;
  private missedBeats = 0;

  /** Private resume proof of this controller: memory only, never storage. */
  private resumeProof: string | undefined;

  private currentGeneration: number | null = null;
  private currentSequence = 0;
  private geometry: { rows: number; cols: number } | null = null;
  private awaitingResync = false;
  private snapshotSeen = false;
  /** Between a socket's open and its first status frame: did a lease frame come? (held keys survive only then) */
  private attachLeaseSeen = false;
  private statusSeenThisSocket = false;

  private currentRole: RoleFrame['role'] | null = null;
  private currentRoleReason: RoleFrame['reason'] | null = null;
  private inputLimit = 0;
  private currentStatus: StatusFrame | null = null;
  private leaseView: LeaseView = { state: 'none', origin: null, leaseId: null, reason: null };
  /**
   * Bytes of the current lease's first key plus the keys held for its grant: they leave together (begin,
   * then one input frame), so together they stay within maxInputBytes. After the grant each frame is
   * checked alone; the running total until the program reads it is the server's to count ('input-limit').
   */
  private leaseBytes = 0;
  /** Keys typed before the grant, in order. */
  private held = '';

  private parsedSequence = 0;
  private ackedSequence = 0;
  private unackedChars = 0;

  constructor(options: ConnectionOptions) {
    this.connector = options.connector;
    this.wantReadonly = options.readonly ?? false;
    this.createSocket = options.createSocket ?? defaultSocketFactory;
    this.timers = options.timers ?? defaultTimers;
    this.retryPolicy = { ...DEFAULT_RETRY, ...options.retry };
    this.heartbeatMs = options.heartbeatMs ?? 15000;
    this.ackEveryChars = options.ackEveryChars ?? 8192;
  }

  // ---------------------------------------------------------------------------------------------- events

  on<K extends keyof ConnectionEventMap>(type: K, listener: Listener<ConnectionEventMap[K]>): () => void {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    set.add(listener as Listener<never>);
    return () => set.delete(listener as Listener<never>);
  }

  private emit<K extends keyof ConnectionEventMap>(type: K, event: ConnectionEventMap[K]): void {
    const set = this.listeners.get(type);
    if (!set) return;
    for (const listener of [...set]) (listener as Listener<ConnectionEventMap[K]>)(event);
  }

  // ---------------------------------------------------------------------------------------------- read-outs

  get state(): ConnectionState {
    return this.connectionState;
  }
  get role(): RoleFrame['role'] | null {
    return this.currentRole;
  }
  get roleReason(): RoleFrame['reason'] | null {
    return this.currentRoleReason;
  }
  get status(): StatusFrame | null {
    return this.currentStatus;
  }
  get lease(): LeaseView {
    return { ...this.leaseView };
  }
  get generation(): number | null {
    return this.currentGeneration;
  }
  get sequence(): number {
    return this.currentSequence;
  }
  get rows(): number | null {
    return this.geometry?.rows ?? null;
  }
  get cols(): number | null {
    return this.geometry?.cols ?? null;
  }
  get maxInputBytes(): number {
    return this.inputLimit;
  }
  get inputBytesUsed(): number {
    return this.leaseBytes;
  }
  get heldInput(): string {
    return this.held;
  }
  get readonlyRequested(): boolean {
    return this.wantReadonly;
  }
  /** For tests and diagnostics only: whether a resume proof is held (its value never leaves this object). */
  get hasResumeProof(): boolean {
    return this.resumeProof !== undefined;
  }

  get isController(): boolean {
    return this.currentRole === 'controller';
  }
  /** The queue is completely idle: a first key may begin a lease. */
  get queueIdle(): boolean {
    const s = this.currentStatus;
    return !!s && s.queueStatus === 'ready' && s.holder === null && s.pendingCount === 0 && s.process.kind === 'running';
  }
  get canTakeOver(): boolean {
    return this.connectionState === 'connected' && this.isController && this.leaseView.state === 'none' && !!this.currentStatus?.takeoverId;
  }
  get canInterrupt(): boolean {
    return this.connectionState === 'connected' && this.isController && this.leaseView.state === 'granted';
  }
  get canReset(): boolean {
    return this.connectionState === 'connected' && this.isController;
  }

  // ---------------------------------------------------------------------------------------------- commands

  /** Open the first connection. */
  start(): void {
    if (this.connectionState !== 'idle' && this.connectionState !== 'stopped') return;
    this.setState('connecting', null, null);
    void this.open();
  }

  /** The person pressed Reconnect (or the mode changed): drop the socket and attach again now, with the proof. */
  reconnect(): void {
    this.clearRetry();
    this.dropSocket(CloseCode.normal, 'reconnect');
    this.failures = 0;
    this.setState(this.snapshotSeen ? 'reconnecting' : 'connecting', null, 0);
    void this.open();
  }

  /** Ask for a read-only (or a controller) view; reconnects when it changes. */
  setReadonly(readonly: boolean): void {
    if (readonly === this.wantReadonly) return;
    this.wantReadonly = readonly;
    if (this.connectionState === 'idle' || this.connectionState === 'stopped' || this.connectionState === 'disposed') return;
    this.reconnect();
  }

  /** Close the socket and stop retrying; the proof stays in memory so that start() may resume control. */
  stop(): void {
    this.clearRetry();
    this.attempt += 1;
    this.dropSocket(CloseCode.normal, 'view stopped');
    if (this.connectionState !== 'idle') this.setState('stopped', null, null);
  }

  /** Forget everything this view knew: the proof and the held keys too. */
  dispose(): void {
    this.stop();
    this.resumeProof = undefined;
    this.held = '';
    this.setLease({ state: 'none', origin: null, leaseId: null, reason: null });
    this.listeners.clear();
  }

  /**
   * Keys from the renderer (already cleaned of its own query replies). At an idle prompt the first key asks
   * for a lease; keys typed before the grant are held and sent once after it.
   */
  input(data: string): void {
    if (data.length === 0) return;
    if (this.currentRole === 'readonly' || (this.wantReadonly && this.currentRole === null)) {
      this.notice('readonly', null);
      return;
    }
    const lease = this.leaseView.state;
    // Live: attached on this socket (the first status frame came) as the controller.
    const live = this.connectionState === 'connected' && this.statusSeenThisSocket && this.currentRole === 'controller';
    if (lease === 'granted' && live) {
      if (utf8ByteLength(data) > this.frameLimit()) {
        this.notice('input-limit', null);
        return;
      }
      this.send({ v: 1, type: 'input', generation: this.generationOrZero(), input: data });
      return;
    }
    if (lease !== 'none') {
      // Requested, queued, or granted but the socket is away: hold the keys for the grant.
      if (this.held.length === 0 && lease === 'granted') this.leaseBytes = 0; // a fresh batch for a granted lease
      if (!this.count(data)) return;
      this.held += data;
      return;
    }
    if (!live) {
      this.notice('not-connected', null);
      return;
    }
    if (!this.queueIdle) {
      const s = this.currentStatus;
      if (s?.queueStatus === 'blocked') this.notice('blocked', null);
      else if (s?.queueStatus === 'exited' || s?.process.kind === 'exited') this.notice('exited', null);
      else this.notice('busy', null);
      return;
    }
    this.leaseBytes = 0;
    if (!this.count(data)) return;
    this.send({ v: 1, type: 'begin', generation: this.generationOrZero(), input: data });
    this.setLease({ state: 'requested', origin: 'idle', leaseId: null, reason: null });
  }

  /** Take over input: the running model send becomes this person's lease. */
  takeover(): boolean {
    if (!this.canTakeOver || !this.currentStatus?.takeoverId) return false;
    this.leaseBytes = 0;
    this.send({ v: 1, type: 'takeover', generation: this.generationOrZero(), takeoverId: this.currentStatus.takeoverId });
    this.setLease({ state: 'requested', origin: 'takeover', leaseId: null, reason: null });
    return true;
  }

  /** Interrupt input: SIGINT to the foreground program; the lease stays until the prompt is back. */
  interrupt(): boolean {
    if (!this.canInterrupt) return false;
    this.send({ v: 1, type: 'interrupt', generation: this.generationOrZero() });
    return true;
  }

  /** Reset Terminal, after the person confirmed it. */
  reset(): boolean {
    if (!this.canReset) {
      if (this.currentRole === 'readonly') this.notice('readonly', null);
      return false;
    }
    this.send({ v: 1, type: 'reset', generation: this.generationOrZero(), confirmed: true });
    return true;
  }

  /** The renderer parsed every output up to `sequence` (`chars` more characters): acks go out from here. */
  parsed(sequence: number, chars: number): void {
    if (sequence > this.parsedSequence) this.parsedSequence = sequence;
    this.unackedChars += chars;
    const caughtUp = this.parsedSequence >= this.currentSequence;
    if (this.parsedSequence > this.ackedSequence && (caughtUp || this.unackedChars >= this.ackEveryChars)) {
      this.ackedSequence = this.parsedSequence;
      this.unackedChars = 0;
      this.send({ v: 1, type: 'ack', generation: this.generationOrZero(), sequence: this.parsedSequence });
    }
  }

  // ---------------------------------------------------------------------------------------------- attempts

  private async open(): Promise<void> {
    const attempt = ++this.attempt;
    const readonly = this.wantReadonly;
    let ticket;
    try {
      ticket = await this.connector({ readonly });
    } catch (error) {
      if (attempt !== this.attempt) return;
      this.notice('connect-failed', error instanceof Error ? error.message : String(error));
      this.scheduleRetry(null);
      return;
    }
    if (attempt !== this.attempt) return;
    if (!ticket || typeof ticket.url !== 'string' || typeof ticket.token !== 'string' || !SECRET_PATTERN.test(ticket.token)) {
      this.notice('connect-failed', 'the connector returned no valid {url, token}: the token must be 43 base64url characters');
      this.setState('failed', null, null);
      return;
    }
    const protocols = subprotocolsFor(ticket.token, readonly ? { readonly: true } : this.resumeProof ? { resume: this.resumeProof } : {});
    let socket: SocketLike;
    try {
      socket = this.createSocket(ticket.url, protocols);
    } catch (error) {
      this.notice('connect-failed', error instanceof Error ? error.message : String(error));
      this.setState('failed', null, null);
      return;
    }
    this.socket = socket;
    this.snapshotSeenOnSocket = false;
    this.attachLeaseSeen = false;
    this.statusSeenThisSocket = false;
    this.awaitingResync = false;
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.startHeartbeat();
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      this.missedBeats = 0;
      if (typeof event.data !== 'string') {
        this.protocolFailure('the server sent a binary frame');
        return;
      }
      const parsed = parseServerFrame(event.data);
      if (!parsed.ok) {
        this.protocolFailure(parsed.error);
        return;
      }
      this.handle(parsed.frame);
    };
    socket.onerror = () => {
      // A close event always follows; the decision is made there.
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.stopHeartbeat();
      this.closed(event.code, event.reason);
    };
  }
  private snapshotSeenOnSocket = false;

  private closed(code: number, reason: string): void {
    if (code === CloseCode.refused) {
      // Retrying would be refused the same way: say why, and wait for the person (after the host is fixed).
      this.forgetLease('failed');
      this.notice('refused', reason || null);
      this.setState('failed', code, null);
      return;
    }
    if (code === CloseCode.disposed) {
      this.resumeProof = undefined;
      this.forgetLease('disposed');
      this.notice('disposed', null);
      this.setState('disposed', code, null);
      return;
    }
    if (NO_RETRY_CODES.has(code)) {
      this.forgetLease('failed');
      this.notice('protocol-error', `the server closed the connection (${code})`);
      this.setState('failed', code, null);
      return;
    }
    if (code === CloseCode.reset) {
      // A new generation: the lease and held keys belong to the old shell. Attach again at once.
      this.forgetLease('reset');
      this.failures = 0;
      this.setState('reconnecting', code, 0);
      void this.open();
      return;
    }
    // Network loss, heartbeat timeout, shutdown, server error: keep the proof and the held keys (they go out
    // only if the lease comes back), and retry with backoff.
    this.notice('reconnecting', null);
    this.scheduleRetry(code);
  }

  private scheduleRetry(code: number | null): void {
    const delay = Math.min(this.retryPolicy.maxMs, this.retryPolicy.initialMs * 2 ** this.failures);
    this.failures += 1;
    this.clearRetry();
    const attempt = this.attempt;
    this.setState('reconnecting', code, delay);
    this.retryTimer = this.timers.setTimeout(() => {
      this.retryTimer = null;
      if (attempt !== this.attempt) return;
      this.emit('state', { state: this.connectionState, previous: this.connectionState, closeCode: null, retryInMs: null }); // retrying now
      void this.open();
    }, delay);
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) this.timers.clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private dropSocket(code: number, reason: string): void {
    const socket = this.socket;
    this.socket = null;
    this.stopHeartbeat();
    if (!socket) return;
    socket.onopen = socket.onmessage = socket.onerror = socket.onclose = null;
    try {
      socket.close(code, reason);
    } catch {
      // already closed
    }
  }

  private protocolFailure(detail: string): void {
    this.attempt += 1;
    this.dropSocket(CloseCode.protocolError, 'bad frame');
    this.clearRetry();
    this.forgetLease('failed');
    this.notice('protocol-error', detail);
    this.setState('failed', CloseCode.protocolError, null);
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    if (this.heartbeatMs <= 0) return;
    this.missedBeats = 0;
    const beat = (): void => {
      this.heartbeatTimer = null;
      if (!this.socket) return;
      if (this.missedBeats >= 2) {
        // Two intervals without a single frame: the socket is half-open. Treat it as a network loss.
        this.dropSocket(CloseCode.normal, 'heartbeat timeout');
        this.notice('reconnecting', null);
        this.scheduleRetry(CloseCode.heartbeatTimeout);
        return;
      }
      this.missedBeats += 1;
      if (this.currentGeneration !== null) this.send({ v: 1, type: 'ping', generation: this.currentGeneration, t: this.missedBeats });
      this.heartbeatTimer = this.timers.setTimeout(beat, this.heartbeatMs);
    };
    this.heartbeatTimer = this.timers.setTimeout(beat, this.heartbeatMs);
  }

  private stopHeartbeat(): void {
    if (this.heartbeatTimer !== null) this.timers.clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  // ---------------------------------------------------------------------------------------------- frames

  private handle(frame: ServerFrame): void {
    switch (frame.type) {
      case 'snapshot':
        this.onSnapshot(frame);
        return;
      case 'output':
        this.onOutput(frame);
        return;
      case 'role':
        this.onRole(frame);
        return;
      case 'status':
        this.onStatus(frame);
        return;
      case 'lease':
        this.onLease(frame);
        return;
      case 'notice':
        this.notice(frame.code, frame.message);
        return;
      case 'pong':
        return;
    }
  }

  private onSnapshot(frame: SnapshotFrame): void {
    const previous = this.currentGeneration;
    if (previous !== null && previous !== frame.generation) {
      this.forgetLease('reset');
    }
    this.currentGeneration = frame.generation;
    this.currentSequence = frame.sequence;
    this.parsedSequence = Math.min(this.parsedSequence, frame.sequence);
    // Every snapshot is acked once parsed, even one with the sequence already acked (a full snapshot after
    // a catch-up): the server counts its replay as in flight until then.
    this.ackedSequence = Math.min(this.ackedSequence, frame.sequence - 1);
    this.unackedChars = 0;
    this.geometry = { rows: frame.rows, cols: frame.cols };
    this.awaitingResync = false;
    this.snapshotSeen = true;
    this.snapshotSeenOnSocket = true;
    this.failures = 0;
    if (previous !== frame.generation) this.emit('generation', { generation: frame.generation, previous });
    this.emit('snapshot', frame);
    if (this.connectionState !== 'connected') this.setState('connected', null, null);
  }

  private onOutput(frame: OutputFrame): void {
    if (!this.snapshotSeenOnSocket || this.awaitingResync) return;
    if (frame.generation !== this.currentGeneration) {
      this.requestResync();
      return;
    }
    if (frame.sequence <= this.currentSequence) return; // a duplicate
    if (frame.sequence !== this.currentSequence + 1) {
      this.requestResync();
      return;
    }
    this.currentSequence = frame.sequence;
    this.emit('output', frame);
  }

  private requestResync(): void {
    this.awaitingResync = true;
    this.send({ v: 1, type: 'resync', generation: this.generationOrZero() });
  }

  private onRole(frame: RoleFrame): void {
    this.currentRole = frame.role;
    this.currentRoleReason = frame.reason;
    this.inputLimit = frame.maxInputBytes;
    if (frame.role === 'controller') {
      if (frame.resume) this.resumeProof = frame.resume;
    } else {
      if (frame.reason === 'invalid-resume') this.resumeProof = undefined;
      this.forgetLease(null);
    }
    this.emit('role', { role: frame.role, reason: frame.reason });
  }

  private onStatus(frame: StatusFrame): void {
    const previous = this.currentStatus;
    this.currentStatus = frame;
    // Say once, when it happens, that the terminal needs a reset (the status line keeps saying it).
    if (frame.queueStatus === 'blocked' && previous?.queueStatus !== 'blocked') this.notice('blocked', null);
    const exited = frame.process.kind === 'exited' || frame.queueStatus === 'exited';
    const wasExited = !!previous && (previous.process.kind === 'exited' || previous.queueStatus === 'exited');
    if (exited && !wasExited) this.notice('exited', null);
    if (!this.statusSeenThisSocket) {
      this.statusSeenThisSocket = true;
      // After a (re)attach, held keys and a pending lease survive only if the server re-announced the lease
      // before the first status frame; otherwise they are dropped, never sent late.
      if (!this.attachLeaseSeen && this.leaseView.state !== 'none') this.forgetLease(null);
    }
    this.emit('status', frame);
    this.flushHeld();
  }

  private onLease(frame: LeaseFrame): void {
    if (!this.statusSeenThisSocket) this.attachLeaseSeen = true;
    if (frame.state === 'revoked') {
      this.forgetLease(frame.reason ?? null);
      return;
    }
    this.setLease({ state: frame.state, origin: frame.origin, leaseId: frame.leaseId, reason: null });
    this.flushHeld();
  }

  /** Held keys go out once, in one input frame, as soon as the lease is granted on a live socket. */
  private flushHeld(): void {
    if (this.held.length === 0 || this.leaseView.state !== 'granted' || this.connectionState !== 'connected' || !this.socket) return;
    const keys = this.held;
    this.held = '';
    this.send({ v: 1, type: 'input', generation: this.generationOrZero(), input: keys });
  }

  // ---------------------------------------------------------------------------------------------- helpers

  /** The largest input one frame may carry (a bigger one would fail validation and close the socket). */
  private frameLimit(): number {
    return this.inputLimit > 0 ? this.inputLimit : MAX_HELD_BYTES_DEFAULT;
  }

  /** Count the first key and held keys against the frame limit; refuse (with a notice) what would go over. */
  private count(data: string): boolean {
    const bytes = utf8ByteLength(data);
    if (this.leaseBytes + bytes > this.frameLimit()) {
      this.notice('input-limit', null);
      return false;
    }
    this.leaseBytes += bytes;
    return true;
  }

  private forgetLease(reason: LeaseView['reason'] | 'disposed' | 'reset' | null): void {
    if (this.held.length > 0) {
      this.held = '';
      this.notice('discarded-input', null);
    }
    this.leaseBytes = 0;
    if (this.leaseView.state === 'none' && reason === null) return;
    const leaseReason = reason === 'disposed' || reason === 'reset' ? null : reason;
    if (this.leaseView.state !== 'none' || leaseReason !== this.leaseView.reason)
      this.setLease({ state: 'none', origin: null, leaseId: null, reason: leaseReason });
  }

  private setLease(view: LeaseView): void {
    const old = this.leaseView;
    this.leaseView = view;
    if (old.state !== view.state || old.leaseId !== view.leaseId || old.origin !== view.origin || old.reason !== view.reason)
      this.emit('lease', { ...view });
  }

  private setState(state: ConnectionState, closeCode: number | null, retryInMs: number | null): void {
    const previous = this.connectionState;
    if (previous === state && retryInMs === null) return;
    this.connectionState = state;
    if (state !== 'connected' && state !== 'reconnecting') this.clearRetry();
    this.emit('state', { state, previous, closeCode, retryInMs });
  }

  private notice(code: ViewNoticeCode, detail: string | null): void {
    this.emit('notice', { code, detail });
  }

  private generationOrZero(): number {
    return this.currentGeneration ?? 0;
  }

  private send(frame: ClientFrame): void {
    const socket = this.socket;
    if (!socket) return;
    try {
      socket.send(encodeFrame(frame));
    } catch {
      // The close event will follow and decide what happens next.
    }
  }
}
