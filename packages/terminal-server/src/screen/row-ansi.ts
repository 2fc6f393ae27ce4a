/**
 * One buffer row as text with SGR attributes, for history that has left the emulator's own scrollback.
 * Colours and styles survive; cursor state, modes and charsets do not matter for finished history rows.
 *
 * Rows are archived as fast as a flood scrolls them out (and most are evicted again soon after), so the
 * archived form is cheap to make: the row's characters in one string plus its style runs as a short string
 * of (start, style id) pairs into a process-wide table of SGR openings. The styled text is built only
 * when a snapshot sends the row: cheaper than building the SGR text at once (bench/REPORT.md), and fewer
 * bytes a row.
 */
import type { IBufferCell, IBufferLine } from '@xterm/headless';

const RESET = '\x1b[0m';

/** An archived row. `text` and `ansi` are derived on demand from what is kept. */
export class ArchivedRow {
  /** The characters of every cell up to the last one that shows anything (blank cells as spaces). */
  readonly chars: string;
  /** How much of `chars` is the plain text (trailing blank cells left out). */
  readonly textLength: number;
  /** Style runs, two UTF-16 units each: the run's start in `chars` and its id in the style table. */
  private readonly runs: string;
  /** The styled form itself, for a row whose styles the table could not take (or the cell-API path). */
  private readonly styledForm: string | null;
  /** Length of `ansi` (0 when null), known without building it: snapshots budget by it. */
  readonly ansiLength: number;
  /** This row continues the previous one (soft wrap). */
  readonly wrapped: boolean;
  /** Cells up to the last visible one (for re-wrapping). */
  readonly cells: number;

  constructor(parts: {
    chars: string;
    textLength: number;
    runs: string;
    styledForm: string | null;
    ansiLength: number;
    wrapped: boolean;
    cells: number;
  }) {
    this.chars = parts.chars;
    this.textLength = parts.textLength;
    this.runs = parts.runs;
    this.styledForm = parts.styledForm;
    this.ansiLength = parts.ansiLength;
    this.wrapped = parts.wrapped;
    this.cells = parts.cells;
  }

  /** Plain text, trailing blanks removed. */
  get text(): string {
    return this.textLength === this.chars.length ? this.chars : this.chars.slice(0, this.textLength);
  }

  /** Text with SGR sequences, or null when the row has only default attributes (then `text` is it). */
  get ansi(): string | null {
    if (this.styledForm !== null) return this.styledForm;
    const runs = this.runs;
    if (runs === '') return null;
    const parts: string[] = [];
    const first = runs.charCodeAt(0);
    if (first > 0) parts.push(this.chars.slice(0, first));
    for (let r = 0; r < runs.length; r += 2) {
      const at = runs.charCodeAt(r);
      parts.push(openings[runs.charCodeAt(r + 1)]!);
      const to = r + 2 < runs.length ? runs.charCodeAt(r + 2) : this.chars.length;
      if (to > at) parts.push(this.chars.slice(at, to));
    }
    if (runs.charCodeAt(runs.length - 1) !== DEFAULT_STYLE) parts.push(RESET);
    // join gives a flat string.
    return parts.join('');
  }

  /** A row whose styled form is already built. */
  static styled(text: string, ansi: string | null, wrapped: boolean, cells: number): ArchivedRow {
    return new ArchivedRow({
      chars: text,
      textLength: text.length,
      runs: '',
      styledForm: ansi,
      ansiLength: ansi?.length ?? 0,
      wrapped,
      cells,
    });
  }
}

function colour(mode: 'fg' | 'bg', cell: IBufferCell): string {
  const isDefault = mode === 'fg' ? cell.isFgDefault() : cell.isBgDefault();
  if (isDefault) return '';
  const value = mode === 'fg' ? cell.getFgColor() : cell.getBgColor();
  const rgb = mode === 'fg' ? cell.isFgRGB() : cell.isBgRGB();
  const base = mode === 'fg' ? 38 : 48;
  if (rgb) return `;${base};2;${(value >> 16) & 255};${(value >> 8) & 255};${value & 255}`;
  if (value < 8) return `;${(mode === 'fg' ? 30 : 40) + value}`;
  if (value < 16) return `;${(mode === 'fg' ? 90 : 100) + value - 8}`;
  return `;${base};5;${value}`;
}

function sgrOf(cell: IBufferCell): string {
  if (cell.isAttributeDefault()) return '';
  let sgr = '';
  if (cell.isBold()) sgr += ';1';
  if (cell.isDim()) sgr += ';2';
  if (cell.isItalic()) sgr += ';3';
  if (cell.isUnderline()) sgr += ';4';
  if (cell.isBlink()) sgr += ';5';
  if (cell.isInverse()) sgr += ';7';
  if (cell.isInvisible()) sgr += ';8';
  if (cell.isStrikethrough()) sgr += ';9';
  if (cell.isOverline()) sgr += ';53';
  return sgr + colour('fg', cell) + colour('bg', cell);
}

/** A flat copy: strings built cell by cell are ropes that keep one heap node per cell alive. */
function flat(text: string): string {
  return text.length === 0 ? '' : Buffer.from(text, 'utf8').toString('utf8');
}

/**
 * The emulator's own row behind the public view (@xterm/headless 6.0, pinned): three 32-bit words per cell
 * (content, foreground, background). Reading them directly archives a row several times faster than the
 * cell API, which matters because rows are archived while a flood flows. Checked at run time; when the
 * shape is not there the cell API is used.
 */
interface EmulatorRow {
  _data: Uint32Array;
  _combined: Record<number, string | undefined>;
  length: number;
}

function emulatorRow(line: IBufferLine): EmulatorRow | undefined {
  const inner = (line as unknown as { _line?: Partial<EmulatorRow> })._line;
  if (!inner || !(inner._data instanceof Uint32Array) || typeof inner._combined !== 'object' || inner._data.length < line.length * 3)
    return undefined;
  return inner as EmulatorRow;
}

// Word layout of a cell (xterm.js common/buffer/Constants.ts).
const CODEPOINT_MASK = 0x1fffff;
const IS_COMBINED = 0x200000;
const HAS_CONTENT = 0x3fffff;
const WIDTH_SHIFT = 22;
const CM_MASK = 0x3000000;
const CM_RGB = 0x3000000;
const FG_INVERSE = 0x4000000;
const FG_BOLD = 0x8000000;
const FG_UNDERLINE = 0x10000000;
const FG_BLINK = 0x20000000;
const FG_INVISIBLE = 0x40000000;
const FG_STRIKETHROUGH = 0x80000000;
const BG_ITALIC = 0x4000000;
const BG_DIM = 0x8000000;
const BG_OVERLINE = 0x40000000;

function colourOfWord(mode: 'fg' | 'bg', word: number): string {
  const cm = word & CM_MASK;
  if (cm === 0) return '';
  const base = mode === 'fg' ? 38 : 48;
  if (cm === CM_RGB) return `;${base};2;${(word >> 16) & 255};${(word >> 8) & 255};${word & 255}`;
  const value = word & 255;
  if (value < 8) return `;${(mode === 'fg' ? 30 : 40) + value}`;
  if (value < 16) return `;${(mode === 'fg' ? 90 : 100) + value - 8}`;
  return `;${base};5;${value}`;
}

/** The same SGR `sgrOf` gives for a cell with these words. */
function sgrOfWords(fg: number, bg: number): string {
  if (fg === 0 && bg === 0) return '';
  let sgr = '';
  if (fg & FG_BOLD) sgr += ';1';
  if (bg & BG_DIM) sgr += ';2';
  if (bg & BG_ITALIC) sgr += ';3';
  if (fg & FG_UNDERLINE) sgr += ';4';
  if (fg & FG_BLINK) sgr += ';5';
  if (fg & FG_INVERSE) sgr += ';7';
  if (fg & FG_INVISIBLE) sgr += ';8';
  if (fg & FG_STRIKETHROUGH) sgr += ';9';
  if (bg & BG_OVERLINE) sgr += ';53';
  return sgr + colourOfWord('fg', fg) + colourOfWord('bg', bg);
}

/**
 * The style table, shared by every screen in the process: the SGR opening of each distinct style, by id.
 * Id 0 is the default attributes (its opening is the reset). Ids are given per distinct opening, so two
 * attribute words that render alike make one run, as in the cell-API form. Bounded: a stream with more
 * styles than this (24-bit colour per cell) has its further rows archived in their styled form.
 */
const DEFAULT_STYLE = 0;
const MAX_STYLES = 4096;
const openings: string[] = [RESET];
const styleIdByOpening = new Map<string, number>([['', DEFAULT_STYLE]]);
/** Ids by attribute words: background word, then foreground word. */
const styleIdByWords = new Map<number, Map<number, number>>();
const NO_STYLE = -1;

function styleIdOf(fg: number, bg: number): number {
  let byFg = styleIdByWords.get(bg);
  const known = byFg?.get(fg);
  if (known !== undefined) return known;
  const sgr = sgrOfWords(fg, bg);
  let id = styleIdByOpening.get(sgr);
  if (id === undefined) {
    if (openings.length >= MAX_STYLES) return NO_STYLE;
    id = openings.length;
    openings.push(`\x1b[0${sgr}m`);
    styleIdByOpening.set(sgr, id);
  }
  if (!byFg) styleIdByWords.set(bg, (byFg = new Map()));
  byFg.set(fg, id);
  return id;
}

/** Scratch space reused from row to row: one-byte characters, and the general case. */
let latin1 = Buffer.allocUnsafe(512);
const codes: number[] = [];
const runCodes: number[] = [];

/** Returns undefined when the row cannot be kept as runs (the style table is full, or it is too long). */
function archiveEmulatorRow(line: IBufferLine, row: EmulatorRow): ArchivedRow | undefined {
  const data = row._data;
  // The text ends after the last cell with content (what translateToString(true) keeps); the styled form
  // after the last cell that shows anything (a glyph or a background colour).
  let trimmed = line.length;
  while (trimmed > 0 && (data[(trimmed - 1) * 3]! & HAS_CONTENT) === 0) trimmed--;
  let end = line.length;
  while (end > trimmed) {
    const i = (end - 1) * 3;
    if ((data[i + 2]! & CM_MASK) === 0 && (data[i + 1]! & FG_INVERSE) === 0 && data[i]! >>> WIDTH_SHIFT !== 0) end--;
    else break;
  }
  if (latin1.length < end) latin1 = Buffer.allocUnsafe(Math.max(end, latin1.length * 2));
  codes.length = 0;
  runCodes.length = 0;
  // Characters go to `latin1` while they fit one byte (most rows), then to `codes`.
  let length = 0;
  let wide = false;
  let textLength = 0;
  let ansiLength = 0;
  let current = DEFAULT_STYLE;
  let lastFg = 0;
  let lastBg = 0;
  for (let x = 0; x < end; x++) {
    const i = x * 3;
    const content = data[i]!;
    if (x === trimmed) textLength = length;
    if (content >>> WIDTH_SHIFT === 0) continue; // second half of a wide character
    const fg = data[i + 1]!;
    const bg = data[i + 2]!;
    if (fg !== lastFg || bg !== lastBg) {
      lastFg = fg;
      lastBg = bg;
      const id = fg === 0 && bg === 0 ? DEFAULT_STYLE : styleIdOf(fg, bg);
      if (id === NO_STYLE || length > 0xffff) return undefined;
      if (id !== current) {
        runCodes.push(length, id);
        ansiLength += openings[id]!.length;
        current = id;
      }
    }
    if (!wide) {
      const cp = content & (CODEPOINT_MASK | IS_COMBINED);
      if (cp < 256) {
        latin1[length++] = cp === 0 ? 32 : cp;
        continue;
      }
      wide = true;
      for (let k = 0; k < length; k++) codes.push(latin1[k]!);
    }
    if (content & IS_COMBINED) {
      const combined = row._combined[x] ?? ' ';
      for (let k = 0; k < combined.length; k++) codes.push(combined.charCodeAt(k));
    } else {
      const cp = content & CODEPOINT_MASK;
      if (cp === 0) codes.push(32);
      else if (cp > 0xffff) codes.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
      else codes.push(cp);
    }
    length = codes.length;
  }
  if (trimmed >= end) textLength = length;
  const chars = wide ? stringOfCodes(codes) : latin1.toString('latin1', 0, length);
  if (runCodes.length === 0)
    return new ArchivedRow({ chars, textLength, runs: '', styledForm: null, ansiLength: 0, wrapped: line.isWrapped, cells: end });
  if (current !== DEFAULT_STYLE) ansiLength += RESET.length;
  return new ArchivedRow({
    chars,
    textLength,
    runs: stringOfCodes(runCodes),
    styledForm: null,
    ansiLength: ansiLength + length,
    wrapped: line.isWrapped,
    cells: end,
  });
}

/** One flat string of UTF-16 code units (one-byte when they all fit). */
function stringOfCodes(units: number[]): string {
  if (units.length <= 8192) return String.fromCharCode.apply(null, units);
  let out = '';
  for (let k = 0; k < units.length; k += 8192) out += String.fromCharCode.apply(null, units.slice(k, k + 8192));
  return flat(out);
}

export function archiveRow(line: IBufferLine, cell: IBufferCell): ArchivedRow {
  const row = emulatorRow(line);
  return (row && archiveEmulatorRow(line, row)) || archiveRowByCells(line, cell);
}

/** The same through the public cell API (the reference the fast path is tested against). */
export function archiveRowByCells(line: IBufferLine, cell: IBufferCell): ArchivedRow {
  const text = flat(line.translateToString(true));
  // Last cell that shows anything (a glyph or a background colour).
  let end = line.length;
  while (end > 0) {
    const c = line.getCell(end - 1, cell);
    if (!c || (c.getChars() === '' && c.getWidth() !== 0 && c.isBgDefault() && !c.isInverse())) end--;
    else break;
  }
  // Parts joined once: building by += would leave a rope of one node per cell in the heap.
  const parts: string[] = [];
  let plain = true;
  let current = '';
  let run = '';
  for (let x = 0; x < end; x++) {
    const c = line.getCell(x, cell);
    if (!c || c.getWidth() === 0) continue; // second half of a wide character
    const sgr = c.isAttributeDefault() ? '' : sgrOf(c);
    if (sgr !== current) {
      if (run) parts.push(run);
      parts.push(`\x1b[0${sgr}m`);
      run = '';
      current = sgr;
      plain = false;
    }
    run += c.getChars() || ' ';
  }
  if (plain) return ArchivedRow.styled(text, null, line.isWrapped, end);
  if (run) parts.push(run);
  if (current !== '') parts.push('\x1b[0m');
  return ArchivedRow.styled(text, parts.join(''), line.isWrapped, end);
}
