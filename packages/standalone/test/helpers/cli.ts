/**
 * Test helpers: run the real `shared-terminal` CLI (the built dist/cli.js, as `npm start` does) in a
 * private working directory, read its address line, and stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor as supportWaitFor } from '@shared-terminal/test-support/wait';

export const CLI = new URL('../../dist/cli.js', import.meta.url).pathname;
export const ADDRESS_LINE = /^shared-terminal: (http:\/\/127\.0\.0\.1:(\d+))\/\?token=([A-Za-z0-9._~-]+)$/;

export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run "pnpm -r run build" first`);
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  token: string;
  /** The whole address line. */
  line: string;
  dir: string;
  stdout(): string;
  stderr(): string;
  auth: { Authorization: string };
  /** SIGTERM and wait for the exit. */
  stop(): Promise<Exit>;
}

export function tempDir(prefix = 'st-cli-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeConfig(dir: string, config: unknown, name = 'config.json'): string {
  const path = join(dir, name);
  writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config));
  return path;
}

function collect(child: ChildProcess): { out: () => string; err: () => string; exited: Promise<Exit> } {
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout: out, stderr: err }));
  });
  return { out: () => out, err: () => err, exited };
}

/** Run the CLI to completion (for refusals): its exit and output. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 15_000): Promise<Exit> {
  requireBuiltCli();
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const { exited } = collect(child);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return exited.finally(() => clearTimeout(timer));
}

/** Start `shared-terminal serve --port 0` (plus `args`) and wait for its address line. */
export async function startCli(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<RunningCli> {
  requireBuiltCli();
  const dir = tempDir();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--cwd', dir, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const io = collect(child);
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address line within 15 s; stderr: ${io.err()}`)), 15_000);
    const check = () => {
      const newline = io.out().indexOf('\n');
      if (newline !== -1) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(io.out().slice(0, newline));
      }
    };
    child.stdout?.on('data', check);
    void io.exited.then((exit) => {
      clearTimeout(timer);
      reject(new Error(`the CLI exited (${exit.code}) before printing its address: ${exit.stderr}`));
    });
  });
  const match = ADDRESS_LINE.exec(line);
  if (!match) throw new Error(`unexpected address line ${JSON.stringify(line)}`);
  const token = match[3]!;
  let stopped: Promise<Exit> | undefined;
  return {
    child,
    base: match[1]!,
    port: Number(match[2]),
    token,
    line,
    dir,
    stdout: io.out,
    stderr: io.err,
    auth: { Authorization: `Bearer ${token}` },
    stop() {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        const exit = await io.exited;
        clearTimeout(timer);
        rmSync(dir, { recursive: true, force: true });
        return exit;
      })();
      return stopped;
    },
  };
}

/** The API's failure body. */
export interface ErrorBody {
  error?: { code: string; message: string };
}

/** POST a tool call through the HTTP API. */
export async function callTool<T = ErrorBody & Record<string, unknown>>(
  cli: RunningCli,
  agent: string,
  tool: string,
  args: unknown,
  init: RequestInit = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${cli.base}/api/agents/${agent}/tools/${tool}`, {
    method: 'POST',
    headers: { ...cli.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(args),
    ...init,
  });
  return { status: response.status, body: (await response.json()) as T };
}

// Polling is test-support's (at the engine tests' pace and default); process checks are the engine tests' own.
export { pidAlive as alive } from '../../../terminal-server/test/helpers/engine.ts';
export { sleep } from '@shared-terminal/test-support/wait';
export const waitFor = <T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> =>
  supportWaitFor(check, what, timeoutMs, 10);

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * One request with exactly the given headers (fetch cannot set Host, Origin or Sec-Fetch-*, which the
 * fences look at).
 */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: options.headers ?? {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A WebSocket upgrade attempt; resolves with the HTTP status the server answered (101 on success). */
/** A WebSocket upgrade request with our subprotocol and a ticket; `headers` add or override. */
function upgradeRequest(port: number, headers: Record<string, string>, path: string): ReturnType<typeof httpRequest> {
  return httpRequest({
    host: '127.0.0.1',
    port,
    path,
    headers: {
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Protocol': `shared-terminal.v1, token.${'A'.repeat(43)}`,
      ...headers,
    },
  });
}

export function upgradeStatus(port: number, headers: Record<string, string>, path = '/terminal'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = upgradeRequest(port, headers, path);
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

/** A WebSocket upgrade and what the server said: the HTTP status, and for a 101 whose first frame is a close,
 *  its code and reason (a page refused that way can read why). */
export function upgradeOutcome(
  port: number,
  headers: Record<string, string>,
): Promise<{ status: number; closeCode?: number; reason?: string }> {
  return new Promise((resolve, reject) => {
    const req = upgradeRequest(port, headers, '/terminal');
    req.on('upgrade', (res, socket, head) => {
      const first = (data: Buffer) => {
        socket.destroy();
        if (data[0] !== 0x88) return resolve({ status: res.statusCode ?? 0 });
        const length = data[1]! & 0x7f;
        resolve({ status: res.statusCode ?? 0, closeCode: data.readUInt16BE(2), reason: data.subarray(4, 2 + length).toString() });
      };
      if (head.length > 0) first(head);
      else socket.once('data', first);
    });
    req.on('response', (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0 });
    });
    req.on('error', reject);
    req.end();
  });
}
