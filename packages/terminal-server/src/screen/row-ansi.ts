/**
 * One buffer row as text with SGR attributes, for history that has left the emulator's own scrollback.
 * Colours and styles survive; cursor state, modes and charsets do not matter for finished history rows.
 */
import type { IBufferCell, IBufferLine } from '@xterm/headless';

export interface ArchivedRow {
  /** Plain text, trailing blanks removed. */
  text: string;
  /** Text with SGR sequences, or null when the row has only default attributes (then `text` is it). */
  ansi: string | null;
  /** This row continues the previous one (soft wrap). */
  wrapped: boolean;
  /** Cells up to the last visible one (for re-wrapping). */
  cells: number;
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
  if (!inner || !(inner._data instanceof Uint32Array) || typeof inner._combined !== 'object' || inner._data.length < line.length * 3) return undefined;
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

function archiveEmulatorRow(line: IBufferLine, row: EmulatorRow): ArchivedRow {
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
  // One flat string of every cell's characters; the text and the runs between SGR changes are slices of
  // it (no rope of one node per cell, no native buffer per row).
  const codes: number[] = [];
  const runs: { at: number; sgr: string }[] = [];
  let textLength = 0;
  let current = '';
  let lastFg = 0;
  let lastBg = 0;
  for (let x = 0; x < end; x++) {
    const i = x * 3;
    const content = data[i]!;
    if (x === trimmed) textLength = codes.length;
    if (content >>> WIDTH_SHIFT === 0) continue; // second half of a wide character
    const fg = data[i + 1]!;
    const bg = data[i + 2]!;
    if (fg !== lastFg || bg !== lastBg) {
      lastFg = fg;
      lastBg = bg;
      const sgr = sgrOfWords(fg, bg);
      if (sgr !== current) {
        runs.push({ at: codes.length, sgr });
        current = sgr;
      }
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
  }
  if (trimmed >= end) textLength = codes.length;
  let all = '';
  for (let k = 0; k < codes.length; k += 4096) all += String.fromCharCode(...codes.slice(k, k + 4096));
  const text = textLength === all.length ? all : all.slice(0, textLength);
  if (runs.length === 0) return { text, ansi: null, wrapped: line.isWrapped, cells: end };
  const parts: string[] = [];
  if (runs[0]!.at > 0) parts.push(all.slice(0, runs[0]!.at));
  for (let r = 0; r < runs.length; r++) {
    parts.push(`\x1b[0${runs[r]!.sgr}m`);
    const to = r + 1 < runs.length ? runs[r + 1]!.at : all.length;
    if (to > runs[r]!.at) parts.push(all.slice(runs[r]!.at, to));
  }
  if (current !== '') parts.push('\x1b[0m');
  // join gives a flat string; the text is a flat string or a slice of one.
  return { text, ansi: parts.join(''), wrapped: line.isWrapped, cells: end };
}

export function archiveRow(line: IBufferLine, cell: IBufferCell): ArchivedRow {
  const row = emulatorRow(line);
  return row ? archiveEmulatorRow(line, row) : archiveRowByCells(line, cell);
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
  if (plain) return { text, ansi: null, wrapped: line.isWrapped, cells: end };
  if (run) parts.push(run);
  if (current !== '') parts.push('\x1b[0m');
  const ansi = parts.join('');
  return { text, ansi, wrapped: line.isWrapped, cells: end };
}
