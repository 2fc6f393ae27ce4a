/**
 * A scripted, in-memory server that speaks the shared terminal's browser protocol without a network or a
 * PTY. Storybook drives every visible state of the element with it, and the controller's unit tests use it
 * to produce faults a real server will not produce on demand (a sequence gap, a garbled frame, a close code
 * at an exact moment). Everything a test needs is public: frames received (validated with the real
 * `parseClientFrame`), the sockets, and methods that send any server frame.
 *
 * In `shell` mode it also plays a tiny prompt: a first key at an idle prompt is granted, keys echo, Enter
 * "runs" the line (`echo` prints its arguments) and the lease ends at the next prompt. DOM-free.
 */
import {
  CloseCode,
  PROTOCOL_VERSION,
  READONLY_SUBPROTOCOL,
  RESUME_PREFIX,
  SUBPROTOCOL,
  TOKEN_PREFIX,
  encodeFrame,
  parseClientFrame,
  type ClientFrame,
  type ConnectTicket,
  type LeaseFrame,
  type NoticeCode,
  type RoleFrame,
  type ServerFrame,
  type SnapshotFrame,
  type StatusFrame,
} from '@shared-terminal/server/protocol';

/** The socket the element's connection talks through (its `SocketLike`, restated so this package needs no element). */
export interface ClientSocket {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}

export type ScriptedMode = 'manual' | 'shell';

/** A status frame's fields for a running shell at an idle prompt with nothing queued. */
export const IDLE_STATUS = {
  process: { kind: 'running' },
  queueStatus: 'ready',
  holder: null,
  pendingCount: 0,
  pendingKinds: [],
  takeoverId: null,
  inputWait: null,
} as const satisfies Partial<StatusFrame>;

export interface ScriptedServerOptions {
  mode?: ScriptedMode;
  rows?: number;
  cols?: number;
  generation?: number;
  /** What a fresh connection is told. */
  role?: RoleFrame['role'];
  roleReason?: RoleFrame['reason'];
  maxInputBytes?: number;
  /** Initial screen text (ANSI allowed). */
  screen?: string;
  status?: Partial<Omit<StatusFrame, 'v' | 'type' | 'generation'>>;
  /** Delay before a socket opens, in ms (0 = next microtask). Used to show "connecting". */
  openDelayMs?: number;
  /** Never open sockets: the view stays "connecting". */
  neverOpen?: boolean;
  /** The prompt shell mode prints. */
  prompt?: string;
}

type StatusFields = Omit<StatusFrame, 'v' | 'type' | 'generation'>;

export interface ReceivedFrame {
  socket: ScriptedSocket;
  frame: ClientFrame;
}

let tokenCounter = 0;
function fakeSecret(): string {
  tokenCounter += 1;
  return `${'t'.repeat(43 - String(tokenCounter).length)}${tokenCounter}`;
}

export class ScriptedSocket implements ClientSocket {
  onopen: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;
  onclose: ((event: { code: number; reason: string }) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  readonly url: string;
  readonly protocols: string[];
  readonly server: ScriptedServer;
  open = false;
  closed = false;
  closeCode: number | null = null;
  /** Raw texts the client sent on this socket. */
  readonly sent: string[] = [];

  constructor(server: ScriptedServer, url: string, protocols: string[]) {
    this.server = server;
    this.url = url;
    this.protocols = protocols;
  }

  get readonlyMode(): boolean {
    return this.protocols.includes(READONLY_SUBPROTOCOL);
  }
  get resume(): string | undefined {
    return this.protocols.find((p) => p.startsWith(RESUME_PREFIX))?.slice(RESUME_PREFIX.length);
  }
  get token(): string | undefined {
    return this.protocols.find((p) => p.startsWith(TOKEN_PREFIX))?.slice(TOKEN_PREFIX.length);
  }

  send(data: string): void {
    if (this.closed) throw new Error('socket is closed');
    this.sent.push(data);
    this.server.receive(this, data);
  }

  /** The client closed it. */
  close(code: number = CloseCode.normal, reason = ''): void {
    if (this.closed) return;
    this.closed = true;
    this.closeCode = code;
    queueMicrotask(() => this.onclose?.({ code, reason }));
  }

  /** The server closes it with `code`. */
  serverClose(code: number, reason = ''): void {
    if (this.closed) return;
    this.closed = true;
    this.closeCode = code;
    queueMicrotask(() => this.onclose?.({ code, reason }));
  }

  /** Deliver raw text (valid or not) as a message. */
  deliverRaw(text: string): void {
    if (this.closed) return;
    this.onmessage?.({ data: text });
  }

  deliver(frame: ServerFrame): void {
    this.deliverRaw(encodeFrame(frame));
  }
}

export class ScriptedServer {
  readonly sockets: ScriptedSocket[] = [];
  readonly received: ReceivedFrame[] = [];
  readonly connectorCalls: Array<{ readonly: boolean }> = [];
  options: Required<Omit<ScriptedServerOptions, 'status' | 'screen'>>;
  generation: number;
  sequence = 0;
  rows: number;
  cols: number;
  status: StatusFields;
  /** Text the next snapshot replays. */
  screen: string;
  /** The proof the current controller may resume with. */
  resumeProof: string | undefined;
  leaseId = 0;
  lease: { id: number; state: 'queued' | 'granted'; origin: 'idle' | 'takeover' } | null = null;
  /** Make the connector fail with this error (once per entry). */
  connectorFailures: Error[] = [];
  private line = '';
  private frameListeners = new Set<(received: ReceivedFrame) => void>();

  constructor(options: ScriptedServerOptions = {}) {
    this.options = {
      mode: options.mode ?? 'manual',
      rows: options.rows ?? 24,
      cols: options.cols ?? 80,
      generation: options.generation ?? 1,
      role: options.role ?? 'controller',
      roleReason: options.roleReason ?? 'granted',
      maxInputBytes: options.maxInputBytes ?? 65536,
      openDelayMs: options.openDelayMs ?? 0,
      neverOpen: options.neverOpen ?? false,
      prompt: options.prompt ?? '\x1b[1;32m$\x1b[0m ',
    };
    this.generation = this.options.generation;
    this.rows = this.options.rows;
    this.cols = this.options.cols;
    this.screen = options.screen ?? this.options.prompt;
    this.status = {
      ...IDLE_STATUS,
      pendingKinds: [],
      ...options.status,
    };
  }

  // ---------------------------------------------------------------------------------------------- wiring

  /** The host's connector. */
  readonly connector = async (request: { readonly: boolean }): Promise<ConnectTicket> => {
    this.connectorCalls.push({ readonly: request.readonly });
    const failure = this.connectorFailures.shift();
    if (failure) throw failure;
    return { url: 'ws://scripted.invalid/terminal', token: fakeSecret() };
  };

  /** The socket factory to give the element or the controller. */
  readonly createSocket = (url: string, protocols: string[]): ScriptedSocket => {
    const socket = new ScriptedSocket(this, url, protocols);
    this.sockets.push(socket);
    if (this.options.neverOpen) return socket;
    const open = (): void => {
      if (socket.closed) return;
      socket.open = true;
      socket.onopen?.({});
      this.attach(socket);
    };
    if (this.options.openDelayMs > 0) setTimeout(open, this.options.openDelayMs);
    else queueMicrotask(open);
    return socket;
  };

  get socket(): ScriptedSocket | undefined {
    return this.sockets[this.sockets.length - 1];
  }

  onFrame(listener: (received: ReceivedFrame) => void): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  framesOfType<T extends ClientFrame['type']>(type: T): Array<Extract<ClientFrame, { type: T }>> {
    return this.received.filter((r) => r.frame.type === type).map((r) => r.frame as Extract<ClientFrame, { type: T }>);
  }

  // ---------------------------------------------------------------------------------------------- attach

  /** What a real server sends on attach: snapshot, role, a surviving lease, status. */
  attach(socket: ScriptedSocket): void {
    if (!socket.protocols.includes(SUBPROTOCOL)) {
      socket.serverClose(CloseCode.protocolError, 'missing subprotocol');
      return;
    }
    socket.deliver(this.snapshotFrame());
    let role = this.options.role;
    let reason: RoleFrame['reason'] = this.options.roleReason;
    if (socket.readonlyMode) {
      role = 'readonly';
      reason = 'readonly-requested';
    } else if (role === 'controller') {
      const offered = socket.resume;
      if (offered !== undefined && offered !== this.resumeProof) {
        role = 'readonly';
        reason = 'invalid-resume';
      } else if (offered !== undefined) reason = 'resumed';
    }
    const frame: RoleFrame = {
      v: PROTOCOL_VERSION,
      type: 'role',
      generation: this.generation,
      role,
      reason,
      maxInputBytes: this.options.maxInputBytes,
    };
    if (role === 'controller') {
      this.resumeProof = fakeSecret();
      frame.resume = this.resumeProof;
    }
    socket.deliver(frame);
    if (role === 'controller' && reason === 'resumed' && this.lease) socket.deliver(this.leaseFrame(this.lease.state));
    socket.deliver(this.statusFrame());
  }

  snapshotFrame(): SnapshotFrame {
    return {
      v: PROTOCOL_VERSION,
      type: 'snapshot',
      generation: this.generation,
      sequence: this.sequence,
      rows: this.rows,
      cols: this.cols,
      replay: this.screen,
      historyLines: 0,
      truncated: false,
      scrollbackLines: 1000,
    };
  }

  statusFrame(): StatusFrame {
    return { v: PROTOCOL_VERSION, type: 'status', generation: this.generation, ...this.status };
  }

  leaseFrame(state: LeaseFrame['state'], reason?: LeaseFrame['reason']): LeaseFrame {
    const frame: LeaseFrame = {
      v: PROTOCOL_VERSION,
      type: 'lease',
      generation: this.generation,
      state,
      leaseId: this.lease?.id ?? this.leaseId,
      origin: this.lease?.origin ?? 'idle',
    };
    if (reason) frame.reason = reason;
    return frame;
  }

  // ---------------------------------------------------------------------------------------------- server → client

  /** Send a frame on the newest open socket. */
  send(frame: ServerFrame): void {
    const socket = this.socket;
    if (socket && socket.open && !socket.closed) socket.deliver(frame);
  }

  /** Output from the "shell": recorded into the screen and sent with the next sequence. */
  output(data: string, options: { skip?: number } = {}): void {
    this.screen += data;
    this.sequence += 1 + (options.skip ?? 0);
    this.send({ v: PROTOCOL_VERSION, type: 'output', generation: this.generation, sequence: this.sequence, data });
  }

  setStatus(fields: Partial<StatusFields>): void {
    this.status = { ...this.status, ...fields };
    this.send(this.statusFrame());
  }

  notice(code: NoticeCode, message: string = code): void {
    this.send({ v: PROTOCOL_VERSION, type: 'notice', generation: this.generation, code, message });
  }

  grant(origin: 'idle' | 'takeover' = 'idle'): void {
    this.leaseId += 1;
    this.lease = { id: this.leaseId, state: 'granted', origin };
    this.send(this.leaseFrame('granted'));
  }

  queueLease(origin: 'idle' | 'takeover' = 'idle'): void {
    this.leaseId += 1;
    this.lease = { id: this.leaseId, state: 'queued', origin };
    this.send(this.leaseFrame('queued'));
  }

  revoke(reason: LeaseFrame['reason'] = 'prompt'): void {
    this.send(this.leaseFrame('revoked', reason));
    this.lease = null;
  }

  /** A new shell generation: fresh screen, sequence back to 0, every socket closed with 4001. */
  resetGeneration(screen = this.options.prompt): void {
    this.generation += 1;
    this.sequence = 0;
    this.screen = screen;
    this.lease = null;
    this.status = { ...this.status, ...IDLE_STATUS, pendingKinds: [] };
    for (const socket of this.sockets) socket.serverClose(CloseCode.reset, 'reset');
  }

  closeAll(code: number): void {
    for (const socket of this.sockets) socket.serverClose(code);
  }

  // ---------------------------------------------------------------------------------------------- client → server

  receive(socket: ScriptedSocket, text: string): void {
    const parsed = parseClientFrame(text, { maxInputBytes: this.options.maxInputBytes });
    if (!parsed.ok) {
      socket.serverClose(CloseCode.protocolError, parsed.error);
      return;
    }
    const received = { socket, frame: parsed.frame };
    this.received.push(received);
    for (const listener of this.frameListeners) listener(received);
    if (this.options.mode === 'shell') queueMicrotask(() => this.playShell(socket, parsed.frame));
  }

  private playShell(socket: ScriptedSocket, frame: ClientFrame): void {
    if (socket.closed) return;
    switch (frame.type) {
      case 'begin':
        if (this.status.queueStatus !== 'ready' || this.status.holder !== null) {
          this.notice('busy', 'Take over input before answering this operation.');
          socket.deliver(this.leaseFrame('revoked', 'refused'));
          return;
        }
        this.setStatus({ queueStatus: 'busy', holder: 'human' });
        this.grant('idle');
        this.type(frame.input);
        return;
      case 'input':
        if (this.lease?.state === 'granted') this.type(frame.input);
        else this.notice('lease-closed', 'The program already finished; that input was not sent.');
        return;
      case 'takeover':
        if (this.status.takeoverId !== frame.takeoverId) {
          this.notice('takeover-unavailable', 'Take over is no longer available.');
          return;
        }
        this.setStatus({ holder: 'human', takeoverId: null });
        this.grant('takeover');
        return;
      case 'interrupt':
        this.output('^C\r\n' + this.options.prompt);
        this.line = '';
        this.finishLease('cancelled');
        return;
      case 'reset':
        this.resetGeneration();
        return;
      case 'resync':
        socket.deliver(this.snapshotFrame());
        socket.deliver(this.statusFrame());
        return;
      case 'ping':
        socket.deliver({ v: PROTOCOL_VERSION, type: 'pong', generation: this.generation, t: frame.t });
        return;
      case 'ack':
        return;
    }
  }

  /** Echo keys; Enter runs the line. */
  private type(input: string): void {
    for (const char of input) {
      if (char === '\r') {
        const command = this.line;
        this.line = '';
        const echo = /^echo\s+(.*)$/.exec(command);
        const result = command.trim() === '' ? '' : echo ? `${echo[1]}\r\n` : `bash: ${command.split(/\s+/)[0]}: command not found\r\n`;
        this.output(`\r\n${result}${this.options.prompt}`);
        this.finishLease('prompt');
      } else if (char === '\x7f') {
        if (this.line.length > 0) {
          this.line = this.line.slice(0, -1);
          this.output('\b \b');
        }
      } else {
        this.line += char;
        this.output(char);
      }
    }
  }

  private finishLease(reason: LeaseFrame['reason']): void {
    if (!this.lease) return;
    this.revoke(reason);
    const pending = this.status.pendingKinds;
    this.setStatus({
      queueStatus: 'ready',
      holder: pending[0] ?? null,
      pendingCount: Math.max(0, pending.length - 1),
      pendingKinds: pending.slice(1),
    });
  }
}
