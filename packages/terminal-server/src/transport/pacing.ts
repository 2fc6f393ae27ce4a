/**
 * Pacing of one view whose renderer acks what it parsed: at most FLOW_WINDOW_CHARS of output in flight,
 * more held, and past HELD_MAX_CHARS held a skip ahead to a catch-up snapshot of the current screen. So a
 * slow page never slows the program (nothing here pauses the shell), and a person's echo or prompt waits
 * behind at most a window of output, never behind a whole flood. It decides; the view sends.
 *
 * A view that never acks is not paced (its socket's send limit bounds it, see view.ts).
 */
import type { Clock } from '../time.ts';
import { FLOW_RESUME_CHARS, FLOW_WINDOW_CHARS } from '../protocol/index.ts';
import type { OutputEvent } from '../terminal/generation.ts';

/** Output held for a paced view (its window is full) beyond which it skips ahead to a catch-up snapshot. */
const HELD_MAX_CHARS = 65_536;
/** Shortest time between two catch-ups of a flood (10 screens a second), screens a person waits for aside. */
export const FLOOD_SCREEN_INTERVAL_MS = 100;
/** How long a typed character's echo is looked for in a flood's output (see expectEcho). */
const ECHO_WAIT_MS = 1000;

/**
 * What happens to the next output. `open`: it goes out while it fits the window. `holding`: it waits for
 * acks (window full, or a catch-up in flight); `awaited` when what is held carries an echo or the prompt.
 * `skipping`: held output was dropped, the view's next frame is a catch-up snapshot.
 */
export type PaceState =
  | { readonly kind: 'open' }
  | { readonly kind: 'holding'; readonly held: OutputEvent[]; chars: number; awaited: boolean }
  | { readonly kind: 'skipping' };

export interface PaceHost {
  /** Send this output now (the view calls `sent` once it went out). */
  send(event: OutputEvent): void;
  /** Send a catch-up snapshot now, if the view is live. */
  catchUp(): void;
}

export class Pacer {
  private state: PaceState = { kind: 'open' };
  /** The view acked once: from then on it is paced. */
  private acking = false;
  private unacked: { sequence: number; chars: number }[] = [];
  private unackedChars = 0;
  /** Size of the catch-up snapshot not acked yet (0: none); output waits for that ack. */
  private catchUpInFlight = 0;
  private lastCatchUpAt = -Infinity;
  private paceTimer: unknown;
  /** The last character a person typed, while its echo is awaited. */
  private awaitedEcho: { ch: string; until: number } | undefined;
  /** Output characters dropped because a catch-up replaced them (diagnostics). */
  skippedChars = 0;
  private readonly clock: Clock;
  private readonly host: PaceHost;

  constructor(clock: Clock, host: PaceHost) {
    this.clock = clock;
    this.host = host;
  }

  get kind(): PaceState['kind'] {
    return this.state.kind;
  }

  get paced(): boolean {
    return this.acking;
  }

  /** Characters sent and not acked yet (a snapshot counts its replay). */
  get inFlight(): number {
    return this.unackedChars;
  }

  get heldChars(): number {
    return this.state.kind === 'holding' ? this.state.chars : 0;
  }

  /** Output waits or was dropped (the view is not showing the newest output). */
  get behind(): boolean {
    return this.state.kind !== 'open';
  }

  get skipping(): boolean {
    return this.state.kind === 'skipping';
  }

  /** The view's acks have brought what is in flight under the resume mark. */
  get resumable(): boolean {
    return this.unackedChars <= FLOW_RESUME_CHARS;
  }

  /**
   * A person typed `input`: the screen that carries its echo goes out as soon as the server reads it,
   * without waiting for a catch-up's ack (a stray match, the same character in the flood, costs one
   * screen). Only the last printable character is looked for, for at most ECHO_WAIT_MS.
   */
  expectEcho(input: string): void {
    const printable = [...input].filter((ch) => ch >= ' ' && ch !== '\x7f').at(-1);
    this.awaitedEcho = printable === undefined ? undefined : { ch: printable, until: this.clock.now() + ECHO_WAIT_MS };
  }

  /**
   * Whether this output may go now; if not it is held, or dropped. A typed key's echo and the prompt back
   * are what a person waits to see: when they would wait for a catch-up or be dropped, a catch-up goes at
   * once instead. An echo also goes without the ack of a catch-up in flight; a prompt that finds a
   * catch-up in flight but nothing dropped waits for its ack like any output.
   */
  admit(event: OutputEvent): boolean {
    if (!this.acking) return true;
    const echo = this.echoArrived(event); // asked once per chunk: it stops looking once the echo came
    const awaited = echo || event.prompt === true;
    const skipping = this.state.kind === 'skipping';
    if (skipping ? awaited : echo && this.catchUpInFlight > 0) {
      this.skipAhead();
      this.skippedChars += event.data.length;
      this.catchUpNow();
      return false;
    }
    if (skipping) {
      this.skippedChars += event.data.length;
      return false;
    }
    const fits = this.unackedChars === 0 || this.unackedChars + event.data.length <= FLOW_WINDOW_CHARS;
    if (this.state.kind === 'open' && fits && this.catchUpInFlight === 0) return true;
    if (this.state.kind === 'open') this.state = { kind: 'holding', held: [], chars: 0, awaited: false };
    const holding = this.state;
    if (holding.kind !== 'holding') return false;
    if (awaited) holding.awaited = true;
    holding.held.push(event);
    holding.chars += event.data.length;
    // Faster than the page parses: drop what is held and catch up from the screen when it has room.
    if (holding.chars > HELD_MAX_CHARS) this.skipAhead();
    return false;
  }

  /** The view sent this output. */
  sent(sequence: number, chars: number): void {
    if (!this.acking) return;
    this.unacked.push({ sequence, chars });
    this.unackedChars += chars;
  }

  /** A snapshot went out: the screen is rebuilt from it, so nothing held or in flight matters but it. */
  snapshotSent(sequence: number, chars: number, catchUp: boolean): void {
    this.reset();
    if (catchUp) this.lastCatchUpAt = this.clock.now();
    if (!this.acking) return;
    this.unacked.push({ sequence, chars });
    this.unackedChars = chars;
    if (catchUp) this.catchUpInFlight = chars;
  }

  /** The renderer parsed everything up to `sequence` (the view checked it was sent). */
  acked(sequence: number): void {
    this.acking = true;
    while (this.unacked.length > 0 && this.unacked[0]!.sequence <= sequence) {
      this.unackedChars -= this.unacked.shift()!.chars;
    }
  }

  /** Under the resume mark (and live): the next catch-up, or the held output that fits the window. */
  resume(): void {
    if (this.catchUpInFlight > 0) {
      // Everything waits for the catch-up's own ack (an older ack can still arrive after it was sent).
      if (this.unackedChars > 0) return;
      // It is parsed. If more output came meanwhile than the snapshot weighed, the flood goes on: another
      // screen costs the page less than that output would, and shows the same.
      const snapshotChars = this.catchUpInFlight;
      this.catchUpInFlight = 0;
      if (this.heldChars > snapshotChars) this.skipAhead();
    }
    if (this.state.kind === 'skipping') {
      this.nextFloodScreen();
      return;
    }
    if (this.state.kind !== 'holding') return;
    const holding = this.state;
    while (holding.held.length > 0) {
      const next = holding.held[0]!;
      if (this.unackedChars > 0 && this.unackedChars + next.data.length > FLOW_WINDOW_CHARS) break;
      holding.held.shift();
      holding.chars -= next.data.length;
      this.host.send(next);
    }
    // Everything held went out (awaited output with it).
    if (holding.held.length === 0 && this.state === holding) this.state = { kind: 'open' };
  }

  /** Forget what is held and in flight (a snapshot replaces it, or the view closed). */
  reset(): void {
    this.unacked = [];
    this.unackedChars = 0;
    this.state = { kind: 'open' };
    this.catchUpInFlight = 0;
  }

  dispose(): void {
    this.reset();
    if (this.paceTimer !== undefined) this.clock.clearTimeout(this.paceTimer);
    this.paceTimer = undefined;
  }

  private echoArrived(event: OutputEvent): boolean {
    const awaited = this.awaitedEcho;
    if (!awaited) return false;
    if (this.clock.now() > awaited.until) {
      this.awaitedEcho = undefined;
      return false;
    }
    if (!event.data.includes(awaited.ch)) return false;
    this.awaitedEcho = undefined;
    return true;
  }

  /** Drop the held output: the view's next frame is a catch-up (at once if it held awaited output). */
  private skipAhead(): void {
    const awaited = this.state.kind === 'holding' && this.state.awaited;
    this.skippedChars += this.heldChars;
    this.state = { kind: 'skipping' };
    if (awaited) this.catchUpNow();
  }

  /** A catch-up for awaited output, once the generation has queued its chunk for the screen (the output
   *  event comes before that). */
  private catchUpNow(): void {
    queueMicrotask(() => this.host.catchUp());
  }

  /**
   * The next catch-up of a flood, at most one per FLOOD_SCREEN_INTERVAL_MS: a flood's screens are a blur
   * to a person, and on a small machine every screen the page draws is CPU the program does not get.
   */
  private nextFloodScreen(): void {
    if (this.paceTimer !== undefined) return;
    const wait = this.lastCatchUpAt + FLOOD_SCREEN_INTERVAL_MS - this.clock.now();
    if (wait <= 0) {
      this.host.catchUp();
      return;
    }
    this.paceTimer = this.clock.setTimeout(() => {
      this.paceTimer = undefined;
      if (this.state.kind === 'skipping' && this.catchUpInFlight === 0 && this.unackedChars === 0) this.host.catchUp();
    }, wait);
  }
}
