/**
 * The screen: the server's authoritative terminal emulator (@xterm/headless + serialize). It is the only
 * answerer of terminal queries (cursor position, device attributes...): its replies go straight to the
 * PTY, so a program that asks gets exactly one answer, whatever browsers are attached.
 *
 * Memory: the emulator stores 12 bytes per cell, about 1.9 MB per 1,000 rows at 160 columns. Its own history
 * is capped at LIVE_SCROLLBACK rows plus one slice of output; every row older than the newest
 * LIVE_SCROLLBACK is copied into an archive of characters plus style runs (row-ansi.ts; a few bytes per
 * cell, against 12) after each slice, before the emulator can drop it. Once output is quiet, `compact`
 * trims the emulator to LIVE_SCROLLBACK rows. Reads, captures and snapshots see one continuous history of
 * up to `scrollbackLines` rows. Rows the emulator drops are counted through a marker, so output is parsed
 * in slices that cannot scroll past it.
 *
 * Why one file past 500 lines: the emulator, the marker that counts dropped rows and what goes into the
 * archive and when are one history; the archive's own queue of rows is row-archive.ts, their style runs
 * row-ansi.ts, and splitting further would expose the emulator's row numbering between files.
 *
 * The screen is not re-entrant with its own writes: the generation runs every screen operation on one
 * serial chain, so a snapshot or a capture always sees a whole number of ingested chunks.
 */
import serializeModule from '@xterm/addon-serialize';
import unicodeModule from '@xterm/addon-unicode11';
import headless from '@xterm/headless';
import type { IBufferCell, IBufferLine, IBufferNamespace, IMarker, Terminal as HeadlessTerminal } from '@xterm/headless';
import { type ArchivedRow, archiveRow } from './row-ansi.ts';
import { RowArchive, rowBytes } from './row-archive.ts';
import { AlternateRows, alternateOutput, type AlternatePosition } from './alternate-rows.ts';
import { CaptureHandle, type CaptureResult } from './capture.ts';
import { utf8Length, utf8Tail } from '../utf8.ts';
import { answerTerminalQueries } from './terminal-queries.ts';

const { Terminal } = headless;
const { SerializeAddon } = serializeModule;
const { Unicode11Addon } = unicodeModule;

/** History rows kept inside the emulator (the rest is archived). */
export const LIVE_SCROLLBACK = 300;
/** Upper bound of rows one slice can add (newlines plus wrapped rows), so the counting marker survives. */
const SLICE_MAX_ROWS = 800;
/** Text up to this long, handed to an emulator with nothing queued, is parsed at once rather than on the
 *  emulator's next timer turn (about a millisecond, paid by every prompt, echo and short answer). Longer
 *  text, a flood's, keeps the emulator's own pacing, which yields to other terminals between runs. */
export const IMMEDIATE_PARSE_MAX_CHARS = 8192;

export interface ScreenOptions {
  rows: number;
  cols: number;
  scrollbackLines: number;
  scrollbackMaxBytes: number;
}

export interface ScreenSnapshot {
  /** The last ingested chunk this snapshot includes. */
  sequence: number;
  rows: number;
  cols: number;
  /** Serialized ANSI that rebuilds history, viewport, modes and cursor in a fresh emulator. */
  replay: string;
  historyLines: number;
  historyBytes: number;
  /** History was left out (byte cap) or had already been evicted (line cap). */
  truncated: boolean;
}

/** A place on the screen that holds still while output goes on (`Screen.position`): an absolute line of
 *  the normal screen, or, with `alternate`, a row of the alternate screen (alternate-rows.ts). */
export interface ScreenPosition {
  line: number;
  x: number;
  alternate?: { entry: number; epoch: number };
}

/** Where an operation's output ends: where its prompt began. `covered`: that row as the command left it,
 *  when the prompt was drawn over text the command left at or after that place. `skip`: a prompt drawn
 *  inside the output, from its start to its end (the command's last output came after it, through a pipe
 *  that ran late), which is not output. */
export interface OutputEnd extends ScreenPosition {
  covered?: string;
  skip?: { from: ScreenPosition; to: ScreenPosition };
}

export interface Cursor {
  x: number;
  y: number;
}

export interface ScreenPage {
  text: string;
  totalLines: number;
  lineBegin: number;
  lineEnd: number;
}

export class Screen {
  readonly rows: number;
  readonly cols: number;
  private readonly terminal: HeadlessTerminal;
  /** The emulator's buffers (its `buffer` getter checks an option on every call). */
  private readonly buffers: IBufferNamespace;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private readonly options: ScreenOptions;
  private readonly liveScrollback: number;
  private readonly sliceRows: number;
  /** The emulator's own history cap: LIVE_SCROLLBACK plus one slice (see archiveAhead). */
  private readonly emulatorScrollback: number;
  private readonly cell: IBufferCell;
  private cached: { sequence: number; snapshot: ScreenSnapshot } | undefined;
  /** Rows the emulator has dropped from the top of its normal buffer, ever. */
  private trimmed = 0;
  private anchor: { marker: IMarker; row: number } | undefined;
  /** Row numbers on the alternate screen that hold still as it scrolls (alternate-rows.ts). */
  private readonly alternateRows: AlternateRows;
  /** The newest capture: it is told before the cursor first moves up (see capture.ts). */
  private capture: CaptureHandle | undefined;
  /** History rows the emulator no longer needs to hold, by absolute row. */
  private readonly archive = new RowArchive();
  /** History rows were lost (line or byte cap, or a flood that outran the archive). */
  private evicted = false;
  /** Writes handed to the emulator and not yet parsed: at none, its state is everything written so far. */
  private unparsedWrites = 0;
  /** Inside a write's `parsed` callback: the emulator's run is not over, so a write now joins that run. */
  private inParsedCallback = false;

  constructor(options: ScreenOptions, onReply: (data: string) => void) {
    this.options = options;
    this.rows = options.rows;
    this.cols = options.cols;
    this.liveScrollback = Math.min(options.scrollbackLines, LIVE_SCROLLBACK);
    this.sliceRows = Math.max(2, Math.min(SLICE_MAX_ROWS, Math.floor((options.scrollbackLines + options.rows) / 2)));
    this.emulatorScrollback = Math.min(options.scrollbackLines, this.liveScrollback + this.sliceRows);
    this.terminal = new Terminal({
      rows: options.rows,
      cols: options.cols,
      scrollback: this.emulatorScrollback,
      allowProposedApi: true,
      convertEol: false,
      // Programs print what they like (`cat` of a binary): the emulator's parse complaints would flood the
      // server's log, and the screen shows the result either way.
      logLevel: 'off',
      // Size reports are answered by terminal-queries.ts; xterm drops CSI t unless these are allowed.
      windowOptions: { getWinSizeChars: true, getWinSizePixels: true, getCellSizePixels: true },
    });
    this.buffers = this.terminal.buffer;
    this.serializer = new SerializeAddon();
    this.terminal.loadAddon(this.serializer as never);
    this.terminal.loadAddon(new Unicode11Addon() as never);
    this.terminal.unicode.activeVersion = '11';
    // An empty string is the nudge of parseNextWriteNow, not a reply.
    this.terminal.onData((data) => {
      if (data.length > 0) onReply(data);
    });
    this.terminal.onBinary(onReply);
    answerTerminalQueries(this.terminal, onReply);
    this.cell = this.buffers.normal.getNullCell();
    this.alternateRows = new AlternateRows(() => alternateCursorMarker(this.terminal));
    this.buffers.onBufferChange((buffer) => {
      if (buffer.type === 'alternate') this.alternateRows.entered(buffer.cursorY);
      else this.alternateRows.left();
    });
    // Erase-scrollback (CSI 3 J) and full reset (ESC c) drop history: the archive goes with it.
    this.terminal.parser.registerCsiHandler({ final: 'J' }, (params) => {
      if (params[0] === 3) this.archive.clear();
      return false;
    });
    this.terminal.parser.registerEscHandler({ final: 'c' }, () => {
      this.archive.clear();
      return false;
    });
    // What can put the cursor above where it was, or move rows above it: cursor up, previous line,
    // absolute position, row position, scroll margins (they home the cursor), scroll up and down, restore
    // (CSI u, ESC 8, leaving the alternate screen), reverse index, full reset.
    for (const final of 'AFHfdrSTu') {
      this.terminal.parser.registerCsiHandler({ final }, () => {
        this.beforeCursorUp();
        return false;
      });
    }
    for (const final of 'M8c') {
      this.terminal.parser.registerEscHandler({ final }, () => {
        this.beforeCursorUp();
        return false;
      });
    }
    // Leaving the alternate screen (mode 1049) restores the cursor saved on entry, also when the normal
    // screen is already in front (`tput rmcup` twice).
    this.terminal.parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => {
      if (params.some((mode) => mode === 1049 || mode === 1047 || mode === 47)) this.beforeCursorUp();
      return false;
    });
  }

  // ------------------------------------------------------------------ writing

  /**
   * Queue text for parsing; `parsed` runs synchronously right after the emulator parsed it, before any
   * later text. Large text is cut into slices that each scroll at most SLICE_MAX_ROWS rows; the emulator
   * parses queued slices in one run and calls each slice's callback right after that slice, where the
   * rows about to be dropped are archived.
   */
  write(text: string, parsed?: () => void): void {
    // Nothing to parse and nothing queued: the emulator is already where `parsed` is due.
    if (text.length === 0 && this.unparsedWrites === 0) {
      this.runParsed(parsed);
      return;
    }
    if (this.unparsedWrites === 0 && !this.inParsedCallback && text.length <= IMMEDIATE_PARSE_MAX_CHARS) this.parseNextWriteNow();
    const sliceNewlines = this.sliceRows >> 1;
    const limitChars = Math.max(16, Math.floor((sliceNewlines * this.cols) / 2));
    if (text.length <= limitChars && countNewlines(text, 0, text.length, sliceNewlines + 1) <= sliceNewlines) {
      this.emulatorWrite(text, () => {
        this.afterSlice();
        parsed?.();
      });
      return;
    }
    let start = 0;
    while (start < text.length) {
      let end = Math.min(text.length, start + limitChars);
      // Cut after the sliceNewlines-th newline if that comes first.
      let seen = 0;
      let index = start;
      while (seen < sliceNewlines) {
        const next = text.indexOf('\n', index);
        if (next < 0 || next >= end) break;
        seen++;
        index = next + 1;
      }
      if (seen === sliceNewlines) end = index;
      // Never split a surrogate pair.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      const last = end >= text.length;
      this.emulatorWrite(text.slice(start, end), () => {
        this.afterSlice();
        if (last) parsed?.();
      });
      start = end;
    }
  }

  /**
   * Run `task` at the current end of the parse queue: after everything written so far is parsed and
   * before anything written later is, synchronously inside the emulator's run. With nothing waiting to be
   * parsed the emulator is already there: the task runs at once, instead of a timer turn later (the
   * emulator starts each run on a timer, which costs a tool result about a millisecond per boundary).
   */
  atBoundary<T>(task: () => T): Promise<T> {
    return new Promise((resolve, reject) => {
      const run = () => {
        try {
          resolve(task());
        } catch (error) {
          reject(error);
        }
      };
      if (this.unparsedWrites === 0) run();
      else this.emulatorWrite('', run);
    });
  }

  /**
   * Have the emulator parse the next write at once. xterm.js parses the first write after user input
   * synchronously (a browser wants a key's echo in the same frame) and queues other writes for a timer
   * turn, which batches output per frame. This mirror draws no frames, so the turn only delays the marks
   * and verdicts. `input('', true)` is the public way to flag user input: it sends nothing to the program
   * (empty replies are dropped), and its other effect, scrolling a viewport scrolled back to the bottom,
   * never applies here (nothing scrolls this mirror's viewport; history is read from its buffer). The flag
   * holds until a write finds the emulator's queue empty, so it is set only when that is so: outside a
   * parse run (see inParsedCallback), with nothing queued.
   */
  private parseNextWriteNow(): void {
    this.terminal.input('', true);
  }

  /** Hand text to the emulator; `parsed` runs right after it is parsed (see unparsedWrites). */
  private emulatorWrite(text: string, parsed: () => void): void {
    this.unparsedWrites += 1;
    this.terminal.write(text, () => {
      this.unparsedWrites -= 1;
      this.runParsed(parsed);
    });
  }

  private runParsed(parsed: (() => void) | undefined): void {
    const outer = this.inParsedCallback;
    this.inParsedCallback = true;
    try {
      parsed?.();
    } finally {
      this.inParsedCallback = outer;
    }
  }

  /** Count the rows the emulator dropped, and keep the whole history within its caps. */
  private afterSlice(): void {
    const active = this.buffers.active;
    if (active.type === 'alternate') this.alternateRows.afterSlice(active.cursorY);
    const trimmedBefore = this.trimmed;
    if (this.anchor) {
      if (this.anchor.marker.isDisposed) {
        // Output outran the slice bound (e.g. scroll sequences): history continuity is lost.
        this.trimmed = this.anchor.row;
        this.resetArchiveAt(this.trimmed);
      } else this.trimmed = this.anchor.row - this.anchor.marker.line;
    }
    // Rows the emulator dropped on its own are kept when they were archived ahead of the drop; otherwise
    // (a cleared archive, or a history cap smaller than the emulator's) they are gone.
    if (this.trimmed > trimmedBefore) {
      const kept = this.archive.length > 0 && this.archive.start <= trimmedBefore && this.archive.end >= this.trimmed;
      if (!kept) this.evicted = true;
    }
    if (this.archive.unsettled || this.archive.length === 0) this.archive.start = this.trimmed;
    if (this.buffers.active.type === 'normal' && !this.anchorHolds()) {
      this.anchor?.marker.dispose();
      const marker = this.terminal.registerMarker(0);
      this.anchor = marker ? { marker, row: this.trimmed + marker.line } : undefined;
    }
    // A gap between the archive and the emulator means rows were lost (a slice scrolled further than its
    // bound, e.g. scroll sequences).
    if (this.archive.length > 0 && this.archive.end < this.trimmed) this.resetArchiveAt(this.trimmed);
    this.archiveAhead();
    this.evictHistory();
  }

  /**
   * The anchor counts dropped rows while it stays on the screen: rows the emulator drops come from its
   * history, above it, and erasing the history (CSI 3 J) leaves it in place. Once scrolled into the
   * history it is set again at the cursor, before it can be dropped itself.
   */
  private anchorHolds(): boolean {
    return this.anchor !== undefined && !this.anchor.marker.isDisposed && this.anchor.marker.line >= this.buffers.normal.baseY;
  }

  /**
   * Archive every history row but the newest LIVE_SCROLLBACK, while the emulator still holds them; at most
   * `maxRows` of them, returning true while more remain. Called after each slice: the emulator's own
   * history is capped at LIVE_SCROLLBACK plus one slice (`emulatorScrollback`), so the next slice can only
   * push out rows archived here; and once that history is full the emulator recycles the rows it drops
   * instead of allocating a new one per line (during a flood that allocation, and the garbage and allocator
   * growth behind it, cost more than the archiving itself).
   */
  private archiveAhead(maxRows = Infinity): boolean {
    const normal = this.buffers.normal;
    const target = this.trimmed + normal.baseY - this.liveScrollback;
    const from = this.archive.length > 0 ? this.archive.end : this.trimmed;
    if (this.archive.length === 0) this.archive.start = from;
    const to = Math.min(target, from + maxRows);
    for (let row = from; row < to; row++) {
      const line = normal.getLine(row - this.trimmed);
      if (!line) break;
      this.archive.push(archiveRow(line, this.cell));
    }
    return to < target;
  }

  /**
   * Make sure all but LIVE_SCROLLBACK history rows are archived (normally they are already, see
   * archiveAhead), then let the emulator drop them. Called when output has been quiet for a while, so an
   * idle terminal holds its history in a few bytes per row instead of 12 bytes per cell. Archives at most
   * `maxRows` rows per call and returns true while more remain.
   */
  compact(maxRows = Infinity): boolean {
    const excess = this.buffers.normal.baseY - this.liveScrollback;
    if (excess <= 0 || !this.anchor || this.anchor.marker.isDisposed) return false;
    // More to archive: the caller continues in a later turn, so a long history never blocks the loop.
    if (this.archiveAhead(maxRows)) return true;
    this.terminal.options.scrollback = this.liveScrollback;
    this.terminal.options.scrollback = this.emulatorScrollback;
    this.trimmed = this.anchor.row - this.anchor.marker.line;
    this.evictHistory();
    this.cached = undefined;
    return false;
  }

  private evictHistory(): void {
    const historyEnd = this.trimmed + this.buffers.normal.baseY;
    while (this.archive.length > 0) {
      const total = historyEnd - Math.min(this.archive.start, this.trimmed);
      if (total <= this.options.scrollbackLines && this.archive.bytes <= this.options.scrollbackMaxBytes) break;
      this.archive.dropOldest();
      this.evicted = true;
    }
  }

  private resetArchiveAt(row: number): void {
    if (this.archive.length > 0 || row > this.trimmed) this.evicted = true;
    this.archive.resetAt(row);
  }

  // ------------------------------------------------------------------ history view

  /** First absolute row of history (archived or in the emulator). */
  private get historyStart(): number {
    return Math.min(this.archive.start, this.trimmed);
  }

  private get historyEnd(): number {
    return this.trimmed + this.buffers.normal.baseY;
  }

  /** Where column `x` of absolute row `row` falls in that row's text (see placeOfColumn); an archived
   *  row keeps no cells, and its columns are taken as places. */
  private columnIndex(row: number, x: number): number {
    return placeOfColumn(row >= this.trimmed ? this.buffers.normal.getLine(row - this.trimmed) : undefined, x);
  }

  /** Absolute row of the normal screen's cursor, also while a full-screen program shows. */
  private get normalCursorRow(): number {
    const normal = this.buffers.normal;
    return this.trimmed + normal.baseY + normal.cursorY;
  }

  /** Text and wrap flag of absolute row `row` of the normal buffer's history or viewport. */
  private rowAt(row: number): { text: string; wrapped: boolean } | undefined {
    if (row >= this.trimmed) {
      const line = this.buffers.normal.getLine(row - this.trimmed);
      return line ? { text: line.translateToString(true), wrapped: line.isWrapped } : undefined;
    }
    return this.archive.at(row);
  }

  // ------------------------------------------------------------------ reading

  cursor(): Cursor {
    const buffer = this.buffers.active;
    return { x: buffer.cursorX, y: buffer.cursorY };
  }

  /** Cursor position counted from the top of the buffer, so that scrolling does not hide a move. */
  absoluteCursor(): { x: number; line: number; alternate: boolean } {
    const buffer = this.buffers.active;
    return { x: buffer.cursorX, line: this.trimmed + buffer.baseY + buffer.cursorY, alternate: buffer.type === 'alternate' };
  }

  /** The cursor row's text from column `from` to the cursor (trailing spaces kept: a prompt often ends
   *  with one). */
  cursorRowText(from = 0): string {
    const buffer = this.buffers.active;
    return buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(false, from, buffer.cursorX) ?? '';
  }

  /** The cursor's row of the normal screen, whole and without trailing blanks, when text stands at or after
   *  the cursor: what a prompt drawn from there covers (`printf 'done\r'` leaves its text under it). */
  rowUnderCursor(): string | undefined {
    const buffer = this.buffers.active;
    if (buffer.type === 'alternate') return undefined;
    const line = buffer.getLine(buffer.baseY + buffer.cursorY);
    if (!line || line.translateToString(true, buffer.cursorX) === '') return undefined;
    return line.translateToString(true);
  }

  /** True while a full-screen program uses the alternate buffer. */
  get alternate(): boolean {
    return this.buffers.active.type === 'alternate';
  }

  /** Where column `x` of row `y` of the active buffer's viewport falls in its text (see placeOfColumn). */
  private viewportIndex(y: number, x: number): number {
    const buffer = this.buffers.active;
    return placeOfColumn(buffer.getLine(buffer.baseY + y), x);
  }

  /** Row `y` of the active buffer's viewport, trailing blanks dropped, and whether it continues the row above. */
  private viewportRow(y: number): { text: string; wrapped: boolean } | undefined {
    const buffer = this.buffers.active;
    const line = buffer.getLine(buffer.baseY + y);
    return line ? { text: line.translateToString(true), wrapped: line.isWrapped } : undefined;
  }

  /**
   * The viewport's rows. On the alternate screen their trailing spaces go too: full-screen programs paint
   * whole rows (vim's `~` rows, top's lines), and 160 spaces a row would be most of the result.
   */
  viewportLines(): string[] {
    const alternate = this.buffers.active.type === 'alternate';
    const lines: string[] = [];
    for (let y = 0; y < this.rows; y++) {
      const text = this.viewportRow(y)?.text ?? '';
      lines.push(alternate ? text.trimEnd() : text);
    }
    return lines;
  }

  viewportText(): string {
    return this.viewportLines().join('\n');
  }

  /** History rows held inside the emulator itself (beyond LIVE_SCROLLBACK they can be archived). */
  get emulatorHistory(): number {
    return this.buffers.normal.baseY;
  }

  /** History rows (above the viewport) of the normal buffer, archive included. */
  get historyLength(): number {
    return this.historyEnd - this.historyStart;
  }

  /**
   * A page of history counted from the newest end: `offset` lines are skipped, then up to `count` older
   * lines are returned, oldest first, without passing `maxBytes`.
   */
  readPage(offset: number, count: number, maxBytes: number): ScreenPage & { truncated: boolean } {
    const start = this.historyStart;
    const totalLines = this.historyEnd - start;
    const lineEnd = Math.max(0, totalLines - offset);
    let lineBegin = Math.max(0, lineEnd - count);
    const lines: string[] = [];
    let bytes = 0;
    let truncated = false;
    for (let y = lineEnd - 1; y >= lineBegin; y--) {
      const text = this.rowAt(start + y)?.text ?? '';
      bytes += utf8Length(text) + 1;
      if (bytes > maxBytes) {
        lineBegin = y + 1;
        truncated = true;
        break;
      }
      lines.push(text);
    }
    lines.reverse();
    return { text: lines.join('\n'), totalLines, lineBegin, lineEnd, truncated };
  }

  /**
   * The capture starts at the normal screen's cursor even while a full-screen program shows: when that
   * program exits, the normal screen comes back as it was, and what is printed after that is the output.
   */
  beginCapture(lineStart?: ScreenPosition): CaptureHandle {
    const normal = this.buffers.normal;
    const cursorRow = this.normalCursorRow;
    const start = this.sameLine(lineStart, cursorRow) ? { row: lineStart.line, x: lineStart.x } : { row: cursorRow, x: normal.cursorX };
    const startAt = { row: start.row, index: this.columnIndex(start.row, start.x) };
    const rowsAtStart: string[] = [];
    for (let row = start.row; row < this.trimmed + normal.length; row++) rowsAtStart.push(this.rowAt(row)?.text ?? '');
    this.capture = new CaptureHandle(this, startAt, rowsAtStart, this.alternatePosition());
    return this.capture;
  }

  /**
   * The text of the cursor's line from `from` on (its wrapped continuations too, also past the cursor), or
   * undefined unless the cursor is on the normal screen, on `from`'s row or a row continuing it. What a line
   * editor shows after its prompt: its line's text.
   */
  lineTextFrom(from: ScreenPosition | undefined): string | undefined {
    if (!this.sameLine(from, this.normalCursorRow)) return undefined;
    let text = this.rowAt(from.line)!.text.slice(this.columnIndex(from.line, from.x));
    for (let row = from.line + 1; ; row++) {
      const next = this.rowAt(row);
      if (!next?.wrapped) return text;
      text += next.text;
    }
  }

  /** `from` is on the normal screen, on `row` or a row that `row` continues (wrapped, no line break). */
  private sameLine(from: ScreenPosition | undefined, row: number): from is ScreenPosition {
    if (!from || from.alternate || this.buffers.active.type !== 'normal' || from.line > row) return false;
    for (let next = row; next > from.line; next--) if (!this.rowAt(next)?.wrapped) return false;
    return this.rowAt(from.line) !== undefined;
  }

  /**
   * Where the cursor is, as a place that holds still while output goes on: on the normal screen its
   * absolute line; on the alternate one its row of that screen's epoch (alternate-rows.ts), or undefined
   * when that count was lost.
   */
  position(): ScreenPosition | undefined {
    const alternate = this.alternatePosition();
    if (alternate) return { line: alternate.row, x: alternate.x, alternate: { entry: alternate.entry, epoch: alternate.epoch } };
    const cursor = this.absoluteCursor();
    return cursor.alternate ? undefined : { line: cursor.line, x: cursor.x };
  }

  private alternatePosition(): AlternatePosition | undefined {
    const active = this.buffers.active;
    return active.type === 'alternate' ? this.alternateRows.position(active.cursorY, active.cursorX) : undefined;
  }

  /** Before a sequence that may move the cursor up on the normal screen: the newest capture takes the
   *  rows above its start that the cursor can reach, as they read now (see capture.ts). */
  private beforeCursorUp(): void {
    const capture = this.capture;
    if (!capture?.watching || this.buffers.active.type !== 'normal') return;
    capture.takeAbove(this.trimmed + this.buffers.normal.baseY, (row) => this.rowAt(row)?.text ?? '');
  }

  /**
   * While a full-screen program holds the alternate screen: its screen's text, and how many of the
   * capture's normal rows stand above the row it was entered from (what the command printed before it).
   * Undefined on the normal screen.
   */
  fullScreen(capture: CaptureHandle): { lines: string[]; rowsBefore: number } | undefined {
    if (this.buffers.active.type !== 'alternate') return undefined;
    return { lines: trimTrailingEmpty(this.viewportLines()), rowsBefore: Math.max(0, this.normalCursorRow - capture.startRow) };
  }

  /** @internal used by CaptureHandle */
  readCapture(capture: CaptureHandle, position?: OutputEnd): CaptureResult {
    const active = this.buffers.active;
    if (active.type === 'alternate') {
      // A prompt drawn here (a program died on this screen) ends the output where it began; otherwise a
      // full-screen program owns the display, and its current screen is the output.
      const end = position?.alternate && { ...position.alternate, row: position.line, x: position.x };
      const output =
        end &&
        alternateOutput(
          this.alternateRows,
          capture.alternateStart,
          end,
          (row) => this.viewportRow(row),
          (row, x) => this.viewportIndex(row, x),
        );
      if (output) return { lines: trimTrailingEmpty(output.lines), evicted: output.evicted };
      return { lines: trimTrailingEmpty(this.viewportLines()), evicted: false };
    }
    // A place on an alternate screen left since says nothing about this one.
    const end = position?.alternate === undefined ? position : undefined;
    const normal = this.buffers.normal;
    const first = this.historyStart;
    const from = capture.outputStart((row) => (row >= first ? this.rowAt(row)?.text : undefined));
    const endIndex = end && this.columnIndex(end.line, end.x);
    const evicted = from.row < first;
    const start = Math.max(from.row, first);
    const stop = end ? Math.min(end.line + 1, this.trimmed + normal.length) : this.trimmed + normal.length;
    const skip = end?.skip && this.skippedSpan(end.skip, from.row);
    const lines: string[] = [];
    for (let row = start; row < stop; row++) {
      const r = this.rowAt(row);
      if (!r) continue;
      // Text after the end (the prompt itself) is not the operation's output; a row is padded to its
      // width only when the end lies past its text.
      let cut = end && row === end.line ? this.endRowText(capture, end, r.text, endIndex) : r.text;
      let joined = r.wrapped;
      if (skip && row >= skip.from.line && row <= skip.to.line) {
        // What came after the skipped prompt continues the line it began on.
        cut = (row === skip.from.line ? cut.slice(0, skip.fromIndex) : '') + (row === skip.to.line ? cut.slice(skip.toIndex) : '');
        joined ||= row > skip.from.line;
      }
      const text = row === from.row ? cut.slice(from.index) : cut;
      if (joined && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return { lines: trimTrailingEmpty(lines), evicted };
  }

  /** A skipped span of the normal screen with its columns as places in its rows' text; undefined where it
   *  is not below the output's first row (then it is not inside the output). */
  private skippedSpan(span: NonNullable<OutputEnd['skip']>, firstRow: number) {
    const { from, to } = span;
    if (from.alternate || to.alternate || from.line <= firstRow || to.line < from.line) return undefined;
    return { from, to, fromIndex: this.columnIndex(from.line, from.x), toIndex: this.columnIndex(to.line, to.x) };
  }

  /** The row where output ends, up to its end; or, where the prompt was drawn over text the command wrote
   *  past that place (`printf 'done\r'`), as far as the command wrote it. */
  private endRowText(capture: CaptureHandle, end: OutputEnd, text: string, endIndex: number | undefined): string {
    const written = end.covered === undefined ? 0 : capture.writtenExtent(end.line, end.covered);
    return end.covered !== undefined && written > (endIndex ?? 0) ? end.covered.slice(0, written) : text.slice(0, endIndex);
  }

  /**
   * A bounded snapshot: the largest number of whole history rows whose serialized form fits
   * scrollbackMaxBytes, plus the viewport, modes and cursor. `sequence` names the last chunk parsed;
   * the result is cached per sequence. `history: false` leaves all history out (a view catching up with
   * a flood gets the current screen at a fraction of the cost; it is not cached). `maxHistoryLines` keeps
   * the newest rows of history alone (a reconnecting view gets its screen at once, the rest after; not cached).
   */
  snapshot(sequence: number, options: { history?: boolean; maxHistoryLines?: number } = {}): ScreenSnapshot {
    if (options.history === false || options.maxHistoryLines === 0) {
      const replay = this.serializer.serialize({ scrollback: 0 });
      return {
        sequence,
        rows: this.rows,
        cols: this.cols,
        replay,
        historyLines: 0,
        historyBytes: 0,
        truncated: this.historyLength > 0 || this.evicted,
      };
    }
    const limit = options.maxHistoryLines ?? Infinity;
    const limited = limit < this.historyLength;
    if (!limited && this.cached && this.cached.sequence === sequence) return this.cached.snapshot;
    const budget = this.options.scrollbackMaxBytes;
    const emulatorHistory = this.emulatorHistory;
    const live = Math.min(emulatorHistory, limit);
    const base = this.serializer.serialize({ scrollback: 0 });
    const baseBytes = utf8Length(base);
    let liveLines = live;
    let replay = liveLines === 0 ? base : this.serializer.serialize({ scrollback: liveLines });
    let liveBytes = utf8Length(replay) - baseBytes;
    for (let attempt = 0; liveBytes > budget && attempt < 8; attempt++) {
      liveLines = Math.floor(((liveLines * budget) / liveBytes) * 0.97);
      replay = liveLines === 0 ? base : this.serializer.serialize({ scrollback: liveLines });
      liveBytes = utf8Length(replay) - baseBytes;
    }
    if (liveBytes > budget) {
      liveLines = 0;
      replay = base;
      liveBytes = 0;
    }
    // Archived rows, newest first, while they fit what is left of the budget and the line limit. They are
    // older than every emulator row, so only once all of those are in.
    const archivedRows: ArchivedRow[] = [];
    let archivedBytes = 0;
    if (liveLines === emulatorHistory) {
      for (let row = this.trimmed - 1; row >= this.archive.start && liveLines + archivedRows.length < limit; row--) {
        const archived = this.archive.at(row);
        if (!archived) break;
        const bytes = rowBytes(archived) + 2;
        if (liveBytes + archivedBytes + bytes > budget) break;
        archivedBytes += bytes;
        archivedRows.push(archived);
      }
      archivedRows.reverse();
    }
    let prefix = '';
    for (let i = 0; i < archivedRows.length; i++) {
      const row = archivedRows[i]!;
      prefix += row.ansi ?? row.text;
      const next = archivedRows[i + 1];
      // A soft-wrapped continuation follows a full row: pad it so the replica wraps it the same way.
      if (next?.wrapped) prefix += ' '.repeat(Math.max(0, this.cols - row.cells));
      else prefix += '\r\n';
    }
    const historyLines = liveLines + archivedRows.length;
    const snapshot: ScreenSnapshot = {
      sequence,
      rows: this.rows,
      cols: this.cols,
      replay: prefix ? `${prefix}\x1b[0m${replay}` : replay,
      historyLines,
      historyBytes: Math.max(0, liveBytes + archivedBytes),
      truncated: historyLines < this.historyLength || this.evicted,
    };
    if (!limited) this.cached = { sequence, snapshot };
    return snapshot;
  }

  /** Text of the whole normal buffer, archive included; for tests and diagnostics. */
  allText(): string {
    const lines: string[] = [];
    const end = this.trimmed + this.buffers.normal.length;
    for (let row = this.historyStart; row < end; row++) lines.push(this.rowAt(row)?.text ?? '');
    return lines.join('\n');
  }

  dispose(): void {
    this.anchor?.marker.dispose();
    this.terminal.dispose();
    this.archive.resetAt(0);
  }
}

/**
 * Where column `x` of `line` falls in its text. Positions are columns (the cursor's), texts are strings: a
 * wide character (CJK) takes two columns and one place, a character outside the BMP two places, a
 * combining mark no column. Without the emulator's line, columns are taken as places.
 */
function placeOfColumn(line: IBufferLine | undefined, x: number): number {
  return line ? line.translateToString(false, 0, x).length : x;
}

function countNewlines(text: string, start: number, end: number, stopAt: number): number {
  let count = 0;
  let index = text.indexOf('\n', start);
  while (index >= 0 && index < end && count < stopAt) {
    count++;
    index = text.indexOf('\n', index + 1);
  }
  return count;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * A marker on the cursor's row of the alternate buffer. xterm.js's public `registerMarker` sets markers on
 * the normal buffer only, while its alternate buffer moves its own markers as rows scroll off, are
 * inserted or deleted, like the normal one; its `addMarker` is reached through the emulator's core. Without
 * it (another xterm.js inside), positions on that screen are unknown and its whole screen is the output.
 */
function alternateCursorMarker(terminal: HeadlessTerminal): IMarker | undefined {
  type AlternateBuffer = { y: number; ybase: number; addMarker?: (line: number) => IMarker };
  const core = (terminal as unknown as { _core?: { buffers?: { alt?: AlternateBuffer } } })._core;
  const alternate = core?.buffers?.alt;
  return typeof alternate?.addMarker === 'function' ? alternate.addMarker(alternate.ybase + alternate.y) : undefined;
}

function trimTrailingEmpty(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  return lines.slice(0, end);
}

export { utf8Tail };
