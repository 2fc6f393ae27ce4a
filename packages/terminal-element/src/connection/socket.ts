/** The socket the connection talks through: the part of a browser WebSocket it uses, so tests can script one. */
export interface SocketLike {
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
}
export type SocketFactory = (url: string, protocols: string[]) => SocketLike;

export function defaultSocketFactory(url: string, protocols: string[]): SocketLike {
  const WebSocketClass = (globalThis as { WebSocket?: new (url: string, protocols: string[]) => SocketLike }).WebSocket;
  if (!WebSocketClass) throw new Error('no WebSocket in this environment: pass createSocket');
  return new WebSocketClass(url, protocols);
}
