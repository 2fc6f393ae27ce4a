/**
 * What an operation of the queue is: its kinds, the phases it walks, what it settles with, the handles
 * its callers hold, and the queue's errors and messages. queue.ts is the machine that moves operations
 * through these.
 */
import { CodedError } from '../errors.ts';

export type OperationKind = 'model-send' | 'human' | 'signal' | 'reset';
export type QueueStatus = 'ready' | 'busy' | 'blocked' | 'exited' | 'disposed';
export type WaitReason = 'prompt' | 'stdin_read' | 'human_handoff' | 'session_exit' | 'timeout' | 'cancelled';
export type HumanOrigin = 'idle' | 'takeover';

export type QueueErrorCode =
  | 'queue-full'
  | 'blocked'
  | 'exited'
  | 'disposed'
  | 'busy'
  | 'cancelled'
  | 'recovery-failed'
  | 'lease-closed'
  | 'takeover-unavailable'
  | 'grant-failed';

export class QueueError extends CodedError<QueueErrorCode> {
  constructor(code: QueueErrorCode, message: string) {
    super('QueueError', code, message);
  }
}

/**
 * Thrown by a grant hook to refuse the operation without harming the terminal (a refused signal, say):
 * the operation fails with it and the next one runs. Any other grant error blocks the queue.
 */
export class GrantRefused extends CodedError {
  constructor(code: string, message: string) {
    super('GrantRefused', code, message);
  }
}

/** Returned by a grant hook to settle the operation at once (nothing to wait for). */
export interface SettleNow {
  settleNow: Settlement;
}

export const QUEUE_MESSAGES = {
  full: 'terminal queue is full: wait for the accepted operations to finish; do not retry in parallel',
  blocked: 'terminal queue is blocked until reset: call shared_terminal_reset to replace the shell',
  exited: 'terminal is exited: its final screen can still be read; call shared_terminal_reset to start a new shell',
  disposed: 'terminal owner or service is disposed',
  busy: 'the terminal is busy with another operation: use Take over input to answer a running program',
  leaseClosed: 'human lease is closed',
  takeover: 'takeover is not available: the operation already finished, is recovering, or was taken over',
} as const;

/** What an observation or the queue itself settles an operation with. */
export interface Settlement {
  waitReason: WaitReason;
  /** Whatever the observer attached (exit code, input wait facts). */
  detail?: unknown;
  /** What ended a recovery (`timeout`, `cancelled`): the prompt, or the interrupted program reading input
   *  again (`detail` is then its wait). */
  recoveredAt?: 'prompt' | 'stdin_read';
}

export type RecoveryReason = 'timeout' | 'cancelled';

/**
 * Where an operation is in its life. Recovery (a deadline or a cancel) starts from granting or holding;
 * its SIGINT waits for the writes in flight, then the prompt (or the interrupted program reading input
 * again) has interruptTimeoutMs to come back.
 */
export type OperationPhase =
  | { readonly kind: 'queued' }
  /** The grant hook runs (its input is being written). */
  | { readonly kind: 'granting' }
  /** Granted: waiting for the evidence that settles it. */
  | { readonly kind: 'holding' }
  | {
      readonly kind: 'recovering';
      readonly reason: RecoveryReason;
      /** `delivered`: the interrupt hook returned (the SIGINT is typed or sent), so a wait seen now is one
       *  the program entered after it. */
      readonly interrupt:
        { readonly kind: 'after-writes' } | { readonly kind: 'sent'; readonly timer: unknown; readonly delivered: boolean };
    }
  | { readonly kind: 'settled' };

/** An operation as the hooks see it; `payload` is what it was enqueued with (its input, say). */
export interface OperationView<P = void> {
  readonly id: number;
  readonly kind: OperationKind;
  readonly origin: HumanOrigin | undefined;
  readonly acceptedAt: number;
  readonly grantedAt: number | undefined;
  /** The dispatch of the latest write on behalf of this operation. */
  readonly dispatch: number;
  readonly phase: OperationPhase;
  readonly payload: P;
}

export interface OperationResult extends Settlement {
  queueTimeMs: number;
}

export interface OperationHandle {
  readonly id: number;
  readonly kind: OperationKind;
  readonly result: Promise<OperationResult>;
  cancel(): void;
}

export interface HumanLease {
  readonly id: number;
  readonly origin: HumanOrigin;
  /** Resolves when the lease holds the slot (its first input, if any, was written). */
  readonly granted: Promise<void>;
  /** Settles when the interaction is over (prompt, exit, recovery). */
  readonly result: Promise<OperationResult>;
  readonly closed: boolean;
  /** Write more input through the lease (serialized). */
  input(write: () => Promise<void> | void): Promise<void>;
  /** Interrupt input: SIGINT to the foreground; the lease is kept until the prompt is back. */
  interrupt(): Promise<void>;
  /** The holder is gone (grace expired): recover like a model cancel, or drop it unwritten if queued. */
  abandon(): void;
}
