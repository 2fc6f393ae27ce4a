/**
 * Request/response over Node's IPC channel between the harness and a server child (the product's or
 * the baseline's). Each server runs in its own process so that its RSS, its event loop and its CPU are
 * its own, and the harness (Playwright's client) does not share a thread with what it measures.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

interface Request {
  id: number;
  method: string;
  params: unknown;
}
interface Response {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}
type Handler = (params: never) => unknown;
export type Handlers = Record<string, Handler>;

/** In the child: answer requests with `handlers`, then say `ready` with `info`. */
export function serveRpc(handlers: Handlers, info: unknown): void {
  process.on('message', (message: Request) => {
    const handler = handlers[message.method];
    const reply = (response: Response) => process.send?.(response);
    if (!handler) {
      reply({ id: message.id, ok: false, error: `unknown method ${message.method}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(message.params as never))
      .then(
        (value) => reply({ id: message.id, ok: true, value }),
        (error: unknown) =>
          reply({ id: message.id, ok: false, error: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
      );
  });
  process.send?.({ id: 0, ok: true, value: info });
}

export class RpcChild<TInfo> {
  readonly child: ChildProcess;
  info!: TInfo;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  private constructor(child: ChildProcess) {
    this.child = child;
    child.on('message', (message: Response) => {
      const entry = this.waiting.get(message.id);
      if (!entry) return;
      this.waiting.delete(message.id);
      if (message.ok) entry.resolve(message.value);
      else entry.reject(new Error(message.error));
    });
    child.on('exit', (code, signal) => {
      for (const entry of this.waiting.values()) entry.reject(new Error(`server child exited (${code ?? signal})`));
      this.waiting.clear();
    });
  }

  /** Start `file` (a .ts module, run with the `source` condition) and wait for its `ready`; `nodeFlags` go
   *  to its Node (V8 flags for the memory measure). */
  static async start<TInfo>(file: URL, args: string[] = [], nodeFlags: string[] = []): Promise<RpcChild<TInfo>> {
    const child = fork(file, args, {
      // BENCH_CPU_PROF=<dir> profiles the servers (node --cpu-prof), to see what costs the time.
      // BENCH_TRACE_GC=1 prints the servers' garbage collections (node --trace-gc), to see their pauses.
      execArgv: [
        '--conditions=source',
        '--expose-gc',
        '--no-warnings',
        ...(process.env.BENCH_TRACE_GC ? ['--trace-gc'] : []),
        ...nodeFlags,
        ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const rpc = new RpcChild<TInfo>(child);
    const [first] = (await Promise.race([
      once(child, 'message'),
      once(child, 'exit').then(([code]) => {
        throw new Error(`${file.pathname} exited with ${String(code)} before it was ready`);
      }),
    ])) as [Response];
    rpc.info = first.value as TInfo;
    return rpc;
  }

  call<T>(method: string, params: unknown = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.child.send({ id, method, params } satisfies Request);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, 'exit');
    this.call('shutdown').catch(() => undefined); // it may exit before it answers
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
}
