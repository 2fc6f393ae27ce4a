/**
 * How an interrupt gets the prompt back: SIGINT to the group in front, then, for a while, to each new
 * group that comes to the front while the operation still holds the terminal.
 *
 * One SIGINT does not always end a command line: in a loop of short programs (`while :; do cat f; done`)
 * it can land in a child bash has forked and not yet exec'd, which then exits normally and the loop goes
 * on (a real Ctrl-C loses the same race); or it becomes a long program that never saw the signal (see
 * follow). The first SIGINT is typed (it drops typed-ahead input, which the generation drops first so that
 * a full input buffer cannot hold the character back); the follow-ups are kills, quick enough
 * to spare a shell that is back at its prompt. On a starved CPU a loop's children spend most of their
 * life there, so the follow lasts as long as a recovery may (the default interruptTimeoutMs). The shell
 * itself is never signalled here.
 */
import type { TerminalGeneration } from '../terminal/generation.ts';

/** What following needs of a terminal generation (tests give a scripted one: the race is not on demand). */
export type FrontSignals = Pick<TerminalGeneration, 'status' | 'pid' | 'signalForeground' | 'killForeground' | 'foregroundFront'>;

const FOLLOW_MS = 5000;
/** A new group in front is looked for at most this often, and at most FOLLOW_MAX of them are signalled. */
const FOLLOW_POLL_MS = 50;
const FOLLOW_MAX = 100;

/** SIGINT to the foreground group of `generation`; `stillHolding` says whether to go on following. */
export async function interruptForeground(generation: FrontSignals, stillHolding: () => boolean, pollMs = FOLLOW_POLL_MS): Promise<void> {
  if (generation.status.kind !== 'running') throw new Error('terminal is exited');
  // Followed even when the shell was in front: the typed Ctrl-C reaches the group in front when the
  // kernel reads it, which in a loop of short programs may already be the next child.
  const before = await generation.foregroundFront();
  const group = await generation.signalForeground('SIGINT');
  void follow(generation, { group, command: before?.group === group ? before.command : undefined }, stillHolding, pollMs);
}

/**
 * Signal each new group that comes to the front; and a group signalled while its leader was still the
 * shell's fork (its command still the shell's, bash) once more when it has since become the program:
 * bash's fork takes a SIGINT in bash's own handler until it execs, so `sleep 600` started just then
 * would never see it, and a person's Interrupt would leave it running.
 */
async function follow(
  generation: FrontSignals,
  signalled: { group: number; command: string | undefined },
  stillHolding: () => boolean,
  pollMs: number,
): Promise<void> {
  const until = performance.now() + FOLLOW_MS;
  let last = signalled;
  for (let extra = 0; extra < FOLLOW_MAX && performance.now() < until;) {
    await new Promise((resolve) => setTimeout(resolve, pollMs).unref());
    if (!stillHolding()) return;
    const front = await generation.foregroundFront();
    if (front === undefined || front.group === generation.pid) continue;
    const execd = front.group === last.group && last.command !== undefined && front.command !== undefined && front.command !== last.command;
    if (front.group === last.group && !execd) continue;
    if (!stillHolding()) return; // the inspection took a moment: the prompt may be back
    const group = await generation.killForeground('SIGINT').catch(() => last.group);
    last = { group, command: group === front.group ? front.command : undefined };
    extra += 1;
  }
}
