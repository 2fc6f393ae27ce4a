/**
 * TerminalConnection: one view's connection to the server, in plain TypeScript with no DOM. It owns the
 * socket of the moment (ticket from the host's connector, subprotocol handshake with the in-memory resume
 * proof, frame validation), the role and status, and the events the element listens to; it composes the
 * rooms that own each rule: `connection/lifecycle.ts` (states, what a close code leads to), `retry.ts`
 * (backoff), `heartbeat.ts` (half-open sockets), `sequence.ts` (ordering, resync, acks) and
 * `input-gate.ts` (lease and held keys). It knows nothing of xterm.js: the element listens to `snapshot`
 * and `output` and reports back with `parsed()`.
 *
 * Never: a retry of its own after a protocol error, a refusal or a disposed terminal; the resume proof
 * anywhere but in memory; a key sent twice.
 *
 * Over 500 lines: the public read-outs and commands, and the wiring of the rooms; no rule lives here alone.
 */
import {
  CloseCode,
  PROTOCOL_VERSION,
  SECRET_PATTERN,
  encodeFrame,
  parseServerFrame,
  subprotocolsFor,
  type ClientFrame,
  type Connector,
  type OutputFrame,
  type RoleFrame,
  type ServerFrame,
  type SnapshotFrame,
  type StatusFrame,
} from '@shared-terminal/server/protocol';
import { Heartbeat } from './connection/heartbeat.ts';
import { InputGate, queueIdle, type GateView, type LeaseView } from './connection/input-gate.ts';
import { LIVE_STATES, STARTABLE, closeDecision, type ConnectionState } from './connection/lifecycle.ts';
import type { ViewNotice, ViewNoticeCode } from './connection/notices.ts';
import { DEFAULT_RETRY, RetrySchedule, type RetryPolicy } from './connection/retry.ts';
import { OutputSequence } from './connection/sequence.ts';
import { defaultSocketFactory, type SocketFactory, type SocketLike } from './connection/socket.ts';
import { defaultTimers, type TimerHost } from './connection/timers.ts';

export type { ConnectionState } from './connection/lifecycle.ts';
export type { LeaseState, LeaseView } from './connection/input-gate.ts';
export type { LocalNoticeCode, ViewNotice, ViewNoticeCode } from './connection/notices.ts';
export type { RetryPolicy } from './connection/retry.ts';
export type { TimerHost } from './connection/timers.ts';
export type { SocketFactory, SocketLike } from './connection/socket.ts';

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

/** Each client frame without its version (distributes over the union); `send` adds the version, once. */
type WithoutVersion<F> = F extends unknown ? Omit<F, 'v'> : never;
type Outgoing = WithoutVersion<ClientFrame>;

export class TerminalConnection {
  private readonly connector: Connector;
  private readonly createSocket: SocketFactory;
  private readonly listeners = new Map<keyof ConnectionEventMap, Set<Listener<never>>>();
  private readonly retry: RetrySchedule;
  private readonly heartbeat: Heartbeat;
  private readonly stream: OutputSequence;
  private readonly gate: InputGate;

  private wantReadonly: boolean;
  private connectionState: ConnectionState = 'idle';
  private socket: SocketLike | null = null;
  /** Bumped by every attempt, stop and reconnect: late connector answers and socket events of old attempts are ignored. */
  private attempt = 0;
  /** Private resume proof of this controller: memory only, never storage. */
  private resumeProof: string | undefined;
  private geometry: { rows: number; cols: number } | null = null;
  /** A snapshot arrived on some socket: a new attempt is a reconnect, not a first connect. */
  private snapshotSeen = false;
  private currentRole: RoleFrame['role'] | null = null;
  private currentRoleReason: RoleFrame['reason'] | null = null;
  private currentStatus: StatusFrame | null = null;

  constructor(options: ConnectionOptions) {
    this.connector = options.connector;
    this.wantReadonly = options.readonly ?? false;
    this.createSocket = options.createSocket ?? defaultSocketFactory;
    const timers = options.timers ?? defaultTimers;
    this.retry = new RetrySchedule(timers, { ...DEFAULT_RETRY, ...options.retry });
    this.heartbeat = new Heartbeat(timers, options.heartbeatMs ?? 15000, {
      ping: (beat) => {
        const generation = this.stream.generation;
        if (generation !== null) this.send({ type: 'ping', generation, t: beat });
      },
      dead: () => {
        // Two intervals without a single frame: the socket is half-open. Treat it as a network loss.
        this.dropSocket(CloseCode.normal, 'heartbeat timeout');
        this.notice('reconnecting', null);
        this.scheduleRetry(CloseCode.heartbeatTimeout);
      },
    });
    this.stream = new OutputSequence(options.ackEveryChars ?? 8192);
    this.gate = new InputGate({
      lease: (view) => this.emit('lease', view),
      notice: (code) => this.notice(code, null),
    });
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
    return this.gate.lease;
  }
  get generation(): number | null {
    return this.stream.generation;
  }
  get sequence(): number {
    return this.stream.sequence;
  }
  get rows(): number | null {
    return this.geometry?.rows ?? null;
  }
  get cols(): number | null {
    return this.geometry?.cols ?? null;
  }
  get maxInputBytes(): number {
    return this.gate.maxInputBytes;
  }
  get inputBytesUsed(): number {
    return this.gate.bytesUsed;
  }
  get heldInput(): string {
    return this.gate.heldInput;
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
    return queueIdle(this.currentStatus);
  }
  /** A controller that did not ask to be read only, on a live socket: the actions below need all three. */
  private get acting(): boolean {
    return this.connectionState === 'connected' && this.isController && !this.wantReadonly;
  }
  get canTakeOver(): boolean {
    return this.acting && this.gate.lease.state === 'none' && !!this.currentStatus?.takeoverId;
  }
  get canInterrupt(): boolean {
    return this.acting && this.gate.lease.state === 'granted';
  }
  get canReset(): boolean {
    return this.acting;
  }

  // ---------------------------------------------------------------------------------------------- commands

  /** Open the first connection. */
  start(): void {
    if (!STARTABLE.has(this.connectionState)) return;
    this.setState('connecting', null, null);
    void this.open();
  }

  /** The person pressed Reconnect (or the mode changed): drop the socket and attach again now, with the proof. */
  reconnect(): void {
    this.retry.cancel();
    this.dropSocket(CloseCode.normal, 'reconnect');
    this.retry.reset();
    this.setState(this.snapshotSeen ? 'reconnecting' : 'connecting', null, 0);
    void this.open();
  }

  /** Ask for a read-only (or a controller) view; reconnects when it changes. */
  setReadonly(readonly: boolean): void {
    if (readonly === this.wantReadonly) return;
    this.wantReadonly = readonly;
    if (LIVE_STATES.has(this.connectionState)) this.reconnect();
  }

  /** Close the socket and stop retrying; the proof stays in memory so that start() may resume control. */
  stop(): void {
    this.retry.cancel();
    this.attempt += 1;
    this.dropSocket(CloseCode.normal, 'view stopped');
    if (this.connectionState !== 'idle') this.setState('stopped', null, null);
  }

  /** Forget everything this view knew: the proof and the held keys too. */
  dispose(): void {
    this.stop();
    this.resumeProof = undefined;
    this.gate.clear();
    this.listeners.clear();
  }

  /**
   * Keys from the renderer (already cleaned of its own query replies). At an idle prompt the first key asks
   * for a lease; keys typed before the grant are held and sent once after it (input-gate.ts).
   */
  input(data: string): void {
    if (data.length === 0) return;
    const decision = this.gate.input(data, this.gateView());
    switch (decision.kind) {
      case 'refused':
        this.notice(decision.notice, null);
        return;
      case 'send':
        this.send({ type: 'input', generation: this.generationOrZero(), input: decision.input });
        return;
      case 'begin':
        this.send({ type: 'begin', generation: this.generationOrZero(), input: decision.input });
        this.gate.requested('idle');
        return;
      case 'held':
        return;
    }
  }

  /** Take over input: the running model send becomes this person's lease. */
  takeover(): boolean {
    const takeoverId = this.currentStatus?.takeoverId;
    if (!this.canTakeOver || !takeoverId) return false;
    this.send({ type: 'takeover', generation: this.generationOrZero(), takeoverId });
    this.gate.requested('takeover');
    return true;
  }

  /** Interrupt input: SIGINT to the foreground program; the lease stays until the prompt is back. */
  interrupt(): boolean {
    if (!this.canInterrupt) return false;
    this.send({ type: 'interrupt', generation: this.generationOrZero() });
    return true;
  }

  /** Reset Terminal, after the person confirmed it. */
  reset(): boolean {
    if (!this.canReset) {
      if (this.currentRole === 'readonly' || this.wantReadonly) this.notice('readonly', null);
      return false;
    }
    this.send({ type: 'reset', generation: this.generationOrZero(), confirmed: true });
    return true;
  }

  /** The renderer parsed every output up to `sequence` (`chars` more characters): acks go out from here. */
  parsed(sequence: number, chars: number): void {
    const ack = this.stream.parsed(sequence, chars);
    if (ack !== null) this.send({ type: 'ack', generation: this.generationOrZero(), sequence: ack });
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
    this.stream.attach();
    this.gate.attaching();
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.heartbeat.start();
    };
    socket.onmessage = (event) => {
      if (this.socket !== socket) return;
      this.heartbeat.heard();
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
      this.heartbeat.stop();
      this.closed(event.code, event.reason);
    };
  }

  private closed(code: number, reason: string): void {
    switch (closeDecision(code)) {
      case 'refused':
        // Retrying would be refused the same way: say why, and wait for the person (after the host is fixed).
        this.gate.forget('failed');
        this.notice('refused', reason || null);
        this.setState('failed', code, null);
        return;
      case 'disposed':
        this.resumeProof = undefined;
        this.gate.forget('disposed');
        this.notice('disposed', null);
        this.setState('disposed', code, null);
        return;
      case 'protocol-error':
        this.gate.forget('failed');
        this.notice('protocol-error', `the server closed the connection (${code})`);
        this.setState('failed', code, null);
        return;
      case 'reattach':
        // A new generation: the lease and held keys belong to the old shell. Attach again at once.
        this.gate.forget('reset');
        this.retry.reset();
        this.setState('reconnecting', code, 0);
        void this.open();
        return;
      case 'retry':
        // Keep the proof and the held keys (they go out only if the lease comes back), and retry with backoff.
        this.notice('reconnecting', null);
        this.scheduleRetry(code);
        return;
    }
  }

  private scheduleRetry(code: number | null): void {
    const attempt = this.attempt;
    const delay = this.retry.schedule(() => {
      if (attempt !== this.attempt) return;
      this.emit('state', { state: this.connectionState, previous: this.connectionState, closeCode: null, retryInMs: null }); // retrying now
      void this.open();
    });
    this.setState('reconnecting', code, delay);
  }

  private dropSocket(code: number, reason: string): void {
    const socket = this.socket;
    this.socket = null;
    this.heartbeat.stop();
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
    this.retry.cancel();
    this.gate.forget('failed');
    this.notice('protocol-error', detail);
    this.setState('failed', CloseCode.protocolError, null);
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
        this.gate.leaseFrame(frame);
        this.flushHeld();
        return;
      case 'notice':
        this.notice(frame.code, frame.message);
        return;
      case 'pong':
        return;
    }
  }

  private onSnapshot(frame: SnapshotFrame): void {
    const known = this.stream.generation;
    if (known !== null && known !== frame.generation) this.gate.forget('reset');
    const previous = this.stream.snapshot(frame.generation, frame.sequence);
    this.geometry = { rows: frame.rows, cols: frame.cols };
    this.snapshotSeen = true;
    this.retry.reset();
    if (previous !== frame.generation) this.emit('generation', { generation: frame.generation, previous });
    this.emit('snapshot', frame);
    if (this.connectionState !== 'connected') this.setState('connected', null, null);
  }

  private onOutput(frame: OutputFrame): void {
    const verdict = this.stream.output(frame.generation, frame.sequence);
    if (verdict === 'resync') this.send({ type: 'resync', generation: this.generationOrZero() });
    else if (verdict === 'apply') this.emit('output', frame);
  }

  private onRole(frame: RoleFrame): void {
    this.currentRole = frame.role;
    this.currentRoleReason = frame.reason;
    this.gate.setLimit(frame.maxInputBytes);
    if (frame.role === 'controller') {
      if (frame.resume) this.resumeProof = frame.resume;
    } else {
      if (frame.reason === 'invalid-resume') this.resumeProof = undefined;
      this.gate.forget(null);
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
    this.gate.status();
    this.emit('status', frame);
    this.flushHeld();
  }

  /** Held keys go out once, in one input frame, as soon as the lease is granted on a live socket. */
  private flushHeld(): void {
    const keys = this.gate.takeHeld(this.connectionState === 'connected' && this.socket !== null);
    if (keys !== null) this.send({ type: 'input', generation: this.generationOrZero(), input: keys });
  }

  // ---------------------------------------------------------------------------------------------- helpers

  private gateView(): GateView {
    return {
      role: this.currentRole,
      readonlyRequested: this.wantReadonly,
      connected: this.connectionState === 'connected',
      status: this.currentStatus,
    };
  }

  private setState(state: ConnectionState, closeCode: number | null, retryInMs: number | null): void {
    const previous = this.connectionState;
    if (previous === state && retryInMs === null) return;
    this.connectionState = state;
    if (state !== 'connected' && state !== 'reconnecting') this.retry.cancel();
    this.emit('state', { state, previous, closeCode, retryInMs });
  }

  private notice(code: ViewNoticeCode, detail: string | null): void {
    this.emit('notice', { code, detail });
  }

  private generationOrZero(): number {
    return this.stream.generation ?? 0;
  }

  private send(frame: Outgoing): void {
    const socket = this.socket;
    if (!socket) return;
    try {
      socket.send(encodeFrame({ v: PROTOCOL_VERSION, ...frame } as ClientFrame));
    } catch {
      // The close event will follow and decide what happens next.
    }
  }
}
