/**
 * The archive of history rows the screen's emulator no longer needs to hold: a queue of rows numbered by
 * absolute row (rows ever trimmed from the emulator plus the row's place in it), oldest first, with the
 * bytes they take counted for the history's byte cap. The screen decides what goes in and when rows are
 * lost; this room only keeps them in order and drops the oldest in amortised constant time.
 */
import type { ArchivedRow } from './row-ansi.ts';

/** Dropped rows are sliced off the front once this many have piled up (and they are over half). */
const COMPACT_AFTER_ROWS = 4096;

/** What a row counts against scrollbackMaxBytes: its styled and its plain text (as when both were kept). */
export function rowBytes(row: ArchivedRow): number {
  return row.ansiLength + row.textLength + 16;
}

export class RowArchive {
  private rows: ArchivedRow[] = [];
  /** Index in `rows` of the oldest row kept (those before it were dropped). */
  private head = 0;
  /** Absolute row number of the oldest row kept; Number.MAX_SAFE_INTEGER while unsettled (see clear). */
  private first = 0;
  private byteCount = 0;

  /** Absolute row number of the oldest row (or where the next one will go, while empty). */
  get start(): number {
    return this.first;
  }

  /** Where the archive starts once it is empty: the next row pushed gets this number. */
  set start(row: number) {
    this.first = row;
  }

  get length(): number {
    return this.rows.length - this.head;
  }

  /** The absolute row number after the newest row. */
  get end(): number {
    return this.first + this.length;
  }

  get bytes(): number {
    return this.byteCount;
  }

  /** The start is unsettled: cleared, waiting for the screen to say where history now begins. */
  get unsettled(): boolean {
    return this.first === Number.MAX_SAFE_INTEGER;
  }

  push(row: ArchivedRow): void {
    this.rows.push(row);
    this.byteCount += rowBytes(row);
  }

  /** Absolute row `row`, if the archive holds it. */
  at(row: number): ArchivedRow | undefined {
    if (row < this.first) return undefined;
    return this.rows[this.head + row - this.first];
  }

  /** Drop the oldest row. */
  dropOldest(): void {
    const row = this.rows[this.head];
    if (!row) return;
    this.byteCount -= rowBytes(row);
    this.head++;
    this.first++;
    if (this.head > COMPACT_AFTER_ROWS && this.head * 2 > this.rows.length) {
      this.rows = this.rows.slice(this.head);
      this.head = 0;
    }
  }

  /** Empty, with the next row numbered `row`. */
  resetAt(row: number): void {
    this.rows = [];
    this.head = 0;
    this.byteCount = 0;
    this.first = row;
  }

  /** Empty, its start unsettled until the screen counts the rows its emulator dropped (see `unsettled`). */
  clear(): void {
    this.resetAt(Number.MAX_SAFE_INTEGER);
  }
}
