/**
 * The browser attach of the standalone server: the engine's WebSocket transport, mounted on /terminal.
 * The server has already checked the access token (cookie) before an upgrade reaches it; the transport
 * then checks Host, Origin and the one-time token of the subprotocol.
 */
import { createTerminalTransport } from '@shared-terminal/server';
import { TERMINAL_SOCKET_PATH, type BrowserAttach } from './api.ts';
import type { AttachFactoryOptions } from './server.ts';

export function createEngineAttach(options: AttachFactoryOptions): BrowserAttach {
  return createTerminalTransport({
    hub: options.hub,
    allowedHosts: options.allowedHosts,
    allowedOrigins: options.allowedOrigins,
    path: TERMINAL_SOCKET_PATH,
  });
}
