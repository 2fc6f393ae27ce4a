/**
 * Where the current prompt stands on the screen, taken from the shell's marks at the point the screen
 * parsed them: where the command's output ends (the prompt's start), where the line typed at it begins
 * (the prompt's end), the row an exit-status mark was printed over, and a prompt drawn inside the output
 * before its command's status came. The completion watch decides which marks count and when a prompt is
 * reported; this room keeps only places, and turns them into the output's end when it is.
 */
import type { OutputEnd, Screen, ScreenPosition } from '../screen/screen.ts';

/** What the places read of the screen, always at a parse boundary. */
export type PlacesScreen = Pick<Screen, 'absoluteCursor' | 'cursorRowText' | 'position' | 'rowUnderCursor'>;

type Cursor = ReturnType<Screen['absoluteCursor']>;
type Span = { from: ScreenPosition; to: ScreenPosition };

/** Two positions on the same screen, whose lines compare: both on the normal one, or on one count of
 *  the alternate one. */
function samePlace(a: ScreenPosition, b: ScreenPosition): boolean {
  return a.alternate?.entry === b.alternate?.entry && a.alternate?.epoch === b.alternate?.epoch;
}

/** `a` and `b` are one place. */
function samePosition(a: ScreenPosition, b: ScreenPosition): boolean {
  return samePlace(a, b) && a.line === b.line && a.x === b.x;
}

/** `a` is at `b` or before it, on the same screen. */
function atOrBefore(a: ScreenPosition | undefined, b: ScreenPosition): boolean {
  return a !== undefined && samePlace(a, b) && (a.line < b.line || (a.line === b.line && a.x <= b.x));
}

/**
 * Where a prompt whose start mark (A) stands at `begins` opens: readline draws its mode string
 * (`show-mode-in-prompt`: `(ins)`, `@`) in front of PS1 on the same row, after the status mark, so what
 * stands on that row after the status mark (`status`) belongs to the prompt. Job notices, also printed
 * between the two, end with their own line feed and stay above.
 */
function promptOpening(status: ScreenPosition, begins: ScreenPosition): ScreenPosition {
  const rowStart = { ...begins, x: 0 };
  return atOrBefore(rowStart, status) ? status : rowStart;
}

export class PromptPlaces {
  private readonly screen: PlacesScreen;
  /** Where the current prompt began: at its start mark (A), else its exit-status mark, else at its prompt
   *  mark's line. */
  private start: ScreenPosition | undefined;
  /** The status mark's row as the command left it, when text stood at or after the mark (`printf
   *  'done\r'`): a prompt drawn from the mark covers it, and the output ends with that row whole. */
  private statusRow: { at: ScreenPosition; text: string } | undefined;
  /** Where PS1 began since the last exit-status mark (A): job notices bash printed before it are output. */
  private begins: ScreenPosition | undefined;
  /** The last counted prompt, from its start to its end, when its command line had no status yet: a late
   *  status mark then follows the command's last output, drawn after that prompt. */
  private beforeStatus: Span | undefined;
  /** That prompt, once the late status mark came: it stands inside the output, and is no part of it. */
  private skipped: Span | undefined;
  /** Where the last prompt mark (counted, or a redraw) left the cursor: where the line at that prompt begins. */
  private promptEnd: ScreenPosition | undefined;
  /** The last prompt reported, as drawn on its row (PS1 rendered), and the columns it takes. */
  private lastPrompt: { text: string; columns: number } | undefined;

  constructor(screen: PlacesScreen) {
    this.screen = screen;
  }

  /** Where the line typed at the last prompt begins. */
  get end(): ScreenPosition | undefined {
    return this.promptEnd;
  }

  /** A start mark (A): only a place; the prompt mark that follows decides what it was. */
  startMark(): void {
    this.begins = this.screen.position();
  }

  /** An exit-status mark (D). `late`: its command line's prompt was drawn before it (the hook marks the
   *  status once for each of its slots; only the first after that prompt is late). */
  statusMark(late: boolean): void {
    if (late) this.skipped = this.beforeStatus;
    this.beforeStatus = undefined;
    this.start = this.screen.position();
    const covered = this.start && this.screen.rowUnderCursor();
    this.statusRow = this.start && covered !== undefined ? { at: this.start, text: covered } : undefined;
    this.begins = undefined;
  }

  /** A command line started (C). */
  commandStarted(): void {
    this.skipped = undefined;
    this.beforeStatus = undefined;
  }

  /** A prompt mark that did not count: bash drew the same prompt again, and its line begins there now. */
  redrawn(cursor: Cursor): void {
    this.begins = undefined;
    if (!cursor.alternate) this.promptEnd = { line: cursor.line, x: cursor.x };
  }

  /** A prompt mark that counted; `statusMissing`: its command line had no exit-status mark yet. */
  counted(cursor: Cursor, statusMissing: boolean): void {
    const here = this.screen.position();
    // A start mark counts where it stands before this prompt mark.
    const begins = this.begins && here && atOrBefore(this.begins, here) ? this.begins : undefined;
    this.begins = undefined;
    // The prompt began at its start mark when that stands between the status mark and the prompt mark.
    const status = this.start;
    const start = status && begins && atOrBefore(status, begins) ? promptOpening(status, begins) : status;
    this.start = here && (!start || !samePlace(start, here) || start.line > here.line) ? { ...here, x: 0 } : start;
    this.promptEnd = cursor.alternate ? undefined : { line: cursor.line, x: cursor.x };
    this.skipped = undefined;
    const drawnFrom = begins ?? this.start;
    this.beforeStatus = statusMissing && drawnFrom && this.promptEnd ? { from: drawnFrom, to: this.promptEnd } : undefined;
  }

  /** A write went in: the prompt seen before it no longer ends anything. */
  written(): void {
    this.start = undefined;
    this.statusRow = undefined;
  }

  /** Where the output ends for a prompt reported now, found by a mark or (`kernel`) by bash asleep in its
   *  line editor with no mark; called with everything read parsed. */
  outputEnd(evidence: 'marker' | 'kernel'): OutputEnd | undefined {
    const { screen } = this;
    let start = this.start;
    const cursor = screen.absoluteCursor();
    const drawn = cursor.alternate ? undefined : screen.cursorRowText();
    if (!start && evidence === 'kernel' && drawn !== undefined) {
      // No mark says where the prompt began. A prompt drawn like the last one (a fixed PS1) starts where
      // that text starts, after any output without a final newline; otherwise at the row's start.
      const known = this.lastPrompt;
      start = { line: cursor.line, x: known && drawn.endsWith(known.text) ? Math.max(0, cursor.x - known.columns) : 0 };
    }
    if (start && drawn !== undefined && start.line === cursor.line) {
      const text = screen.cursorRowText(start.x);
      this.lastPrompt = text ? { text, columns: cursor.x - start.x } : undefined;
    }
    if (!start) return undefined;
    const covered = this.statusRow && samePosition(start, this.statusRow.at) ? this.statusRow.text : undefined;
    const skip = this.skipped && atOrBefore(this.skipped.to, start) ? this.skipped : undefined;
    return { ...start, ...(covered !== undefined && { covered }), ...(skip && { skip }) };
  }
}
