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

export function archiveRow(line: IBufferLine, cell: IBufferCell): ArchivedRow {
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
