/**
 * The operation queue: one strict FIFO per owner that decides who may write to the terminal. Model sends,
 * human input leases, signals and resets are granted one at a time, in acceptance order.
 *
 * Pure and clock-injected: it performs no I/O itself. Each operation carries its payload (its input) to
 * the owner's grant hook, and walks the phases of `OperationPhase`. The owner feeds it observations
 * (`prompt`, `stdin_read`) stamped with the dispatch they were seen after, and tells it about session exit.
 * Every write on behalf of the active operation is a new dispatch, so that an observation made before
 * the latest write can never complete an operation.
 *
 * Rules (see the package README for the full list):
 * - model-send and signal get a deadline of operationTimeoutMs from grant (or the one the operation asked
 *   for, which its host bounds); human leases and resets none.
 * - A deadline or a cancel starts recovery: SIGINT to the foreground group (after writes in flight), then
 *   interruptTimeoutMs for the prompt, or for the interrupted program to read input again. A failed
 *   recovery blocks the queue until the earliest reset.
 * - A human cancel (Interrupt input) only sends SIGINT; the lease is kept until the prompt is back.
 * - Takeover turns the active model send into a human lease in place: same slot, no signal, the deadline
 *   and the model's cancellation are dropped, and the model's result is `human_handoff`.
 * - Session exit settles the active and pending operations with `session_exit`, except pending resets,
 *   which run next and replace the shell.
 */
import type { Clock } from '../time.ts';
import {
  GrantRefused,
  type HumanLease,
  type HumanOrigin,
  type OperationHandle,
  type OperationKind,
  type OperationPhase,
  type OperationResult,
  type OperationView,
  QUEUE_MESSAGES,
  QueueError,
  type QueueStatus,
  type RecoveryReason,
  type SettleNow,
  type Settlement,
} from './operation.ts';

export interface QueueHooks<P = void> {
  /** The operation got the slot: write its input, send its signal, or replace the shell. */
  grant(op: OperationView<P>): Promise<void | SettleNow>;
  /** Recovery: SIGINT to the re-inspected foreground group. */
  interrupt(op: OperationView<P>): Promise<void>;
  /** Anything visible changed (status, holder, pending count, takeover availability). */
  changed(): void;
}

export interface QueueOptions<P = void> {
  maxQueuedOperations: number;
  operationTimeoutMs: number;
  interruptTimeoutMs: number;
  clock: Clock;
  hooks: QueueHooks<P>;
}

interface Deferred<T> {
  promise: Promise<T>;
  /** Resolved or rejected already: a later reject would do nothing but build its error. */
  readonly done: boolean;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  const state = {
    promise,
    done: false,
    resolve(value: T) {
      state.done = true;
      resolve(value);
    },
    reject(error: unknown) {
      state.done = true;
      reject(error);
    },
  };
  return state;
}

interface Operation<P> extends OperationView<P> {
  id: number;
  kind: OperationKind;
  origin: HumanOrigin | undefined;
  acceptedAt: number;
  grantedAt: number | undefined;
  dispatch: number;
  phase: OperationPhase;
  payload: P;
  /** Writes started on its behalf and not yet finished (the grant is one). */
  inflight: number;
  writeChain: Promise<void>;
  /** The deadline timer, while one runs (model sends and signals, until recovery or takeover). */
  deadline: unknown;
  /** The deadline asked for at enqueue; operationTimeoutMs when absent. */
  timeoutMs: number | undefined;
  result: Deferred<OperationResult>;
  granted: Deferred<void>;
  detachAbort: (() => void) | undefined;
}

/** Granting, holding or recovering: the operation holds the slot. */
function isActive(phase: OperationPhase): boolean {
  return phase.kind === 'granting' || phase.kind === 'holding' || phase.kind === 'recovering';
}

export class OperationQueue<P = void> {
  private readonly options: QueueOptions<P>;
  private readonly pending: Operation<P>[] = [];
  private active: Operation<P> | undefined;
  private nextId = 1;
  private dispatchCounter = 0;
  private state: 'ready' | 'blocked' | 'exited' | 'disposed' = 'ready';
  private blockedReason: string = QUEUE_MESSAGES.blocked;

  constructor(options: QueueOptions<P>) {
    this.options = options;
  }

  // ---------------------------------------------------------------- views

  get status(): QueueStatus {
    if (this.state === 'disposed') return 'disposed';
    if (this.state === 'blocked') return 'blocked';
    if (this.state === 'exited') return this.active ? 'busy' : 'exited';
    return this.active || this.pending.length > 0 ? 'busy' : 'ready';
  }

  get holder(): OperationView<P> | undefined {
    return this.active;
  }

  /** Accepted operations waiting behind the active one. */
  get pendingCount(): number {
    return this.pending.length;
  }

  get pendingKinds(): OperationKind[] {
    return this.pending.map((op) => op.kind);
  }

  /** The id a browser may take over: an active, granted model send that is not recovering. */
  get takeoverId(): number | undefined {
    const op = this.active;
    if (!op || op.kind !== 'model-send' || op.phase.kind !== 'holding') {
      return undefined;
    }
    return op.id;
  }

  /** The current dispatch number. */
  get currentDispatch(): number {
    return this.dispatchCounter;
  }

  /**
   * The dispatch to stamp evidence with, or -1 while a write is in flight: what is seen then may predate
   * the write's effect, so it must never complete an operation.
   */
  get stableDispatch(): number {
    return this.active && (this.active.inflight > 0 || this.active.phase.kind === 'granting') ? -1 : this.dispatchCounter;
  }

  get idle(): boolean {
    return this.state === 'ready' && !this.active && this.pending.length === 0;
  }

  // ---------------------------------------------------------------- admission

  /** Accept an operation with what it carries (`payload`: its input), which its grant hook gets back. */
  enqueue(kind: Exclude<OperationKind, 'human'>, payload: P, options: { signal?: AbortSignal; timeoutMs?: number } = {}): OperationHandle {
    const op = this.accept(kind, payload, undefined, options.signal, options.timeoutMs);
    return { id: op.id, kind, result: op.result.promise, cancel: () => this.cancel(op) };
  }

  /**
   * A human lease at an idle prompt. Refused unless the queue is completely idle: typing while another
   * operation holds the terminal must never become a hidden answer.
   */
  beginHuman(payload: P): HumanLease {
    if (this.state === 'disposed') throw new QueueError('disposed', QUEUE_MESSAGES.disposed);
    if (this.state === 'blocked') throw new QueueError('blocked', this.blockedReason);
    if (this.state === 'exited') throw new QueueError('exited', QUEUE_MESSAGES.exited);
    if (!this.idle) throw new QueueError('busy', QUEUE_MESSAGES.busy);
    const op = this.accept('human', payload, 'idle', undefined);
    return this.leaseOf(op);
  }

  /** Hand the active model send to a human in place; the lease carries `payload` from now on. */
  takeover(id: number, payload: P): HumanLease {
    const op = this.active;
    if (!op || op.id !== id || this.takeoverId !== id) {
      throw new QueueError('takeover-unavailable', QUEUE_MESSAGES.takeover);
    }
    this.clearDeadline(op);
    op.detachAbort?.();
    op.detachAbort = undefined;
    op.payload = payload;
    const modelResult = op.result;
    op.result = deferred<OperationResult>();
    op.granted = deferred<void>();
    op.granted.resolve();
    op.kind = 'human';
    op.origin = 'takeover';
    modelResult.resolve({ waitReason: 'human_handoff', queueTimeMs: this.queueTime(op) });
    this.options.hooks.changed();
    return this.leaseOf(op);
  }

  private accept(
    kind: OperationKind,
    payload: P,
    origin: HumanOrigin | undefined,
    signal: AbortSignal | undefined,
    timeoutMs?: number,
  ): Operation<P> {
    if (this.state === 'disposed') throw new QueueError('disposed', QUEUE_MESSAGES.disposed);
    if (signal?.aborted) throw new QueueError('cancelled', 'the operation was cancelled before it was accepted');
    if (kind !== 'reset') {
      if (this.state === 'blocked') throw new QueueError('blocked', this.blockedReason);
      if (this.state === 'exited') throw new QueueError('exited', QUEUE_MESSAGES.exited);
    }
    const count = this.pending.length + (this.active ? 1 : 0);
    if (count >= this.options.maxQueuedOperations) throw new QueueError('queue-full', QUEUE_MESSAGES.full);
    const op: Operation<P> = {
      id: this.nextId++,
      kind,
      origin,
      acceptedAt: this.options.clock.now(),
      grantedAt: undefined,
      dispatch: -1,
      phase: { kind: 'queued' },
      payload,
      inflight: 0,
      writeChain: Promise.resolve(),
      deadline: undefined,
      timeoutMs,
      result: deferred<OperationResult>(),
      granted: deferred<void>(),
      detachAbort: undefined,
    };
    if (signal) {
      const onAbort = () => this.cancel(op);
      signal.addEventListener('abort', onAbort, { once: true });
      op.detachAbort = () => signal.removeEventListener('abort', onAbort);
    }
    this.pending.push(op);
    this.options.hooks.changed();
    this.pump();
    return op;
  }

  private leaseOf(op: Operation<P>): HumanLease {
    return {
      id: op.id,
      origin: op.origin ?? 'idle',
      granted: op.granted.promise,
      result: op.result.promise,
      get closed() {
        return op.phase.kind === 'settled' || op.phase.kind === 'recovering';
      },
      input: (write) => this.append(op, write),
      interrupt: () => this.humanInterrupt(op),
      abandon: () => this.cancel(op),
    };
  }

  // ---------------------------------------------------------------- running

  private pump(): void {
    if (this.active || this.state === 'disposed') return;
    // While blocked or exited, only the earliest reset may run; everything else was settled already.
    const next = this.pending.shift();
    if (!next) {
      this.options.hooks.changed();
      return;
    }
    this.active = next;
    next.phase = { kind: 'granting' };
    next.grantedAt = this.options.clock.now();
    if (next.kind === 'model-send' || next.kind === 'signal') {
      next.deadline = this.options.clock.setTimeout(
        () => this.startRecovery(next, 'timeout'),
        next.timeoutMs ?? this.options.operationTimeoutMs,
      );
    }
    this.options.hooks.changed();
    let settleNow: Settlement | undefined;
    const grant = this.runWrite(next, async () => {
      const outcome = await this.options.hooks.grant(next);
      if (outcome) settleNow = outcome.settleNow;
    });
    grant.then(
      () => {
        if (!isActive(next.phase)) return;
        // A recovery started meanwhile stays in charge; otherwise the operation now holds the slot.
        if (next.phase.kind === 'granting') next.phase = { kind: 'holding' };
        if (settleNow) {
          if (next.kind === 'reset') this.state = 'ready';
          next.granted.resolve();
          this.settle(next, settleNow);
          return;
        }
        if (next.kind === 'reset') {
          // The replacement is done: a fresh shell at its prompt.
          this.state = 'ready';
          this.settle(next, { waitReason: 'prompt' });
          return;
        }
        next.granted.resolve();
        this.options.hooks.changed();
      },
      (error: unknown) => {
        if (!isActive(next.phase)) return;
        next.granted.reject(error);
        if (error instanceof GrantRefused) {
          this.fail(next, error as unknown as QueueError);
          this.options.hooks.changed();
          this.pump();
          return;
        }
        const message = `${next.kind === 'reset' ? 'reset failed' : 'writing to the terminal failed'}: ${describe(error)}; queue is blocked until reset: call shared_terminal_reset to replace the shell`;
        this.block(next, new QueueError('grant-failed', message), message);
      },
    );
  }

  /** Run one write on behalf of `op` as a new dispatch; writes of one operation never overlap. */
  private runWrite(op: Operation<P>, write: () => Promise<void> | void): Promise<void> {
    op.inflight += 1;
    const run = op.writeChain.then(async () => {
      this.dispatchCounter += 1;
      op.dispatch = this.dispatchCounter;
      await write();
    });
    op.writeChain = run.catch(() => undefined);
    return run.finally(() => {
      op.inflight -= 1;
      if (op.inflight === 0 && op.phase.kind === 'recovering' && op.phase.interrupt.kind === 'after-writes') {
        void this.deliverInterrupt(op);
      }
    });
  }

  private append(op: Operation<P>, write: () => Promise<void> | void): Promise<void> {
    if (op.phase.kind !== 'holding' || op.kind !== 'human') {
      return Promise.reject(new QueueError('lease-closed', QUEUE_MESSAGES.leaseClosed));
    }
    return this.runWrite(op, write).catch((error: unknown) => {
      if (isActive(op.phase)) {
        const message = `writing to the terminal failed: ${describe(error)}; queue is blocked until reset: call shared_terminal_reset to replace the shell`;
        this.block(op, new QueueError('grant-failed', message), message);
      }
      throw error;
    });
  }

  /**
   * A completion was observed. `dispatch` is the dispatch that was current when the observer saw it; an
   * older one (the world changed since) is ignored, and so is one that arrives while a write is in flight.
   */
  observe(kind: 'prompt' | 'stdin_read', dispatch: number, detail?: unknown): boolean {
    const op = this.active;
    if (!op || op.inflight > 0 || dispatch !== op.dispatch || op.kind === 'reset') return false;
    const phase = op.phase;
    if (phase.kind === 'recovering') {
      // What the SIGINT leads to ends a recovery: the prompt, or a program that took it and reads input
      // again (a REPL back at its own prompt): the terminal answers, only the command was interrupted.
      // Either must come after the SIGINT is delivered: a prompt seen before it (the command ended just
      // then) is followed by the one bash draws for the SIGINT, which would otherwise end the next operation.
      if (phase.interrupt.kind !== 'sent' || !phase.interrupt.delivered) return false;
      this.settle(op, { waitReason: phase.reason, detail, recoveredAt: kind });
      return true;
    }
    if (phase.kind !== 'holding') return false;
    if (kind === 'stdin_read' && op.kind !== 'model-send' && op.kind !== 'signal') return false;
    this.settle(op, { waitReason: kind, detail });
    return true;
  }

  /** The shell exited. Pending resets stay queued and will replace it. */
  exited(detail?: unknown): void {
    if (this.state === 'disposed') return;
    const op = this.active;
    if (op && op.kind !== 'reset') this.settle(op, { waitReason: 'session_exit', detail }, false);
    this.state = this.state === 'blocked' ? 'blocked' : 'exited';
    for (const waiting of this.pending.filter((p) => p.kind !== 'reset')) {
      this.remove(waiting);
      this.finish(waiting, { waitReason: 'session_exit', detail });
    }
    this.options.hooks.changed();
    this.pump();
  }

  dispose(): void {
    if (this.state === 'disposed') return;
    this.state = 'disposed';
    const all = [...(this.active ? [this.active] : []), ...this.pending.splice(0)];
    this.active = undefined;
    for (const op of all) this.finish(op, { waitReason: 'cancelled' });
    this.options.hooks.changed();
  }

  // ---------------------------------------------------------------- cancel and recovery

  private cancel(op: Operation<P>): void {
    if (op.phase.kind === 'settled') return;
    if (op.phase.kind === 'queued') {
      this.remove(op);
      op.granted.reject(new QueueError('cancelled', 'the operation was cancelled before it ran'));
      this.finish(op, { waitReason: 'cancelled' });
      this.options.hooks.changed();
      return;
    }
    if (op.kind === 'reset') return; // a replacement in progress runs to its end
    this.startRecovery(op, 'cancelled');
  }

  private startRecovery(op: Operation<P>, reason: RecoveryReason): void {
    if (op.phase.kind !== 'granting' && op.phase.kind !== 'holding') return;
    this.clearDeadline(op);
    op.phase = { kind: 'recovering', reason, interrupt: { kind: 'after-writes' } };
    op.detachAbort?.();
    op.detachAbort = undefined;
    this.options.hooks.changed();
    // SIGINT waits for writes in flight (the grant included), even past the deadline.
    if (op.inflight === 0) void this.deliverInterrupt(op);
  }

  private async deliverInterrupt(op: Operation<P>): Promise<void> {
    const phase = op.phase;
    if (phase.kind !== 'recovering' || phase.interrupt.kind !== 'after-writes') return;
    const timer = this.options.clock.setTimeout(() => {
      if (!isActive(op.phase)) return;
      const message = `recovery failed after ${phase.reason === 'timeout' ? 'timeout' : 'cancel'}: neither the prompt nor a wait for input came within ${this.options.interruptTimeoutMs} ms of SIGINT; queue is blocked until reset: call shared_terminal_reset to replace the shell`;
      this.block(op, new QueueError('recovery-failed', message), QUEUE_MESSAGES.blocked);
    }, this.options.interruptTimeoutMs);
    op.phase = { kind: 'recovering', reason: phase.reason, interrupt: { kind: 'sent', timer, delivered: false } };
    try {
      await this.options.hooks.interrupt(op);
      if (op.phase.kind === 'recovering') op.phase = { ...op.phase, interrupt: { kind: 'sent', timer, delivered: true } };
    } catch (error) {
      if (!isActive(op.phase)) return;
      const message = `recovery failed: SIGINT could not be delivered (${describe(error)}); queue is blocked until reset: call shared_terminal_reset to replace the shell`;
      this.block(op, new QueueError('recovery-failed', message), QUEUE_MESSAGES.blocked);
    }
  }

  private async humanInterrupt(op: Operation<P>): Promise<void> {
    if (!isActive(op.phase) || op.kind !== 'human') throw new QueueError('lease-closed', QUEUE_MESSAGES.leaseClosed);
    // Let accepted input reach the terminal first, then interrupt; the lease stays until the prompt.
    await op.writeChain;
    await this.options.hooks.interrupt(op);
  }

  private block(op: Operation<P>, error: QueueError, reason: string): void {
    this.state = 'blocked';
    this.blockedReason = reason;
    this.fail(op, error);
    for (const waiting of this.pending.filter((p) => p.kind !== 'reset')) {
      this.remove(waiting);
      this.fail(waiting, new QueueError('blocked', reason));
    }
    this.options.hooks.changed();
    this.pump();
  }

  // ---------------------------------------------------------------- settling

  private settle(op: Operation<P>, settlement: Settlement, pumpAfter = true): void {
    if (op.phase.kind === 'settled') return;
    if (this.active === op) this.active = undefined;
    this.finish(op, settlement);
    if (pumpAfter) {
      this.options.hooks.changed();
      this.pump();
    }
  }

  private finish(op: Operation<P>, settlement: Settlement): void {
    if (op.phase.kind === 'settled') return;
    this.clearTimers(op);
    op.phase = { kind: 'settled' };
    op.detachAbort?.();
    op.detachAbort = undefined;
    if (!op.granted.done) op.granted.reject(new QueueError('cancelled', 'the operation ended before it was granted'));
    op.result.resolve({ ...settlement, queueTimeMs: this.queueTime(op) });
  }

  private fail(op: Operation<P>, error: QueueError | GrantRefused): void {
    if (op.phase.kind === 'settled') return;
    if (this.active === op) this.active = undefined;
    this.clearTimers(op);
    op.phase = { kind: 'settled' };
    op.detachAbort?.();
    op.detachAbort = undefined;
    op.granted.reject(error);
    op.result.reject(error);
  }

  private remove(op: Operation<P>): void {
    const index = this.pending.indexOf(op);
    if (index >= 0) this.pending.splice(index, 1);
  }

  private clearDeadline(op: Operation<P>): void {
    if (op.deadline !== undefined) this.options.clock.clearTimeout(op.deadline);
    op.deadline = undefined;
  }

  private clearTimers(op: Operation<P>): void {
    this.clearDeadline(op);
    if (op.phase.kind === 'recovering' && op.phase.interrupt.kind === 'sent') this.options.clock.clearTimeout(op.phase.interrupt.timer);
  }

  private queueTime(op: Operation<P>): number {
    return Math.max(0, Math.round((op.grantedAt ?? this.options.clock.now()) - op.acceptedAt));
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
