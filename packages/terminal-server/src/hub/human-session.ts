/**
 * A person's input lease as the transport holds it: the byte allowance until the program reads
 * (maxInputBytes), input only into the generation the lease began on, and one `human-settled` report
 * when it is over, saying what the first input went to.
 */
import { type HumanLease, type HumanOrigin, QUEUE_MESSAGES, QueueError, type WaitReason } from '../queue/operation.ts';
import type { PromptFact, TerminalGeneration } from '../terminal/generation.ts';
import { refusedLine } from '../terminal/canonical-line.ts';
import { utf8Length } from '../utf8.ts';
import { TerminalError } from '../errors.ts';

/** A human interaction is over (`human-settled`). */
export interface HumanSettled {
  ownerId: string;
  leaseId: number;
  /** `idle`: input begun at an idle prompt. `takeover`: a model send handed to the person. */
  origin: HumanOrigin;
  generation: number;
  /** How it ended: `prompt` (the shell is back), `session_exit`, `cancelled` (interrupted after the
   *  controller left), or `failed` (the terminal could not carry it out). */
  waitReason: WaitReason | 'failed';
  /** Exit status of the last command, when the shell reported one. */
  exitCode: number | undefined;
  /**
   * What the person's input first went to: the shell at its prompt, or a program that was in front (one
   * waiting for input after the model's send returned, or the model's send taken over).
   */
  began: 'prompt' | 'program';
}

/** A human lease: its first input (idle begin), and the bytes typed since the program last read. */
export interface HumanWork {
  kind: 'human';
  firstInput: string;
  inputBytes: number;
}

/** A human lease as the transport uses it: the queue's lease, with input as text under the byte cap. */
export interface HumanSession extends Pick<HumanLease, 'id' | 'origin' | 'granted' | 'result' | 'closed'> {
  /** Write input; refused when over the byte cap (nothing is written then). */
  input(text: string): Promise<void>;
  /** SIGINT to the foreground group; the lease is kept until the prompt is back. */
  interrupt(): Promise<void>;
  /** Nobody holds it any more (controller gone past grace). */
  abandon(): void;
}

/** What a session needs of its owner. */
export interface HumanSessionContext {
  ownerId: string;
  maxInputBytes: number;
  /** The generation the lease began on. */
  generation: number;
  /** That generation while it is still the owner's current one. */
  target(): TerminalGeneration | undefined;
  settled(event: HumanSettled): void;
}

/** Refuse input past the allowance (nothing is written then). */
export function checkHumanBytes(text: string, used: number, maxInputBytes: number): void {
  if (used + utf8Length(text) > maxInputBytes) {
    throw new TerminalError(
      'input-limit',
      `human input limit reached (${maxInputBytes} bytes until the program reads it): press Enter or Interrupt input`,
    );
  }
}

export function openHumanSession(
  lease: HumanLease,
  work: HumanWork,
  began: Promise<HumanSettled['began']>,
  context: HumanSessionContext,
): HumanSession {
  let reported = false;
  const report = async (waitReason: WaitReason | 'failed', exitCode: number | undefined) => {
    if (reported) return;
    reported = true;
    const first = await began.catch((): HumanSettled['began'] => 'prompt');
    context.settled({
      ownerId: context.ownerId,
      leaseId: lease.id,
      origin: lease.origin,
      generation: context.generation,
      waitReason,
      exitCode,
      began: first,
    });
  };
  lease.result.then(
    (result) => report(result.waitReason, (result.detail as PromptFact | undefined)?.exitCode),
    () => report('failed', undefined),
  );
  return {
    id: lease.id,
    origin: lease.origin,
    granted: lease.granted,
    result: lease.result,
    get closed() {
      return lease.closed;
    },
    input: async (text: string) => {
      if (lease.closed) throw new QueueError('lease-closed', QUEUE_MESSAGES.leaseClosed);
      checkHumanBytes(text, work.inputBytes, context.maxInputBytes);
      // A pasted line longer than a line-by-line reader takes would lose its tail in the kernel unseen.
      const target = context.target();
      const overlong = target && (await refusedLine(text, () => target.readsCanonically()));
      if (overlong) throw new TerminalError('line-too-long', overlong);
      work.inputBytes += utf8Length(text);
      await lease.input(async () => {
        const target = context.target();
        if (!target) throw new Error('terminal generation changed');
        await target.write(text);
      });
    },
    interrupt: () => lease.interrupt(),
    abandon: () => lease.abandon(),
  };
}
