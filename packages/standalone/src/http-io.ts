/**
 * Small HTTP helpers: JSON replies, the error body `{"error":{"code","message"}}`, and a bounded JSON body
 * reader that insists on `Content-Type: application/json`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Headers every reply carries: nothing is cached, framed, or sniffed, and no URL leaks in a Referer. */
export const COMMON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
});

/** Client data as an error text quotes it: at most `max` characters (the rest is cut, never echoed). */
export function clip(text: string, max = 64): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...COMMON_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error: { code, message } }, headers);
}

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const [type, ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  const charset = params.find((p) => p.startsWith('charset='));
  return charset === undefined || charset === 'charset=utf-8';
}

/**
 * Read a JSON body of at most `limit` bytes. An empty body reads as `{}` (so `curl -d ''` works for tools
 * without arguments); anything but `application/json` is refused before the body is read.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  if (!isJsonContentType(req.headers['content-type'])) {
    throw new HttpError(415, 'unsupported-media-type', 'send the arguments as JSON with the header Content-Type: application/json');
  }
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) throw new HttpError(413, 'body-too-large', `the body is over ${limit} bytes: send smaller input`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'body-too-large', `the body is over ${limit} bytes: send smaller input`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new HttpError(
      400,
      'invalid-json',
      `the body is not valid JSON (${(error as Error).message}); send an object such as {"text": "ls"}`,
    );
  }
}
