/**
 * Row numbers that hold still on the alternate screen. That buffer keeps no history: a line scrolled off
 * its top is gone, and the rows below move up. A program that died in it (vim killed, a TUI that crashed)
 * leaves bash drawing its prompts there, and an operation's output must still run from where its command
 * line began to where the next prompt began, not be the whole screen. Positions are numbered from the
 * first row the buffer showed when it was entered, counting rows scrolled off since, and each entry into
 * the buffer is an epoch of its own: a position of another epoch means nothing here.
 */
import type { IMarker } from '@xterm/headless';

/** A place on the alternate screen: the entry into it and the epoch of the count, its row counted from
 *  the epoch's first row, its column. */
export interface AlternatePosition {
  entry: number;
  epoch: number;
  row: number;
  x: number;
}

export class AlternateRows {
  private epochNumber = 0;
  private entryNumber = 0;
  /** A marker the emulator moves up as rows scroll off (and drops once its row is gone), and the row it
   *  stood on when set. */
  private anchor: { marker: IMarker; row: number } | undefined;
  private readonly markCursorRow: () => IMarker | undefined;

  /** `markCursorRow` registers an emulator marker on the cursor's row of the active buffer. */
  constructor(markCursorRow: () => IMarker | undefined) {
    this.markCursorRow = markCursorRow;
  }

  /** Rows scrolled off the top since the entry, or undefined when more scrolled at once than the count
   *  could follow (the anchor's row went too): positions taken before that are lost. */
  get scrolled(): number | undefined {
    const anchor = this.anchor;
    if (!anchor || anchor.marker.isDisposed) return undefined;
    return anchor.row - anchor.marker.line;
  }

  /** The alternate buffer was entered, the cursor on `cursorY`. */
  entered(cursorY: number): void {
    this.entryNumber += 1;
    this.epochNumber += 1;
    this.setAnchor(cursorY);
  }

  /** The normal buffer is back. */
  left(): void {
    this.anchor?.marker.dispose();
    this.anchor = undefined;
  }

  /** After a slice of output on the alternate screen: set the anchor on the cursor's row, usually the
   *  lowest one written, so that the next slice can scroll a whole screen and still be counted. A count
   *  already lost starts a new epoch. */
  afterSlice(cursorY: number): void {
    const scrolled = this.scrolled;
    if (scrolled === undefined) {
      this.epochNumber += 1;
      this.setAnchor(cursorY);
      return;
    }
    this.setAnchor(scrolled + cursorY, cursorY);
  }

  /** Where the cursor is, as a lasting position; undefined while the count is lost. */
  position(cursorY: number, x: number): AlternatePosition | undefined {
    const scrolled = this.scrolled;
    return scrolled === undefined ? undefined : { entry: this.entryNumber, epoch: this.epochNumber, row: scrolled + cursorY, x };
  }

  /** Where `position` is on the screen now: a row of the viewport, negative once scrolled off (an older
   *  epoch of the same entry: the count was lost as a screenful scrolled at once); undefined for a place
   *  on an earlier entry into this screen, or while the count is lost. */
  viewportRow(position: AlternatePosition): number | undefined {
    const scrolled = this.scrolled;
    if (scrolled === undefined || position.entry !== this.entryNumber) return undefined;
    if (position.epoch !== this.epochNumber) return Number.NEGATIVE_INFINITY;
    return position.row - scrolled;
  }

  private setAnchor(row: number, cursorY = row): void {
    this.anchor?.marker.dispose();
    const marker = this.markCursorRow();
    // The marker stands on the cursor's row (cursorY); `row` is that row's number in this epoch.
    this.anchor = marker ? { marker, row: row - cursorY + marker.line } : undefined;
  }
}

/** A viewport row of the alternate screen: its text and whether it continues the row above. */
export interface AlternateRow {
  text: string;
  wrapped: boolean;
}

/**
 * An operation's output on the alternate screen, when a prompt ended it there (`end`, where the prompt
 * began): from where the operation began (`start`; the top of the screen when it began elsewhere, or its
 * row scrolled off), up to `end`. Lines lose their trailing blanks: a program that died here painted whole
 * rows with spaces, and what bash prints over them does not clear the rest. Undefined when `end` is not a
 * place on this screen now: a full-screen program's screen is then the output.
 */
export function alternateOutput(
  rows: AlternateRows,
  start: AlternatePosition | undefined,
  end: AlternatePosition,
  rowAt: (viewportRow: number) => AlternateRow | undefined,
  /** Where a column of a viewport row falls in its text (a wide character: two columns, one place). */
  indexAt: (viewportRow: number, x: number) => number,
): { lines: string[]; evicted: boolean } | undefined {
  const endRow = rows.viewportRow(end);
  if (endRow === undefined || endRow < 0) return undefined;
  const startRow = start ? rows.viewportRow(start) : undefined;
  const evicted = startRow !== undefined && startRow < 0;
  const from = startRow !== undefined && !evicted && startRow <= endRow ? { row: startRow, x: start!.x } : { row: 0, x: 0 };
  const lines: string[] = [];
  for (let row = from.row; row <= endRow; row++) {
    const r = rowAt(row);
    if (!r) continue;
    const cut = row === endRow ? r.text.slice(0, indexAt(row, end.x)) : r.text;
    const text = row === from.row ? cut.slice(indexAt(row, from.x)) : cut;
    if (r.wrapped && lines.length > 0 && row !== from.row) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  const trimmed = lines.map((line) => line.trimEnd());
  // From the top of the screen, the blank rows above the first output say nothing.
  if (from.row === 0 && startRow === undefined) while (trimmed.length > 0 && trimmed[0] === '') trimmed.shift();
  return { lines: trimmed, evicted };
}
