/**
 * The browser attach of the standalone server: the engine's WebSocket transport, mounted on /terminal.
 */
import type { AttachFactoryOptions } from './server.ts';
import type { BrowserAttach } from './api.ts';

/** The engine's transport for this hub, or undefined when the engine has none (pages then say so). */
export function createEngineAttach(_options: AttachFactoryOptions): BrowserAttach | undefined {
  return undefined;
}
