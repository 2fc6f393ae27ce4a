/**
 * The flood screen: while a flood's catch-ups stream, the viewport's cells drawn on one 2D canvas instead
 * of xterm.js's DOM rows, which cost the page far more per screen (figures: bench/REPORT.md, goal 2b).
 * xterm.js 6.0 ships no canvas renderer, and its WebGL one falls back to a software rasterizer without a
 * GPU, so this is our own.
 *
 * xterm.js keeps the parser and buffer (this only reads them), the focused textarea, the selection layer
 * (above the canvas) and the mouse (the canvas lets the pointer through). This draws the theme's colours,
 * bold and italic, underline, strikethrough and overline, wide characters and the cursor; links and
 * decorations wait for the rows, which come back complete when the flood ends.
 *
 * It reaches into xterm.js internals (the render service's pause flag, shared with xterm's visibility
 * observer through RowPause below; the cell size; the theme colours; the cursor's visibility), one reason
 * xterm.js is pinned exactly. `create` returns null where they are not as 6.0 has them, and the element
 * keeps the DOM rows; its browser tests fail first.
 */
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/xterm';

export class FloodScreen {
  /** Whether the canvas is the screen (xterm's row rendering is paused). */
  private active = false;
  /** A draw failed (xterm.js not as expected after all): the rows stay the screen from then on. */
  private failed = false;
  private drawRequest = 0;
  private hideOnRender: { dispose(): void } | null = null;
  private readonly cell: IBufferCell;
  private font = '';
  /** The four faces' CSS font strings for this draw, indexed bold + 2 × italic (made once a draw, not per run). */
  private faces: [string, string, string, string] = ['', '', '', ''];
  /** Where text sits in a cell: the baseline's distance from the cell's top, as CSS lays out a row. */
  private baseline = 0;
  private readonly term: Terminal;
  private readonly internals: Internals;
  private readonly rowPause: RowPause;
  private readonly canvas: HTMLCanvasElement;
  private readonly context: CanvasRenderingContext2D;

  private constructor(term: Terminal, internals: Internals, canvas: HTMLCanvasElement, context: CanvasRenderingContext2D) {
    this.term = term;
    this.internals = internals;
    this.canvas = canvas;
    this.context = context;
    this.cell = term.buffer.active.getNullCell();
    this.rowPause = new RowPause(internals.renderService);
  }

  /** A flood screen for an opened terminal, or null where xterm.js's internals are not as expected. */
  static create(term: Terminal): FloodScreen | null {
    const internals = internalsOf(term);
    const rows = term.element?.querySelector('.xterm-rows');
    if (!internals || !rows) return null;
    const canvas = document.createElement('canvas');
    canvas.className = 'flood-screen';
    canvas.hidden = true;
    canvas.setAttribute('aria-hidden', 'true');
    // Desynchronized: its frames reach the compositor by themselves instead of being copied into the page's
    // frame on the main thread at every commit (bench/REPORT.md, goal 2b, change 8); a flood's screens are a
    // blur that need not wait for the rest of the page. It may tear where drawn to the front buffer.
    const context = canvas.getContext('2d', { alpha: false, desynchronized: true });
    if (!context) return null;
    // After the rows, before the selection layer: a selection stays visible above it.
    rows.after(canvas);
    return new FloodScreen(term, internals, canvas, context);
  }

  /** Whether the canvas is the screen now. */
  get showing(): boolean {
    return this.active;
  }

  /**
   * From now on the canvas is the screen: xterm's rows are no longer built (call before writing a catch-up).
   * xterm's scrollbar is hidden meanwhile (styles.ts): catch-ups carry no history, and each one moved it.
   */
  enter(): void {
    if (this.failed) return;
    this.hideOnRender?.dispose();
    this.hideOnRender = null;
    this.active = true;
    this.rowPause.flood = true;
    this.term.element?.classList.add('flood-screen-active');
  }

  /** Draw the buffer as it is at the next frame (several catch-ups parsed in one frame are drawn once). */
  drawNextFrame(): void {
    if (!this.active || this.drawRequest) return;
    this.drawRequest = requestAnimationFrame(() => {
      this.drawRequest = 0;
      // A renderer disposed since (another shell or size) has left the page with its canvas.
      if (!this.active || !this.canvas.isConnected) return;
      try {
        this.draw();
      } catch {
        // Never a blank or frozen screen: give it back to the rows for good.
        this.failed = true;
        this.leave();
      }
    });
  }

  /** Give the screen back to xterm's rows: they are rebuilt in full, and the canvas goes once they are. */
  leave(): void {
    if (!this.active) return;
    this.active = false;
    this.term.element?.classList.remove('flood-screen-active');
    if (this.drawRequest) cancelAnimationFrame(this.drawRequest);
    this.drawRequest = 0;
    this.rowPause.flood = false;
    this.hideOnRender = this.term.onRender(() => {
      this.hideOnRender?.dispose();
      this.hideOnRender = null;
      if (this.active) return;
      this.canvas.hidden = true;
      // Free its bitmap (a 40×160 screen is ~4 MB, ~16 MB at a device pixel ratio of 2) until the next flood.
      this.canvas.width = 0;
      this.canvas.height = 0;
    });
    this.term.refresh(0, this.term.rows - 1);
  }

  // ------------------------------------------------------------------ drawing

  private draw(): void {
    const { cell: size } = this.internals.renderService.dimensions.css;
    const colors = this.internals.themeService.colors;
    const term = this.term;
    const ctx = this.context;
    const width = term.cols * size.width;
    const height = term.rows * size.height;
    const ratio = window.devicePixelRatio || 1;
    if (this.canvas.width !== Math.round(width * ratio) || this.canvas.height !== Math.round(height * ratio)) {
      this.canvas.width = Math.round(width * ratio);
      this.canvas.height = Math.round(height * ratio);
      this.canvas.style.width = `${width}px`;
      this.canvas.style.height = `${height}px`;
      this.font = '';
    }
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.globalAlpha = 1;
    ctx.fillStyle = colors.background.css;
    ctx.fillRect(0, 0, width, height);
    ctx.textBaseline = 'alphabetic';
    const buffer = term.buffer.active;
    const options = term.options;
    this.faces = facesOf(options);
    this.setFont(false, false);
    const metrics = ctx.measureText('W');
    const advance = metrics.width;
    // A row's line box is one cell high and centres the font's ascent plus descent in it.
    const ascent = metrics.fontBoundingBoxAscent;
    const descent = metrics.fontBoundingBoxDescent;
    this.baseline = Math.round((size.height - (ascent + descent)) / 2 + ascent);
    // The font's advance rarely equals xterm's cell width (rounded to device pixels): spacing makes up the
    // difference, so a run of text stays on the cell grid.
    ctx.letterSpacing = `${size.width - advance}px`;
    const brightBold = options.drawBoldTextInBrightColors !== false;
    for (let y = 0; y < term.rows; y++) {
      const line = buffer.getLine(buffer.viewportY + y);
      if (line) this.drawLine(line, y, size, colors, brightBold);
    }
    this.drawCursor(size, colors);
    this.canvas.hidden = false;
  }

  /** A row as runs of one style: backgrounds first, then text and lines over them. */
  private drawLine(line: IBufferLine, y: number, size: CellSize, colors: ThemeColors, brightBold: boolean): void {
    const cell = this.cell;
    const cols = this.term.cols;
    const top = y * size.height;
    let start = 0;
    let text = '';
    let style: CellStyle | null = null;
    // The run's attributes as xterm stores them: a style (CSS strings) is made only where they change.
    let runFg = -1;
    let runBg = -1;
    let runFlags = -1;
    const flush = (end: number): void => {
      if (style && text) this.drawRun(style, text, start, end, top, size);
      text = '';
    };
    for (let x = 0; x < cols; x++) {
      if (!line.getCell(x, cell)) break;
      const width = cell.getWidth();
      if (width === 0) continue; // the right half of a wide character
      const fg = cell.getFgColorMode() + cell.getFgColor();
      const bg = cell.getBgColorMode() + cell.getBgColor();
      const flags = flagsOf(cell);
      if (width > 1 || !style || fg !== runFg || bg !== runBg || flags !== runFlags) {
        flush(x);
        style = styleOf(cell, colors, brightBold);
        runFg = fg;
        runBg = bg;
        runFlags = flags;
        start = x;
      }
      text += cell.getChars() || ' ';
      if (width > 1) {
        flush(x + width);
        style = null;
      }
    }
    flush(cols);
  }

  private drawRun(style: CellStyle, text: string, from: number, to: number, top: number, size: CellSize): void {
    const ctx = this.context;
    const left = from * size.width;
    const width = (to - from) * size.width;
    if (style.background !== null) {
      ctx.fillStyle = style.background;
      ctx.fillRect(left, top, width, size.height);
    }
    if (style.invisible || (!style.decorated && text.trim() === '')) return;
    ctx.globalAlpha = style.dim ? 0.5 : 1;
    ctx.fillStyle = style.foreground;
    this.setFont(style.bold, style.italic);
    ctx.fillText(text, left, top + this.baseline);
    const line = Math.max(1, Math.round(size.height / 16));
    if (style.underline) ctx.fillRect(left, top + size.height - line * 2, width, line);
    if (style.strikethrough) ctx.fillRect(left, top + Math.round(size.height / 2), width, line);
    if (style.overline) ctx.fillRect(left, top, width, line);
    ctx.globalAlpha = 1;
  }

  private drawCursor(size: CellSize, colors: ThemeColors): void {
    const term = this.term;
    const buffer = term.buffer.active;
    const row = buffer.baseY + buffer.cursorY - buffer.viewportY;
    if (this.internals.coreService.isCursorHidden || row < 0 || row >= term.rows) return;
    const x = Math.min(buffer.cursorX, term.cols - 1);
    const line = buffer.getLine(buffer.viewportY + row);
    const cell = line?.getCell(x, this.cell);
    const cells = Math.max(1, cell?.getWidth() ?? 1);
    const ctx = this.context;
    const left = x * size.width;
    const top = row * size.height;
    const root = term.element?.getRootNode() as Document | ShadowRoot | undefined;
    const focused = !!term.textarea && root?.activeElement === term.textarea;
    ctx.globalAlpha = 1;
    if (!focused) {
      ctx.strokeStyle = colors.cursor.css;
      ctx.lineWidth = 1;
      ctx.strokeRect(left + 0.5, top + 0.5, cells * size.width - 1, size.height - 1);
      return;
    }
    ctx.fillStyle = colors.cursor.css;
    ctx.fillRect(left, top, cells * size.width, size.height);
    const chars = cell?.getChars() ?? '';
    if (chars && chars !== ' ') {
      ctx.fillStyle = colors.cursorAccent.css;
      this.setFont(!!cell?.isBold(), !!cell?.isItalic());
      ctx.fillText(chars, left, top + this.baseline);
    }
  }

  /** Set the canvas font, only when it changes (parsing a font string is not free). */
  private setFont(bold: boolean, italic: boolean): void {
    const font = this.faces[(bold ? 1 : 0) + (italic ? 2 : 0)]!;
    if (font !== this.font) {
      this.context.font = font;
      this.font = font;
    }
  }
}

/** The CSS font strings of the regular, bold, italic and bold italic faces (see FloodScreen.faces). */
function facesOf(options: Terminal['options']): [string, string, string, string] {
  const face = (bold: boolean, italic: boolean) =>
    `${italic ? 'italic ' : ''}${bold ? (options.fontWeightBold ?? 'bold') : (options.fontWeight ?? 'normal')} ${options.fontSize ?? 15}px ${options.fontFamily ?? 'monospace'}`;
  return [face(false, false), face(true, false), face(false, true), face(true, true)];
}

// ---------------------------------------------------------------------- cell styles

interface CssColor {
  css: string;
}
interface ThemeColors {
  foreground: CssColor;
  background: CssColor;
  cursor: CssColor;
  cursorAccent: CssColor;
  ansi: CssColor[];
}
interface CellSize {
  width: number;
  height: number;
}

/** How one cell is drawn: colours as CSS (a null background is the screen's own). */
interface CellStyle {
  foreground: string;
  background: string | null;
  bold: boolean;
  italic: boolean;
  dim: boolean;
  invisible: boolean;
  underline: boolean;
  strikethrough: boolean;
  overline: boolean;
  /** Drawn even when blank (a line through spaces). */
  decorated: boolean;
}

function styleOf(cell: IBufferCell, colors: ThemeColors, brightBold: boolean): CellStyle {
  const bold = !!cell.isBold();
  let foreground = colorOf(cell.isFgDefault(), cell.isFgRGB(), cell.getFgColor(), colors, bold && brightBold) ?? colors.foreground.css;
  let background = colorOf(cell.isBgDefault(), cell.isBgRGB(), cell.getBgColor(), colors, false);
  if (cell.isInverse()) {
    const swapped = background ?? colors.background.css;
    background = foreground;
    foreground = swapped;
  }
  const underline = !!cell.isUnderline();
  const strikethrough = !!cell.isStrikethrough();
  const overline = !!cell.isOverline();
  return {
    foreground,
    background,
    bold,
    italic: !!cell.isItalic(),
    dim: !!cell.isDim(),
    invisible: !!cell.isInvisible(),
    underline,
    strikethrough,
    overline,
    decorated: underline || strikethrough || overline,
  };
}

/** A cell colour as CSS: null for the default, the theme's palette entry, or true colour. */
function colorOf(isDefault: boolean, isRgb: boolean, value: number, colors: ThemeColors, bright: boolean): string | null {
  if (isDefault) return null;
  if (isRgb) return `#${value.toString(16).padStart(6, '0')}`;
  const index = bright && value < 8 ? value + 8 : value;
  return colors.ansi[index]?.css ?? null;
}

/** The attributes that change how a cell is drawn, as bits (inverse included: it swaps the colours). */
function flagsOf(cell: IBufferCell): number {
  return (
    (cell.isBold() ? 1 : 0) |
    (cell.isItalic() ? 2 : 0) |
    (cell.isDim() ? 4 : 0) |
    (cell.isInvisible() ? 8 : 0) |
    (cell.isUnderline() ? 16 : 0) |
    (cell.isStrikethrough() ? 32 : 0) |
    (cell.isOverline() ? 64 : 0) |
    (cell.isInverse() ? 128 : 0)
  );
}

// ---------------------------------------------------------------------- xterm.js 6.0 internals

/**
 * xterm's render service has one pause flag, `_isPaused`, and its own IntersectionObserver writes it
 * (paused while the terminal is off screen). The flood screen pauses the rows too; two writers of one flag
 * undo each other: scrolling the panel into view during a flood would bring the rows back under the
 * canvas. So the flag becomes an accessor on this instance: xterm's writes set the observer's half, the
 * flood screen sets its own, and the rows render only when neither pauses them.
 */
class RowPause {
  private offScreen: boolean;
  private floodPaused = false;

  constructor(renderService: { _isPaused: boolean }) {
    this.offScreen = renderService._isPaused;
    Object.defineProperty(renderService, '_isPaused', {
      configurable: true,
      enumerable: true,
      get: (): boolean => this.offScreen || this.floodPaused,
      set: (paused: boolean) => {
        this.offScreen = paused;
      },
    });
  }

  set flood(paused: boolean) {
    this.floodPaused = paused;
  }
}

interface Internals {
  renderService: { _isPaused: boolean; dimensions: { css: { cell: CellSize } } };
  themeService: { colors: ThemeColors };
  coreService: { isCursorHidden: boolean };
}

function internalsOf(term: Terminal): Internals | null {
  const core = (term as unknown as { _core?: Record<string, unknown> })._core;
  const renderService = core?.['_renderService'] as Partial<Internals['renderService']> | undefined;
  const themeService = core?.['_themeService'] as Partial<Internals['themeService']> | undefined;
  const coreService = core?.['coreService'] as Partial<Internals['coreService']> | undefined;
  const cell = renderService?.dimensions?.css?.cell;
  if (
    typeof renderService?._isPaused !== 'boolean' ||
    typeof cell?.width !== 'number' ||
    !Array.isArray(themeService?.colors?.ansi) ||
    typeof coreService?.isCursorHidden !== 'boolean'
  ) {
    return null;
  }
  return { renderService, themeService, coreService } as Internals;
}
