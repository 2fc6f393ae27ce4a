/**
 * Where an operation's output starts on the screen. A capture begins at the normal screen's cursor. A
 * program that moves the cursor above that start and prints there (`printf '\033[H'`, `tput cup`, a
 * dialog that leaves its last lines at the top) printed its output above where the operation began, and
 * the prompt after it may be above that start too: the capture remembers the rows the cursor can reach
 * above its start (the viewport's) as they read just before the first such move (the screen tells it,
 * see Screen), and its output starts at the first of them that changed. Without such a move nothing is
 * read: most operations never move the cursor up.
 */
import type { AlternatePosition } from './alternate-rows.ts';
import type { OutputEnd, Screen } from './screen.ts';

/** Output of one operation, read back from the screen (so `\r` progress bars are already folded). */
export interface CaptureResult {
  lines: string[];
  /** Lines from the start of the capture were evicted from history. */
  evicted: boolean;
}

/** The reachable rows above a capture's start, as they read just before the cursor first moved up. */
interface RowsAbove {
  /** Absolute row of the first of them (the viewport's top). */
  top: number;
  /** Their text as `compared` gives it. */
  texts: readonly string[];
}

export class CaptureHandle {
  /** Absolute row of the normal screen where the capture starts (rows ever trimmed + buffer row). */
  readonly startRow: number;
  /** Where the start column falls in the start row's text (a wide character: two columns, one place). */
  private readonly startIndex: number;
  /** Where the capture starts on the alternate screen, when it began there (a program died on it). */
  readonly alternateStart: AlternatePosition | undefined;
  private readonly screen: Screen;
  private above: RowsAbove | undefined;

  /** The start row's text before the start column when the capture began (see `compared`). */
  private readonly startPrefix: string;
  /** The rows from the start row to the screen's last as they read when the capture began: where a prompt
   *  covers text, the command wrote only what differs from them (see writtenExtent). */
  private readonly rowsAtStart: readonly string[];

  /** `rowsAtStart`: the texts of the start row and every row below it now; `start.index`: where the start
   *  column falls in the first. */
  constructor(screen: Screen, start: { row: number; index: number }, rowsAtStart: readonly string[], alternateStart?: AlternatePosition) {
    this.screen = screen;
    this.startRow = start.row;
    this.startIndex = start.index;
    this.rowsAtStart = rowsAtStart;
    this.startPrefix = this.compared(start.row, rowsAtStart[0] ?? '');
    this.alternateStart = alternateStart;
  }

  /** How much of `text` (row `row`, at or below the start, as the command left it) the command wrote: up to
   *  the last place where it differs from what the row held when the capture began (a row that came into
   *  being since held nothing). 0 for a row above the start. */
  writtenExtent(row: number, text: string): number {
    if (row < this.startRow) return 0;
    const before = this.rowsAtStart[row - this.startRow] ?? '';
    for (let i = Math.max(before.length, text.length) - 1; i >= 0; i--) {
      if ((text[i] ?? ' ') !== (before[i] ?? ' ')) return i + 1;
    }
    return 0;
  }

  /** The rows above the start are not taken yet: the cursor has not been about to move up since it. */
  get watching(): boolean {
    return this.above === undefined;
  }

  /** Take the rows from `top` (the viewport's top) to the start, as `rowText` reads them now: called just
   *  before the cursor first moves up after the start; later calls change nothing. */
  takeAbove(top: number, rowText: (row: number) => string): void {
    if (this.above) return;
    const texts: string[] = [];
    for (let row = top; row <= this.startRow; row++) texts.push(this.compared(row, rowText(row)));
    this.above = { top, texts };
  }

  /** Read the capture, up to `end` (where a prompt began) when given. Nothing is held: a capture is a
   *  position in the continuous history, valid as long as its screen. */
  read(end?: OutputEnd): CaptureResult {
    return this.screen.readCapture(this, end);
  }

  /**
   * Where the output starts: the first row above the start that reads differently now (`rowText` gives a
   * row's text now, undefined once it left the history), from its first column; else the start itself.
   */
  outputStart(rowText: (row: number) => string | undefined): { row: number; index: number } {
    if (!this.above) {
      // A carriage return took the program back to the start row's first column (`more` writing its next
      // page over its own `--More--` line): what it wrote there is output too.
      const now = rowText(this.startRow);
      const rewritten = now !== undefined && this.compared(this.startRow, now) !== this.startPrefix;
      return { row: this.startRow, index: rewritten ? 0 : this.startIndex };
    }
    const { top, texts } = this.above;
    for (let i = 0; i < texts.length; i++) {
      const row = top + i;
      const now = rowText(row);
      if (now === undefined) continue;
      if (this.compared(row, now) !== texts[i]) return { row, index: 0 };
    }
    return { row: this.startRow, index: this.startIndex };
  }

  /** A row's text as it is compared: the start row's only before the start column, trailing blanks
   *  dropped (the emulator drops them from every other row). */
  private compared(row: number, text: string): string {
    return row === this.startRow ? text.slice(0, this.startIndex).trimEnd() : text;
  }
}
