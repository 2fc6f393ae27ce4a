/**
 * The browser protocol of the shared terminal, version 1. Runtime-free (no Node, no DOM): the element
 * imports this entry alone (`@shared-terminal/server/protocol`).
 *
 * Handshake: the host issues a one-time token for an owner (10 s, single use, stored hashed). The browser
 * opens a WebSocket to the host's URL with subprotocols:
 *   `shared-terminal.v1`, `token.<43 base64url chars>`, and optionally `resume.<43 chars>` (a controller's
 *   private resume proof) and `mode.readonly` (ask for a read-only view, e.g. on touch devices).
 * The server selects `shared-terminal.v1`. Nothing else identifies the owner: no id travels in a frame.
 *
 * Frames are JSON text, `{ v: 1, type, ... }`. Server frames carry the `generation` they belong to; client
 * frames echo the generation they were made for, and a mutating frame for another generation is refused.
 *
 * Sequence: the server's first frame is `snapshot`; then `output` frames with strictly increasing
 * `sequence`. A client that sees a gap sends `resync` and gets a fresh `snapshot`, which rebuilds the
 * screen from scratch (a client may reuse its renderer after a full reset when the generation and size are
 * unchanged). The server may send a fresh `snapshot` at any time: a view whose socket fell behind (followed
 * by a `resynced` notice and a `status` frame), or a paced view catching up with a flood (silently; such a
 * snapshot may carry no history, and a full one follows once output is quiet). The first snapshot may carry
 * only the newest rows of history (`truncated: true`): the full one follows as soon as the client acks it
 * (for a client that never acks, once output is quiet), so a reconnect shows its screen without waiting for
 * the page to parse the whole history. A client may parse such a follow-up off screen and swap it in.
 *
 * Roles: one controller per owner; every other view is read only. A read-only view may send only `ack`,
 * `resync` and `ping`; any other frame closes it with 1008 and nothing reaches the terminal. A controller
 * that reconnects within `disconnectGraceMs` with its resume proof keeps control and its lease (the lease
 * is announced again, before the first `status` frame of the new socket).
 *
 * Client frames, as the transport treats them:
 * - a frame that fails `parseClientFrame`, or a binary frame, closes the socket with 1008 (1009 when it is
 *   over the socket's size limit, 1007 when it is not UTF-8);
 * - a mutating frame whose `generation` is not the socket's gets a `stale-generation` notice and is dropped;
 * - `begin` while the controller's own lease is open appends to that lease (keys typed before the grant);
 * - `input` without an open lease gets `lease-closed` and is dropped (never typed at a fresh prompt);
 * - input over `maxInputBytes` (per frame, or in total until the program reads it) gets `input-limit`;
 *   input with a line over 4095 bytes while the program in front reads line by line gets `line-too-long`.
 *
 * Flow control: a view acks (`ack`) the highest output sequence (or snapshot sequence) its renderer has
 * parsed, and acks every snapshot once parsed (even one whose sequence it acked before). Once it has acked, the server keeps at most `FLOW_WINDOW_CHARS` characters unacknowledged in
 * flight to it and holds the rest, sending again below `FLOW_RESUME_CHARS`; a view that falls far behind
 * skips the held output and gets a snapshot of the current screen instead. No view ever pauses the shell.
 * A view that never acks has a bounded send queue, and is resynced with a fresh snapshot once its socket
 * drains.
 */
import { utf8Length } from '../utf8.ts';

/** UTF-8 byte length (the server's one UTF-8 room; the name the browser knows). */
export { utf8Length as utf8ByteLength };

export const PROTOCOL_VERSION = 1 as const;
export const SUBPROTOCOL = 'shared-terminal.v1';
export const TOKEN_PREFIX = 'token.';
export const RESUME_PREFIX = 'resume.';
export const READONLY_SUBPROTOCOL = 'mode.readonly';
/** base64url of 32 bytes. */
export const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export const TOKEN_TTL_MS = 10_000;
/** Unacknowledged output characters in flight to an acking view, beyond which its output is held. Small on
 *  purpose: what is in flight must be parsed by the page before a keystroke's echo or an interrupt's prompt
 *  can show (bench/REPORT.md has the page's parse speed). */
export const FLOW_WINDOW_CHARS = 32_768;
/** ...and the level at which held output is sent again. */
export const FLOW_RESUME_CHARS = 16_384;

/** Close codes; 4xxx are ours. */
export const CloseCode = {
  normal: 1000,
  /** Going away: the server is shutting down, or (from the browser) the page was closed or left. */
  goingAway: 1001,
  /** A text frame that is not UTF-8 (sent by `ws` itself). */
  invalidData: 1007,
  /** A bad frame, or a read-only view that tried to write. The client does not retry on its own. */
  protocolError: 1008,
  tooBig: 1009,
  serverError: 1011,
  /** A new generation replaced the shell; reconnect (with the resume proof) to see it. */
  reset: 4001,
  /** The owner's terminal is gone for good; do not reconnect. */
  disposed: 4002,
  /** The socket stopped answering heartbeats. */
  heartbeatTimeout: 4003,
  /** The server is shutting down. */
  shutdown: 4004,
  /** The host refused this page (its Origin is not allowed, or it is not signed in); the reason says why and
   *  what to do. The client does not retry on its own. */
  refused: 4005,
} as const;
export type CloseCodeValue = (typeof CloseCode)[keyof typeof CloseCode];

export type ProcessStatusFrame = { kind: 'running' } | { kind: 'exited'; exitCode: number | null; signal: string | null };
export type QueueStatusFrame = 'ready' | 'busy' | 'blocked' | 'exited' | 'disposed';
export type OperationKindFrame = 'model-send' | 'human' | 'signal' | 'reset';
export type WaitReasonFrame = 'prompt' | 'stdin_read' | 'human_handoff' | 'session_exit' | 'timeout' | 'cancelled';
export type RoleReason = 'granted' | 'resumed' | 'readonly-requested' | 'controller-busy' | 'invalid-resume';
export type NoticeCode =
  | 'busy' // typing while another operation holds the terminal: take over first
  | 'input-limit' // the human input cap was reached
  | 'line-too-long' // a line longer than a line-by-line reader takes (the kernel would drop its tail): not sent
  | 'lease-closed' // input after the lease ended (the program already finished)
  | 'takeover-unavailable'
  | 'stale-generation'
  | 'operation-failed'
  | 'blocked'
  | 'exited'
  | 'resynced' // the server replaced the view with a fresh snapshot (it fell behind)
  | 'controller-available'; // the controller's grace period ended: Reconnect to take control

// ------------------------------------------------------------------------------ server → client

interface ServerBase {
  v: typeof PROTOCOL_VERSION;
  generation: number;
}

export interface SnapshotFrame extends ServerBase {
  type: 'snapshot';
  sequence: number;
  rows: number;
  cols: number;
  /** Serialized ANSI that rebuilds history, viewport, modes and cursor in a fresh emulator. */
  replay: string;
  historyLines: number;
  truncated: boolean;
  scrollbackLines: number;
}

export interface OutputFrame extends ServerBase {
  type: 'output';
  sequence: number;
  data: string;
}

export interface RoleFrame extends ServerBase {
  type: 'role';
  role: 'controller' | 'readonly';
  reason: RoleReason;
  /** Controller only: the new private resume proof (rotated on every claim). */
  resume?: string;
  maxInputBytes: number;
}

export interface StatusFrame extends ServerBase {
  type: 'status';
  process: ProcessStatusFrame;
  queueStatus: QueueStatusFrame;
  holder: OperationKindFrame | null;
  pendingCount: number;
  /** Kinds waiting behind the holder, in order: a model operation queued behind a human shows here. */
  pendingKinds: OperationKindFrame[];
  /** The model send the controller may take over, or null. */
  takeoverId: string | null;
  /** A program waits for input while an operation holds the terminal; `busy`: it also kept computing
   *  in another thread (more output may come). */
  inputWait: { command: string | null; secret: boolean; busy?: true } | null;
}

export interface LeaseFrame extends ServerBase {
  type: 'lease';
  /** queued: accepted, waiting; granted: this controller holds input; revoked: the lease ended. */
  state: 'queued' | 'granted' | 'revoked';
  leaseId: number;
  origin: 'idle' | 'takeover';
  /** Why a lease was revoked. */
  reason?: WaitReasonFrame | 'failed' | 'refused';
}

export interface NoticeFrame extends ServerBase {
  type: 'notice';
  code: NoticeCode;
  message: string;
}

export interface PongFrame extends ServerBase {
  type: 'pong';
  t: number;
}

export type ServerFrame = SnapshotFrame | OutputFrame | RoleFrame | StatusFrame | LeaseFrame | NoticeFrame | PongFrame;

// ------------------------------------------------------------------------------ client → server

interface ClientBase {
  v: typeof PROTOCOL_VERSION;
  generation: number;
}

/** The first key(s) at an idle prompt: asks for a human lease carrying this input. */
export interface BeginFrame extends ClientBase {
  type: 'begin';
  input: string;
}
/** Take over the running model send `takeoverId` (from the status frame). */
export interface TakeoverFrame extends ClientBase {
  type: 'takeover';
  takeoverId: string;
}
/** More input under a granted lease. */
export interface InputFrame extends ClientBase {
  type: 'input';
  input: string;
}
/** Interrupt input: SIGINT to the foreground group; the lease stays until the prompt is back. */
export interface InterruptFrame extends ClientBase {
  type: 'interrupt';
}
/** Reset Terminal, after the person confirmed. */
export interface ResetFrame extends ClientBase {
  type: 'reset';
  confirmed: true;
}
/** Flow control: the renderer has parsed every output up to `sequence`. */
export interface AckFrame extends ClientBase {
  type: 'ack';
  sequence: number;
}
/** Ask for a fresh snapshot (the client saw a gap). */
export interface ResyncFrame extends ClientBase {
  type: 'resync';
}
export interface PingFrame extends ClientBase {
  type: 'ping';
  t: number;
}

export type ClientFrame = BeginFrame | TakeoverFrame | InputFrame | InterruptFrame | ResetFrame | AckFrame | ResyncFrame | PingFrame;

/** Frames a read-only view may send; anything else closes it with 1008. */
export const READONLY_FRAME_TYPES: ReadonlySet<ClientFrame['type']> = new Set(['ack', 'resync', 'ping']);

// ------------------------------------------------------------------------------ validation

export type ParseResult<T> = { ok: true; frame: T } | { ok: false; error: string };

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= MAX_SAFE;
}
/** A string with no lone surrogates (it encodes to UTF-8 losslessly). */
export function isWellFormed(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}
/** A client's field name as error texts quote it: at most 32 characters (the rest is client data that
 *  no error text echoes). */
function quoteName(name: string): string {
  return JSON.stringify(name.length > 32 ? `${name.slice(0, 32)}…` : name);
}

function exactKeys(record: Record<string, unknown>, keys: string[]): string | undefined {
  for (const key of Object.keys(record)) if (!keys.includes(key)) return `unknown field ${quoteName(key)}`;
  for (const key of keys) if (!(key in record)) return `missing field "${key}"`;
  return undefined;
}

export interface ClientFrameLimits {
  /** Largest input (UTF-8 bytes) of one begin/input frame. */
  maxInputBytes: number;
}

/** Strictly validate a client frame: exact keys, types, sizes, well-formed text. */
/** The envelope both directions share: a JSON object of this version with a generation. */
function parseEnvelope(text: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'frame is not valid JSON' };
  }
  if (!isRecord(value)) return { ok: false, error: 'frame must be a JSON object' };
  if (value['v'] !== PROTOCOL_VERSION) return { ok: false, error: `unsupported protocol version (expected ${PROTOCOL_VERSION})` };
  if (!isCount(value['generation'])) return { ok: false, error: 'generation must be a whole number' };
  return { ok: true, value };
}

export function parseClientFrame(text: string, limits: ClientFrameLimits): ParseResult<ClientFrame> {
  const envelope = parseEnvelope(text);
  if (!envelope.ok) return envelope;
  const value = envelope.value;
  const type = value['type'];
  const base = ['v', 'type', 'generation'];
  const input = (): string | undefined => {
    const text = value['input'];
    if (typeof text !== 'string' || text.length === 0) return 'input must be a non-empty string';
    if (!isWellFormed(text)) return 'input is not well-formed Unicode';
    if (utf8Length(text) > limits.maxInputBytes) return `input is over ${limits.maxInputBytes} bytes`;
    return undefined;
  };
  let error: string | undefined;
  switch (type) {
    case 'begin':
    case 'input':
      error = exactKeys(value, [...base, 'input']) ?? input();
      break;
    case 'takeover':
      error =
        exactKeys(value, [...base, 'takeoverId']) ??
        (typeof value['takeoverId'] === 'string' && /^[1-9][0-9]{0,15}$/.test(value['takeoverId'])
          ? undefined
          : 'takeoverId must be a positive integer string');
      break;
    case 'interrupt':
    case 'resync':
      error = exactKeys(value, base);
      break;
    case 'reset':
      error = exactKeys(value, [...base, 'confirmed']) ?? (value['confirmed'] === true ? undefined : 'confirmed must be true');
      break;
    case 'ack':
      error = exactKeys(value, [...base, 'sequence']) ?? (isCount(value['sequence']) ? undefined : 'sequence must be a whole number');
      break;
    case 'ping':
      error =
        exactKeys(value, [...base, 't']) ??
        (typeof value['t'] === 'number' && Number.isFinite(value['t']) ? undefined : 't must be a number');
      break;
    default:
      return { ok: false, error: 'unknown frame type' };
  }
  return error ? { ok: false, error: `${String(type)}: ${error}` } : { ok: true, frame: value as unknown as ClientFrame };
}

const PROCESS_KINDS = new Set(['running', 'exited']);
const QUEUE_STATUSES = new Set(['ready', 'busy', 'blocked', 'exited', 'disposed']);
const OPERATION_KINDS = new Set(['model-send', 'human', 'signal', 'reset']);
const WAIT_REASONS = new Set(['prompt', 'stdin_read', 'human_handoff', 'session_exit', 'timeout', 'cancelled', 'failed', 'refused']);
const ROLE_REASONS = new Set(['granted', 'resumed', 'readonly-requested', 'controller-busy', 'invalid-resume']);
const NOTICE_CODES = new Set([
  'busy',
  'input-limit',
  'line-too-long',
  'lease-closed',
  'takeover-unavailable',
  'stale-generation',
  'operation-failed',
  'blocked',
  'exited',
  'resynced',
  'controller-available',
]);

function checkProcess(value: unknown): boolean {
  if (!isRecord(value) || !PROCESS_KINDS.has(value['kind'] as string)) return false;
  if (value['kind'] === 'running') return Object.keys(value).length === 1;
  const code = value['exitCode'];
  const signal = value['signal'];
  return (code === null || Number.isSafeInteger(code)) && (signal === null || typeof signal === 'string');
}

/** Strictly validate a server frame (the browser trusts nothing it did not check). */
export function parseServerFrame(text: string): ParseResult<ServerFrame> {
  const envelope = parseEnvelope(text);
  if (!envelope.ok) return envelope;
  const value = envelope.value;
  const base = ['v', 'type', 'generation'];
  let error: string | undefined;
  switch (value['type']) {
    case 'snapshot':
      error =
        exactKeys(value, [...base, 'sequence', 'rows', 'cols', 'replay', 'historyLines', 'truncated', 'scrollbackLines']) ??
        (isCount(value['sequence']) &&
        isCount(value['rows']) &&
        isCount(value['cols']) &&
        typeof value['replay'] === 'string' &&
        isCount(value['historyLines']) &&
        typeof value['truncated'] === 'boolean' &&
        isCount(value['scrollbackLines'])
          ? undefined
          : 'bad snapshot fields');
      break;
    case 'output':
      error =
        exactKeys(value, [...base, 'sequence', 'data']) ??
        (isCount(value['sequence']) && typeof value['data'] === 'string' ? undefined : 'bad output fields');
      break;
    case 'role': {
      const keys = [...base, 'role', 'reason', 'maxInputBytes'];
      if ('resume' in value) keys.push('resume');
      error =
        exactKeys(value, keys) ??
        ((value['role'] === 'controller' || value['role'] === 'readonly') &&
        ROLE_REASONS.has(value['reason'] as string) &&
        isCount(value['maxInputBytes']) &&
        (value['resume'] === undefined || (typeof value['resume'] === 'string' && SECRET_PATTERN.test(value['resume'])))
          ? undefined
          : 'bad role fields');
      break;
    }
    case 'status': {
      const wait = value['inputWait'];
      error =
        exactKeys(value, [...base, 'process', 'queueStatus', 'holder', 'pendingCount', 'pendingKinds', 'takeoverId', 'inputWait']) ??
        (checkProcess(value['process']) &&
        QUEUE_STATUSES.has(value['queueStatus'] as string) &&
        (value['holder'] === null || OPERATION_KINDS.has(value['holder'] as string)) &&
        isCount(value['pendingCount']) &&
        Array.isArray(value['pendingKinds']) &&
        value['pendingKinds'].every((k) => OPERATION_KINDS.has(k as string)) &&
        (value['takeoverId'] === null || (typeof value['takeoverId'] === 'string' && /^[1-9][0-9]{0,15}$/.test(value['takeoverId']))) &&
        (wait === null ||
          (isRecord(wait) &&
            (wait['command'] === null || typeof wait['command'] === 'string') &&
            typeof wait['secret'] === 'boolean' &&
            (wait['busy'] === undefined || wait['busy'] === true)))
          ? undefined
          : 'bad status fields');
      break;
    }
    case 'lease': {
      const keys = [...base, 'state', 'leaseId', 'origin'];
      if ('reason' in value) keys.push('reason');
      error =
        exactKeys(value, keys) ??
        (['queued', 'granted', 'revoked'].includes(value['state'] as string) &&
        isCount(value['leaseId']) &&
        (value['origin'] === 'idle' || value['origin'] === 'takeover') &&
        (value['reason'] === undefined || WAIT_REASONS.has(value['reason'] as string))
          ? undefined
          : 'bad lease fields');
      break;
    }
    case 'notice':
      error =
        exactKeys(value, [...base, 'code', 'message']) ??
        (NOTICE_CODES.has(value['code'] as string) && typeof value['message'] === 'string' ? undefined : 'bad notice fields');
      break;
    case 'pong':
      error = exactKeys(value, [...base, 't']) ?? (typeof value['t'] === 'number' ? undefined : 'bad pong fields');
      break;
    default:
      return { ok: false, error: 'unknown frame type' };
  }
  return error ? { ok: false, error: `${String(value['type'])}: ${error}` } : { ok: true, frame: value as unknown as ServerFrame };
}

/** Serialize a frame (one place, so that every frame carries the version). */
export function encodeFrame(frame: ServerFrame | ClientFrame): string {
  return JSON.stringify(frame);
}

// ------------------------------------------------------------------------------ connectors

/** What a host gives the element to open one connection: a WebSocket URL and a fresh one-time token. */
export interface ConnectTicket {
  url: string;
  token: string;
}

/** The host's way to get a ticket (a fetch to its token route, an RPC call...). */
export type Connector = (request: { readonly: boolean }) => Promise<ConnectTicket>;

/** The subprotocol list the browser offers for a ticket. */
export function subprotocolsFor(token: string, options: { resume?: string; readonly?: boolean } = {}): string[] {
  const list = [SUBPROTOCOL, `${TOKEN_PREFIX}${token}`];
  if (options.resume) list.push(`${RESUME_PREFIX}${options.resume}`);
  if (options.readonly) list.push(READONLY_SUBPROTOCOL);
  return list;
}
