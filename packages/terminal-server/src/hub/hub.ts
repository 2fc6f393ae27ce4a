/**
 * The hub: terminals by opaque owner id. It creates owners lazily (concurrent callers share one creation),
 * enforces maxSessions over owners that are live or being created, relays lifecycle events for transports,
 * and disposes one owner or all of them. It knows nothing of DSH or HTTP: an owner id is just a string.
 */
import { EventEmitter } from 'node:events';
import type { TerminalConfig } from '../config.ts';
import type { PtyProvider } from '../pty/contract.ts';
import type { Clock } from '../time.ts';
import { TerminalError } from '../errors.ts';
import { type OwnerOptions, OwnerTerminal } from './owner.ts';

const CAPACITY_MESSAGE = 'terminal capacity reached: end an agent or wait for its cleanup to finish before raising maxSessions';

export interface HubOptions {
  config: TerminalConfig;
  provider: PtyProvider;
  /** Working directory of an owner's shell. */
  cwd: string | ((ownerId: string) => string);
  baseEnv?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** Per-owner argv wrapper (sandbox confinement). */
  wrapArgv?: (ownerId: string, argv: string[]) => string[] | Promise<string[]>;
}

export interface HubEvents {
  created: [OwnerTerminal];
  disposed: [string];
}

export class TerminalHub extends EventEmitter<HubEvents> {
  readonly config: TerminalConfig;
  private readonly options: HubOptions;
  private readonly owners = new Map<string, OwnerTerminal>();
  private closed = false;

  constructor(options: HubOptions) {
    super();
    this.options = options;
    this.config = options.config;
  }

  get(ownerId: string): OwnerTerminal | undefined {
    return this.owners.get(ownerId);
  }

  ids(): string[] {
    return [...this.owners.keys()];
  }

  /** Owners with a live or starting process. */
  liveCount(): number {
    let count = 0;
    for (const owner of this.owners.values()) if (owner.live) count++;
    return count;
  }

  /** The owner's terminal record, created on first use. The shell itself starts on the first ensure(). */
  acquire(ownerId: string): OwnerTerminal {
    if (this.closed) throw new TerminalError('disposed', 'terminal owner or service is disposed');
    const existing = this.owners.get(ownerId);
    if (existing) return existing;
    const options: OwnerOptions = {
      ownerId,
      config: this.config,
      provider: this.options.provider,
      cwd: typeof this.options.cwd === 'function' ? this.options.cwd(ownerId) : this.options.cwd,
      beforeSpawn: () => {
        // This owner's own (exited or starting) record does not count against it.
        const others = [...this.owners.values()].filter((o) => o !== owner && o.live).length;
        if (others >= this.config.maxSessions) {
          this.forgetUnstarted(ownerId, owner);
          throw new TerminalError('capacity', CAPACITY_MESSAGE);
        }
      },
      ...(this.options.baseEnv ? { baseEnv: this.options.baseEnv } : {}),
      ...(this.options.clock ? { clock: this.options.clock } : {}),
      ...(this.options.wrapArgv ? { wrapArgv: (argv: string[]) => this.options.wrapArgv!(ownerId, argv) } : {}),
    };
    const owner = new OwnerTerminal(options);
    this.owners.set(ownerId, owner);
    this.emit('created', owner);
    return owner;
  }

  /**
   * An owner refused for capacity that never had a shell leaves no record behind (a client calling with
   * ever new ids at capacity must not grow the list). Done once the refusal is delivered, and only if
   * nothing started it meanwhile.
   */
  private forgetUnstarted(ownerId: string, owner: OwnerTerminal): void {
    setImmediate(() => {
      if (this.owners.get(ownerId) !== owner || owner.generation !== undefined || owner.live) return;
      this.dispose(ownerId).catch(() => undefined);
    });
  }

  async dispose(ownerId: string): Promise<void> {
    const owner = this.owners.get(ownerId);
    if (!owner) return;
    this.owners.delete(ownerId);
    await owner.dispose();
    this.emit('disposed', ownerId);
  }

  /**
   * Dispose every owner at once; failures are collected and reported together. Ending a terminal waits
   * out a grace between the polite signals and SIGKILL (an interactive bash ignores SIGTERM), so one
   * after another a host with many terminals took that grace once per terminal to close.
   */
  async disposeAll(): Promise<void> {
    this.closed = true;
    const results = await Promise.allSettled([...this.owners.keys()].map((id) => this.dispose(id)));
    const errors = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : []));
    if (errors.length > 0) throw new AggregateError(errors, `${errors.length} terminal owner(s) failed to dispose`);
  }
}
