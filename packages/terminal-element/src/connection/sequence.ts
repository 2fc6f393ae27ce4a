/**
 * Output sequencing and acks: owns the rule that the screen only ever applies output in order. Output
 * counts only after this socket's snapshot, for that snapshot's generation, exactly one past the last
 * sequence; a duplicate is skipped and a gap (or another generation) asks for a fresh snapshot, after which
 * output is ignored until it comes. Acks say what the renderer has parsed: at once when it caught up, else
 * every `ackEveryChars` characters (the server's flow control waits for them; see FLOW_WINDOW_CHARS).
 */

/**
 * no-snapshot: the current socket sent no snapshot yet. in-step: output follows the last snapshot.
 * resyncing: a gap was seen and a snapshot asked for; output waits for it.
 */
export type StreamState = 'no-snapshot' | 'in-step' | 'resyncing';

/** What to do with an output frame: apply it, skip it (a duplicate or not in step), or ask for a resync. */
export type OutputVerdict = 'apply' | 'ignore' | 'duplicate' | 'resync';

export class OutputSequence {
  private readonly ackEveryChars: number;
  private stream: StreamState = 'no-snapshot';
  private currentGeneration: number | null = null;
  private currentSequence = 0;
  private parsedSequence = 0;
  private ackedSequence = 0;
  private unackedChars = 0;

  constructor(ackEveryChars: number) {
    this.ackEveryChars = ackEveryChars;
  }

  get state(): StreamState {
    return this.stream;
  }
  get generation(): number | null {
    return this.currentGeneration;
  }
  get sequence(): number {
    return this.currentSequence;
  }

  /** A new socket: nothing is in step until its snapshot. */
  attach(): void {
    this.stream = 'no-snapshot';
  }

  /** A snapshot: the screen as of `sequence`. Returns the generation shown before it. */
  snapshot(generation: number, sequence: number): number | null {
    const previous = this.currentGeneration;
    this.currentGeneration = generation;
    this.currentSequence = sequence;
    this.parsedSequence = Math.min(this.parsedSequence, sequence);
    // Every snapshot is acked once parsed, even one with the sequence already acked (a full snapshot after
    // a catch-up): the server counts its replay as in flight until then.
    this.ackedSequence = Math.min(this.ackedSequence, sequence - 1);
    this.unackedChars = 0;
    this.stream = 'in-step';
    return previous;
  }

  output(generation: number, sequence: number): OutputVerdict {
    if (this.stream !== 'in-step') return 'ignore';
    if (generation !== this.currentGeneration || sequence > this.currentSequence + 1) {
      this.stream = 'resyncing';
      return 'resync';
    }
    if (sequence <= this.currentSequence) return 'duplicate';
    this.currentSequence = sequence;
    return 'apply';
  }

  /** The renderer parsed everything up to `sequence` (`chars` more characters). Returns the sequence to ack, or null. */
  parsed(sequence: number, chars: number): number | null {
    if (sequence > this.parsedSequence) this.parsedSequence = sequence;
    this.unackedChars += chars;
    const caughtUp = this.parsedSequence >= this.currentSequence;
    if (this.parsedSequence <= this.ackedSequence || (!caughtUp && this.unackedChars < this.ackEveryChars)) return null;
    this.ackedSequence = this.parsedSequence;
    this.unackedChars = 0;
    return this.parsedSequence;
  }
}
