/**
 * Test harness for the transport: a real hub with real PTYs behind a real HTTP server on 127.0.0.1, real
 * `ws` clients that keep their own headless replica of the screen (snapshot replay, then outputs), and a
 * TCP proxy that can freeze a connection (a half-open or non-reading peer).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import { type Socket, createServer as createTcpServer, connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import serializeModule from '@xterm/addon-serialize';
import unicodeModule from '@xterm/addon-unicode11';
import headless from '@xterm/headless';
import { WebSocket } from 'ws';
import {
  type Clock,
  type OwnerTerminal,
  type TerminalConfig,
  TerminalHub,
  type TerminalTransport,
  createNodePtyProvider,
  createTerminalTransport,
  resolveConfig,
} from '../../src/index.ts';
import {
  type ClientFrame,
  type LeaseFrame,
  type NoticeFrame,
  type RoleFrame,
  type ServerFrame,
  type StatusFrame,
  encodeFrame,
  parseServerFrame,
  subprotocolsFor,
} from '../../src/protocol/index.ts';
// By path, not as a workspace dependency: test-support depends on this package (a cycle otherwise).
import { sleep, waitFor } from '../../../test-support/src/wait.ts';

const { Terminal } = headless;
const { SerializeAddon } = serializeModule;
const { Unicode11Addon } = unicodeModule;
type HeadlessTerminal = InstanceType<typeof Terminal>;

// ---------------------------------------------------------------------------------------------- waiting

/** Poll `condition` until it holds; a guard against hangs, never a speed assertion. */
export async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  await waitFor(condition, what, timeoutMs, 5);
}

export const delay = sleep;

/** A small seeded generator, so that a failing random run can be replayed (tests print the seed). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of a random test: TRANSPORT_SEED replays one. */
export function testSeed(label: string): number {
  const seed = Number(process.env['TRANSPORT_SEED'] ?? Date.now() % 100_000);
  console.log(`# ${label} seed: ${seed} (TRANSPORT_SEED=${seed} replays it)`);
  return seed;
}

// ---------------------------------------------------------------------------------------------- server

export interface Harness {
  hub: TerminalHub;
  transport: TerminalTransport;
  config: TerminalConfig;
  server: Server;
  port: number;
  path: string;
  /** The shells' working directory (a fresh temporary directory). */
  cwd: string;
  /** Connect a view (a fresh token unless one is given). */
  connect(ownerId: string, options?: ConnectOptions): Promise<ViewClient>;
  /** Try an upgrade and report a refusal instead of throwing. */
  attempt(ownerId: string, options?: ConnectOptions): Promise<AttemptResult>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  config?: Partial<TerminalConfig>;
  clock?: Clock;
  allowedOrigins?: string[];
  allowedHosts?: string[];
  /** Route per owner: /owners/<id>/ws, checked with handleUpgrade's expectation. */
  routePerOwner?: boolean;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const config = resolveConfig({ rows: 24, cols: 100, scrollbackLines: 2000, ...options.config });
  const cwd = mkdtempSync(join(tmpdir(), 'transport-test-'));
  const hub = new TerminalHub({ config, provider: createNodePtyProvider(), cwd });
  const path = '/terminal/ws';
  const transport = createTerminalTransport({
    hub,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.routePerOwner ? {} : { path }),
  });
  const server = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  server.on('upgrade', (req, socket, head) => {
    if (options.routePerOwner) {
      const match = /^\/owners\/([^/?]+)\/ws/.exec(req.url ?? '');
      transport.handleUpgrade(req, socket, head, match ? { ownerId: decodeURIComponent(match[1]!) } : {});
    } else {
      transport.handleUpgrade(req, socket, head);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const clients = new Set<ViewClient>();
  const harness: Harness = {
    hub,
    transport,
    config,
    server,
    port,
    path,
    cwd,
    async connect(ownerId, connectOptions = {}) {
      const result = await harness.attempt(ownerId, connectOptions);
      if (!result.ok) throw new Error(`upgrade refused (${result.status}): ${result.body}`);
      return result.client;
    },
    async attempt(ownerId, connectOptions = {}) {
      const result = await attemptConnect(harness, ownerId, connectOptions);
      if (result.ok) clients.add(result.client);
      return result;
    },
    async close() {
      for (const client of clients) client.terminate();
      await transport.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await hub.disposeAll();
      rmSync(cwd, { recursive: true, force: true });
    },
  };
  return harness;
}

export interface ConnectOptions {
  token?: string;
  readonlyToken?: boolean;
  resume?: string;
  /** Offer mode.readonly. */
  readonly?: boolean;
  origin?: string | null;
  host?: string;
  /** Appended to the URL (e.g. a query). */
  suffix?: string;
  /** Overrides the whole subprotocol list. */
  protocols?: string[];
  /** Connect through this port (a proxy) instead of the server's. */
  viaPort?: number;
  /** Ack parsed output (flow control), as the element does. */
  ack?: boolean;
  /** URL path instead of the harness's. */
  path?: string;
  /** Keep a headless replica of the screen (default true; the fuzz test turns it off to save CPU). */
  replica?: boolean;
}

export type AttemptResult = { ok: true; client: ViewClient } | { ok: false; status: number; body: string };

async function attemptConnect(harness: Harness, ownerId: string, options: ConnectOptions): Promise<AttemptResult> {
  const token = options.token ?? harness.transport.issueToken(ownerId, { readonly: options.readonlyToken === true }).token;
  const port = options.viaPort ?? harness.port;
  const protocols =
    options.protocols ??
    subprotocolsFor(token, { ...(options.resume ? { resume: options.resume } : {}), ...(options.readonly ? { readonly: true } : {}) });
  const path = options.path ?? harness.path;
  const url = `ws://127.0.0.1:${port}${path}${options.suffix ?? ''}`;
  const origin = options.origin === undefined ? `http://127.0.0.1:${port}` : options.origin;
  const ws = new WebSocket(url, protocols, {
    ...(origin !== null ? { origin } : {}),
    ...(options.host ? { headers: { host: options.host } } : {}),
    perMessageDeflate: false,
  });
  const client = new ViewClient(ws, options.ack !== false, options.replica !== false);
  return new Promise<AttemptResult>((resolve, reject) => {
    ws.once('open', () => resolve({ ok: true, client }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ ok: false, status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ ok: false, status: res.statusCode ?? 0, body }));
    });
    ws.once('error', (error) => reject(error));
  });
}

// ---------------------------------------------------------------------------------------------- client

export interface ScreenImage {
  viewport: string[];
  cursor: { x: number; y: number };
  alternate: boolean;
  /** The newest lines of the normal buffer (history and viewport). */
  tail: string[];
}

/** A real `ws` client that validates every frame and keeps a headless replica of the screen. */
export class ViewClient {
  readonly ws: WebSocket;
  readonly frames: ServerFrame[] = [];
  readonly notices: NoticeFrame[] = [];
  readonly leases: LeaseFrame[] = [];
  readonly roles: RoleFrame[] = [];
  /** Broken promises of the protocol seen by this client (bad frames, gaps, duplicates). */
  readonly violations: string[] = [];
  status: StatusFrame | undefined;
  generation: number | undefined;
  /** Last output sequence applied (or the snapshot's). */
  sequence = -1;
  /** Last sequence the replica finished parsing. */
  parsed = -1;
  snapshots = 0;
  outputs = 0;
  outputChars = 0;
  close: { code: number; reason: string } | undefined;
  /** While true the client parses but sends no acks (a renderer that fell behind). */
  acksPaused = false;
  private replicaTerminal: HeadlessTerminal | undefined;
  private readonly acking: boolean;
  private readonly keepReplica: boolean;
  private writesInFlight = 0;
  private waiters: { match: (frame: ServerFrame) => boolean; resolve: (outcome: 'frame' | 'closed') => void }[] = [];

  constructor(ws: WebSocket, acking: boolean, keepReplica: boolean) {
    this.ws = ws;
    this.acking = acking;
    this.keepReplica = keepReplica;
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        this.violations.push('binary frame from the server');
        return;
      }
      const text = (data as Buffer).toString('utf8');
      const parsed = parseServerFrame(text);
      if (!parsed.ok) {
        this.violations.push(`invalid server frame: ${parsed.error}`);
        return;
      }
      this.onFrame(parsed.frame);
    });
    ws.on('close', (code, reason) => {
      this.close = { code, reason: reason.toString('utf8') };
      const waiters = this.waiters;
      this.waiters = [];
      for (const waiter of waiters) waiter.resolve('closed');
    });
    ws.on('error', () => undefined);
  }

  get role(): RoleFrame | undefined {
    return this.roles.at(-1);
  }

  get resume(): string | undefined {
    return [...this.roles].reverse().find((r) => r.resume)?.resume;
  }

  get lease(): LeaseFrame | undefined {
    return this.leases.at(-1);
  }

  get replica(): HeadlessTerminal | undefined {
    return this.replicaTerminal;
  }

  /** Replica caught up with everything received. */
  get settled(): boolean {
    return this.writesInFlight === 0 && this.parsed === this.sequence;
  }

  /** Resolves on the next frame that matches, or when the socket closes (event-driven, for many round trips). */
  nextFrame(match: (frame: ServerFrame) => boolean, timeoutMs = 30_000): Promise<'frame' | 'closed'> {
    if (this.close) return Promise.resolve('closed');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for a frame')), timeoutMs);
      this.waiters.push({
        match,
        resolve: (outcome) => {
          clearTimeout(timer);
          resolve(outcome);
        },
      });
    });
  }

  private onFrame(frame: ServerFrame): void {
    this.frames.push(frame);
    if (this.waiters.length > 0) {
      const ready = this.waiters.filter((w) => w.match(frame));
      this.waiters = this.waiters.filter((w) => !ready.includes(w));
      for (const waiter of ready) waiter.resolve('frame');
    }
    switch (frame.type) {
      case 'snapshot': {
        if (this.generation !== undefined && frame.generation !== this.generation) this.violations.push('snapshot of another generation');
        this.generation = frame.generation;
        this.snapshots += 1;
        this.replicaTerminal?.dispose();
        this.sequence = frame.sequence;
        if (!this.keepReplica) {
          this.parsed = frame.sequence;
          return;
        }
        const terminal = new Terminal({
          rows: frame.rows,
          cols: frame.cols,
          scrollback: frame.scrollbackLines,
          allowProposedApi: true,
          convertEol: false,
        });
        terminal.loadAddon(new Unicode11Addon() as never);
        terminal.unicode.activeVersion = '11';
        this.replicaTerminal = terminal;
        this.sequence = frame.sequence;
        this.write(frame.replay, frame.sequence, terminal);
        return;
      }
      case 'output':
        if (frame.generation !== this.generation) this.violations.push(`output of generation ${frame.generation} on ${this.generation}`);
        if (frame.sequence !== this.sequence + 1) this.violations.push(`output ${frame.sequence} after ${this.sequence}`);
        this.sequence = frame.sequence;
        this.outputs += 1;
        this.outputChars += frame.data.length;
        if (this.replicaTerminal) this.write(frame.data, frame.sequence, this.replicaTerminal);
        return;
      case 'role':
        this.roles.push(frame);
        return;
      case 'status':
        this.status = frame;
        return;
      case 'lease':
        this.leases.push(frame);
        return;
      case 'notice':
        this.notices.push(frame);
        return;
      case 'pong':
        return;
    }
  }

  private write(data: string, sequence: number, terminal: HeadlessTerminal): void {
    this.writesInFlight += 1;
    terminal.write(data, () => {
      this.writesInFlight -= 1;
      if (terminal !== this.replicaTerminal) return;
      this.parsed = sequence;
      // Ack like the element (any role): when caught up, or every 8 K characters (here on every parse).
      if (this.acking && !this.acksPaused) this.ackNow();
    });
  }

  /** A ping and its pong: every frame the server sent before it saw the ping has arrived by then. (A pong
   *  is dropped while the socket is full: ping again.) */
  async roundTrip(attempts = 20): Promise<'frame' | 'closed'> {
    for (let attempt = 1; ; attempt++) {
      const t = Date.now() * 100 + attempt;
      const pong = this.nextFrame((frame) => frame.type === 'pong' && frame.t === t, 1_000);
      this.send({ v: 1, type: 'ping', generation: this.generation ?? 0, t });
      try {
        return await pong;
      } catch (error) {
        if (attempt >= attempts) throw error;
      }
    }
  }

  /** Ack everything parsed so far. */
  ackNow(): void {
    this.send({ v: 1, type: 'ack', generation: this.generation ?? 0, sequence: this.parsed });
  }

  send(frame: ClientFrame): void {
    this.sendRaw(encodeFrame(frame));
  }

  sendRaw(data: string | Buffer, options: { binary?: boolean } = {}): void {
    if (this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(data, { binary: options.binary === true });
  }

  /** Send human input the way the element does: begin at an idle prompt, input under a granted lease. */
  type(text: string): void {
    const granted = this.lease?.state === 'granted';
    this.send(
      granted
        ? { v: 1, type: 'input', generation: this.generation ?? 0, input: text }
        : { v: 1, type: 'begin', generation: this.generation ?? 0, input: text },
    );
  }

  async waitFor(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    await until(condition, what, timeoutMs);
  }

  waitClosed(timeoutMs = 30_000): Promise<void> {
    return until(() => this.close !== undefined, 'the socket to close', timeoutMs);
  }

  screen(tailLines = 200): ScreenImage {
    const terminal = this.replicaTerminal;
    if (!terminal) throw new Error('no snapshot yet');
    return imageOf(terminal, tailLines);
  }

  /** Serialized replica (for a byte-level comparison with the server's snapshot). */
  serialize(): string {
    const terminal = this.replicaTerminal;
    if (!terminal) throw new Error('no snapshot yet');
    const serializer = new SerializeAddon();
    terminal.loadAddon(serializer as never);
    return serializer.serialize({ scrollback: 0 });
  }

  /** Close the way a browser does when its page is closed or reloaded (1001, going away). */
  leave(): void {
    this.ws.close(1001);
  }

  terminate(): void {
    this.ws.terminate();
    this.replicaTerminal?.dispose();
    this.replicaTerminal = undefined;
  }
}

function imageOf(terminal: HeadlessTerminal, tailLines: number): ScreenImage {
  const active = terminal.buffer.active;
  const viewport: string[] = [];
  for (let y = 0; y < terminal.rows; y++) viewport.push(active.getLine(active.baseY + y)?.translateToString(true) ?? '');
  const normal = terminal.buffer.normal;
  const tail: string[] = [];
  for (let y = Math.max(0, normal.length - tailLines); y < normal.length; y++) tail.push(normal.getLine(y)?.translateToString(true) ?? '');
  return { viewport, cursor: { x: active.cursorX, y: active.cursorY }, alternate: active.type === 'alternate', tail };
}

/** The server's screen, read through the same views a client replica gives. */
export async function serverScreen(owner: OwnerTerminal, tailLines = 200): Promise<ScreenImage & { sequence: number; serialized: string }> {
  const generation = owner.generation;
  if (!generation) throw new Error('no generation');
  const view = await generation.view();
  const all = (await generation.allText()).split('\n');
  const snapshot = await generation.snapshot();
  // The server's replay without history, fed to a fresh emulator, gives the same serialization a client
  // replica gives for its visible screen.
  const probe = new Terminal({ rows: generation.rows, cols: generation.cols, scrollback: 0, allowProposedApi: true });
  probe.loadAddon(new Unicode11Addon() as never);
  probe.unicode.activeVersion = '11';
  await new Promise<void>((resolve) => probe.write(snapshot.replay, resolve));
  const serializer = new SerializeAddon();
  probe.loadAddon(serializer as never);
  const serialized = serializer.serialize({ scrollback: 0 });
  probe.dispose();
  return {
    viewport: view.viewport.split('\n'),
    cursor: view.cursor,
    alternate: view.alternate,
    tail: all.slice(Math.max(0, all.length - tailLines)),
    sequence: view.sequence,
    serialized,
  };
}

/** Wait for the stream to settle, then compare the client's replica with the server's screen. */
export async function assertSameScreen(h: Harness, ownerId: string, view: ViewClient, timeoutMs = 120_000): Promise<void> {
  const owner = h.hub.get(ownerId)!;
  // A view that caught up with a flood from the screen alone gets its history back once output is quiet.
  const whole = () => h.transport.stats().views.every((v) => v.ownerId !== ownerId || !v.partial);
  const caughtUp = () => view.sequence === owner.generation!.sequence && view.settled && whole();
  // A frame the server sent just before these conditions held (the full snapshot that ends a view's
  // partial state) may still be on the wire: a ping's pong comes after it, so wait for one with nothing new.
  for (;;) {
    await until(caughtUp, 'the replica to catch up with the server', timeoutMs);
    const received = view.frames.length;
    if ((await view.roundTrip()) === 'closed') break;
    const arrived = view.frames.slice(received).some((f) => f.type === 'snapshot' || f.type === 'output');
    if (!arrived && caughtUp()) break;
  }
  const server = await serverScreen(owner);
  assert.equal(view.sequence, server.sequence, 'the stream is quiet: nothing arrived while reading the server');
  const replica = view.screen();
  assert.deepEqual(replica.viewport, server.viewport, 'viewport');
  assert.deepEqual(replica.cursor, server.cursor, 'cursor');
  assert.equal(replica.alternate, server.alternate, 'buffer');
  assert.deepEqual(replica.tail, server.tail, 'newest 200 lines of the normal buffer');
  assert.equal(view.serialize(), server.serialized, 'serialized screen');
  assert.deepEqual(view.violations, [], 'no gap, duplicate or invalid frame');
}

// ---------------------------------------------------------------------------------------------- proxy

/** A TCP proxy whose connections can be frozen: nothing is read from either side until thawed. */
export interface FreezableProxy {
  port: number;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<FreezableProxy> {
  const pairs: { client: Socket; upstream: Socket }[] = [];
  let frozen = false;
  const link = (pair: { client: Socket; upstream: Socket }) => {
    pair.client.pipe(pair.upstream);
    pair.upstream.pipe(pair.client);
  };
  const server = createTcpServer((client) => {
    const upstream = tcpConnect(targetPort, '127.0.0.1');
    const pair = { client, upstream };
    pairs.push(pair);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    if (!frozen) link(pair);
    else {
      client.pause();
      upstream.pause();
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    freeze() {
      frozen = true;
      for (const { client, upstream } of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) link(pair);
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
