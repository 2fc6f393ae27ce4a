/**
 * The WebSocket transport: how browser views attach to owners' terminals. A host mounts it with two calls,
 * `issueToken(ownerId)` behind its own authenticated route and `handleUpgrade(req, socket, head)` in its
 * HTTP server's `upgrade` event (`ws` in noServer mode: the host keeps its server).
 *
 * Events:
 * - `human-settled` — the owner's own event (`HumanSettled`, the same object), passed on for hosts that hold
 *   only the transport: a human interaction is over, so the host can tell the agent to read the terminal.
 *
 * Timers (token expiry, controller grace, heartbeats) run on the injected clock.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { TerminalHub } from '../hub/hub.ts';
import type { HumanSettled } from '../hub/human-session.ts';
import { type Clock, systemClock } from '../time.ts';
import { CloseCode, SUBPROTOCOL } from '../protocol/index.ts';
import { checkUpgrade, normalizeOrigin, refuseUpgrade } from './fence.ts';
import { CLOSE_REASONS } from './messages.ts';
import { OwnerRoom } from './room.ts';
import { TokenStore } from './tokens.ts';
import type { ViewStats } from './view.ts';

export interface TerminalTransportOptions {
  hub: TerminalHub;
  /** Origins allowed besides the same origin (e.g. a dev server on another port): `http://localhost:5173`. */
  allowedOrigins?: Iterable<string>;
  /** Host names (or host:port values) allowed besides loopback, e.g. a LAN name the host serves on. */
  allowedHosts?: Iterable<string>;
  /** Time for token expiry, controller grace and heartbeats (tests inject a manual clock). */
  clock?: Clock;
  /** The only path upgrades are accepted on, e.g. `/terminal/ws`; any path when omitted. */
  path?: string;
}

/** What the host hook receives when a human interaction settles. */

export interface TransportEvents {
  'human-settled': [HumanSettled];
}

export interface UpgradeExpectation {
  /** Refuse the token unless it was issued for this owner (a host with a route per owner). */
  ownerId?: string;
}

export interface TransportStats {
  tokens: number;
  views: ViewStats[];
}

export class TerminalTransport extends EventEmitter<TransportEvents> {
  private readonly hub: TerminalHub;
  private readonly clock: Clock;
  private readonly tokens: TokenStore;
  private readonly rooms = new Map<string, OwnerRoom>();
  private readonly wss: WebSocketServer;
  private readonly fence: { allowedOrigins: Set<string>; allowedHosts: Set<string>; path: string | undefined };
  private heartbeatTimer: unknown;
  private heartbeatTicks = 0;
  private viewIds = 0;
  private closing = false;

  constructor(options: TerminalTransportOptions) {
    super();
    this.hub = options.hub;
    this.clock = options.clock ?? systemClock;
    this.tokens = new TokenStore(this.clock);
    const origins = new Set<string>();
    for (const origin of options.allowedOrigins ?? []) {
      const normal = normalizeOrigin(origin);
      if (!normal) throw new TypeError(`allowedOrigins: ${JSON.stringify(origin)} is not an origin; write it like "http://localhost:5173"`);
      origins.add(normal);
    }
    const hosts = new Set<string>();
    for (const host of options.allowedHosts ?? []) {
      if (typeof host !== 'string' || host.trim() === '' || /[\s/]/.test(host.trim())) {
        throw new TypeError(`allowedHosts: ${JSON.stringify(host)} is not a host; write it like "terminal.lan" or "terminal.lan:8080"`);
      }
      hosts.add(host.trim().toLowerCase());
    }
    if (options.path !== undefined && (!options.path.startsWith('/') || options.path.includes('?'))) {
      throw new TypeError(`path: ${JSON.stringify(options.path)} must start with "/" and carry no query`);
    }
    this.fence = { allowedOrigins: origins, allowedHosts: hosts, path: options.path };
    const config = this.hub.config;
    this.wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      // Room for the largest input with every byte JSON-escaped (\u00XX), plus the envelope.
      maxPayload: config.maxInputBytes * 6 + 1024,
      handleProtocols: () => SUBPROTOCOL,
    });
  }

  // ------------------------------------------------------------------ tokens

  /**
   * A one-time token for a view of `ownerId` (10 s, single use). Creates the owner's record if needed but
   * never starts its shell: that happens when the view attaches.
   */
  issueToken(ownerId: string, options: { readonly?: boolean } = {}): { token: string; expiresInMs: number } {
    if (this.closing) throw new Error('the terminal transport is closed: no more tokens are issued');
    if (typeof ownerId !== 'string' || ownerId.length === 0) throw new TypeError('issueToken: ownerId must be a non-empty string');
    const room = this.roomFor(ownerId);
    return this.tokens.issue({ owner: room.owner, ownerId, epoch: room.epoch, readonly: options.readonly === true });
  }

  private roomFor(ownerId: string): OwnerRoom {
    const owner = this.hub.acquire(ownerId);
    let room = this.rooms.get(ownerId);
    if (room && room.owner !== owner) {
      // A disposed owner's room that has not heard of it yet: start over.
      room.shutdown();
      room = undefined;
    }
    if (!room) {
      room = new OwnerRoom(owner, {
        config: this.hub.config,
        clock: this.clock,
        tokens: this.tokens,
        nextViewId: () => ++this.viewIds,
        humanSettled: (event) => this.settled(event),
        gone: (gone) => {
          if (this.rooms.get(gone.ownerId) === gone) this.rooms.delete(gone.ownerId);
        },
      });
      this.rooms.set(ownerId, room);
    }
    return room;
  }

  private settled(event: HumanSettled): void {
    if (this.closing) return;
    this.emit('human-settled', event);
  }

  // ------------------------------------------------------------------ upgrade

  /** Handle an HTTP upgrade: refuse with a plain 403 or attach a view. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, expect: UpgradeExpectation = {}): void {
    socket.on('error', () => undefined);
    if (this.closing) {
      refuseUpgrade(socket, CLOSE_REASONS.shutdown, 503);
      return;
    }
    const fence = checkUpgrade(req, this.fence);
    if (!fence.ok) {
      refuseUpgrade(socket, fence.reason);
      return;
    }
    const { token, resume, readonly } = fence.credentials;
    const spent = this.tokens.consume(token);
    if (!spent.ok) {
      refuseUpgrade(
        socket,
        spent.reason === 'expired'
          ? 'the token expired (tokens live 10 s): request a fresh token and connect at once'
          : 'unknown or already used token: request a fresh token for each connection',
      );
      return;
    }
    const grant = spent.grant;
    if (expect.ownerId !== undefined && expect.ownerId !== grant.ownerId) {
      refuseUpgrade(socket, 'the token belongs to another terminal: request a token for this one');
      return;
    }
    const room = this.rooms.get(grant.ownerId);
    const owner = this.hub.get(grant.ownerId);
    if (!room || !owner || owner !== grant.owner || room.owner !== owner || owner.isDisposed) {
      refuseUpgrade(socket, 'the terminal this token was issued for is gone: request a fresh token');
      return;
    }
    if (room.epoch !== grant.epoch) {
      refuseUpgrade(socket, 'the terminal was reset after this token was issued: request a fresh token');
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      if (this.closing) {
        ws.close(CloseCode.goingAway, CLOSE_REASONS.shutdown);
        return;
      }
      this.startHeartbeat();
      void room.attach(ws, { readonly: readonly || grant.readonly, resume, epoch: grant.epoch });
    });
  }

  // ------------------------------------------------------------------ heartbeats

  /**
   * One ticker for every socket, at half the interval: a ping every interval, and a socket silent (no
   * frame, no pong) for two intervals is dropped (4003). For the controller that starts its grace period.
   */
  private startHeartbeat(): void {
    if (this.heartbeatTimer !== undefined || this.closing) return;
    const interval = this.hub.config.heartbeatIntervalMs;
    const tick = () => {
      this.heartbeatTimer = undefined;
      this.heartbeatTicks += 1;
      const ping = this.heartbeatTicks % 2 === 0;
      const now = this.clock.now();
      let views = 0;
      for (const room of this.rooms.values()) {
        for (const view of [...room.views]) {
          views += 1;
          if (now - view.lastSeen >= 2 * interval) {
            view.close(CloseCode.heartbeatTimeout, 'network', CLOSE_REASONS.heartbeat, { terminate: true });
          } else if (ping && view.ws.readyState === view.ws.OPEN) {
            view.ws.ping();
          }
        }
      }
      if (views > 0 && !this.closing) this.heartbeatTimer = this.clock.setTimeout(tick, interval / 2);
    };
    this.heartbeatTimer = this.clock.setTimeout(tick, interval / 2);
  }

  // ------------------------------------------------------------------ diagnostics and shutdown

  stats(): TransportStats {
    const views: ViewStats[] = [];
    for (const room of this.rooms.values()) for (const view of room.views) views.push(view.stats());
    return { tokens: this.tokens.size, views };
  }

  /** Close every socket (4004), abandon leases whose controller can no longer reach them, stop timers. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.heartbeatTimer !== undefined) this.clock.clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.tokens.clear();
    const sockets = [...this.rooms.values()].flatMap((room) => [...room.views].map((view) => view.ws));
    for (const room of this.rooms.values()) room.shutdown();
    this.rooms.clear();
    await Promise.all(
      sockets.map(
        (ws) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            const timer = setTimeout(() => ws.terminate(), 1000);
            ws.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
          }),
      ),
    );
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }
}

export function createTerminalTransport(options: TerminalTransportOptions): TerminalTransport {
  return new TerminalTransport(options);
}
