/**
 * The screen: the server's authoritative terminal emulator (@xterm/headless + serialize). It is the only
 * answerer of terminal queries (cursor position, device attributes...): its replies go straight to the
 * PTY, so a program that asks gets exactly one answer, whatever browsers are attached.
 *
 * The screen is not re-entrant with its own writes: the generation runs every screen operation on one
 * serial chain, so a snapshot or a capture always sees a whole number of ingested chunks (`sequence`).
 */
import serializeModule from '@xterm/addon-serialize';
import unicodeModule from '@xterm/addon-unicode11';
import headless from '@xterm/headless';
import type { IBufferLine, IMarker, Terminal as HeadlessTerminal } from '@xterm/headless';
import { utf8Length, utf8Tail } from './utf8.ts';

const { Terminal } = headless;
const { SerializeAddon } = serializeModule;
const { Unicode11Addon } = unicodeModule;

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

/** Output of one operation, read back from the screen (so `\r` progress bars are already folded). */
export interface CaptureResult {
  lines: string[];
  /** Lines from the start of the capture were evicted from history. */
  evicted: boolean;
}

export class CaptureHandle {
  private readonly marker: IMarker | undefined;
  private readonly startX: number;
  private readonly screen: Screen;

  constructor(screen: Screen, marker: IMarker | undefined, startX: number) {
    this.screen = screen;
    this.marker = marker;
    this.startX = startX;
  }

  /** Read the capture; the handle stays valid until dispose. */
  read(): CaptureResult {
    return this.screen.readCapture(this.marker, this.startX);
  }

  dispose(): void {
    this.marker?.dispose();
  }
}

export class Screen {
  readonly rows: number;
  readonly cols: number;
  private readonly terminal: HeadlessTerminal;
  private readonly serializer: InstanceType<typeof SerializeAddon>;
  private readonly options: ScreenOptions;
  private cached: ScreenSnapshot | undefined;
  private evicted = false;

  constructor(options: ScreenOptions, onReply: (data: string) => void) {
    this.options = options;
    this.rows = options.rows;
    this.cols = options.cols;
    this.terminal = new Terminal({
      rows: options.rows,
      cols: options.cols,
      scrollback: options.scrollbackLines,
      allowProposedApi: true,
      convertEol: false,
    });
    this.serializer = new SerializeAddon();
    this.terminal.loadAddon(this.serializer as never);
    this.terminal.loadAddon(new Unicode11Addon() as never);
    this.terminal.unicode.activeVersion = '11';
    this.terminal.onData(onReply);
    this.terminal.onBinary(onReply);
    this.terminal.onScroll(() => {
      if (!this.evicted && this.terminal.buffer.normal.length >= this.rows + options.scrollbackLines) this.evicted = true;
    });
  }

  /** Parse text; resolves once parsed. */
  write(text: string): Promise<void> {
    return new Promise((resolve) => this.terminal.write(text, resolve));
  }

  cursor(): Cursor {
    const buffer = this.terminal.buffer.active;
    return { x: buffer.cursorX, y: buffer.cursorY };
  }

  /** Cursor position counted from the top of the buffer, so that scrolling does not hide a move. */
  absoluteCursor(): { x: number; line: number; alternate: boolean } {
    const buffer = this.terminal.buffer.active;
    return { x: buffer.cursorX, line: buffer.baseY + buffer.cursorY, alternate: buffer.type === 'alternate' };
  }

  /** True while a full-screen program uses the alternate buffer. */
  get alternate(): boolean {
    return this.terminal.buffer.active.type === 'alternate';
  }

  viewportLines(): string[] {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.rows; y++) lines.push(buffer.getLine(buffer.baseY + y)?.translateToString(true) ?? '');
    return lines;
  }

  viewportText(): string {
    return this.viewportLines().join('\n');
  }

  /** Text of the cursor row up to the cursor. */
  cursorLinePrefix(): string {
    const buffer = this.terminal.buffer.active;
    const line = buffer.getLine(buffer.baseY + buffer.cursorY);
    return line ? line.translateToString(false, 0, buffer.cursorX) : '';
  }

  /** History lines (above the viewport) of the normal buffer. */
  get historyLength(): number {
    return this.terminal.buffer.normal.baseY;
  }

  /**
   * A page of history counted from the newest end: `offset` lines are skipped, then up to `count` older
   * lines are returned, oldest first, without passing `maxBytes`.
   */
  readPage(offset: number, count: number, maxBytes: number): ScreenPage & { truncated: boolean } {
    const buffer = this.terminal.buffer.normal;
    const totalLines = buffer.baseY;
    const lineEnd = Math.max(0, totalLines - offset);
    let lineBegin = Math.max(0, lineEnd - count);
    const lines: string[] = [];
    let bytes = 0;
    let truncated = false;
    for (let y = lineEnd - 1; y >= lineBegin; y--) {
      const text = buffer.getLine(y)?.translateToString(true) ?? '';
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

  beginCapture(): CaptureHandle {
    const buffer = this.terminal.buffer.active;
    const marker = buffer.type === 'normal' ? this.terminal.registerMarker(0) : undefined;
    return new CaptureHandle(this, marker, buffer.cursorX);
  }

  /** @internal used by CaptureHandle */
  readCapture(marker: IMarker | undefined, startX: number): CaptureResult {
    const active = this.terminal.buffer.active;
    if (active.type === 'alternate') {
      // A full-screen program owns the display: its current screen is the output.
      return { lines: trimTrailingEmpty(this.viewportLines()), evicted: false };
    }
    const buffer = this.terminal.buffer.normal;
    let start = 0;
    let x = 0;
    let evicted = false;
    if (!marker || marker.isDisposed || marker.line < 0) evicted = true;
    else {
      start = marker.line;
      x = startX;
    }
    const lines: string[] = [];
    for (let y = start; y < buffer.length; y++) {
      const line = buffer.getLine(y) as IBufferLine | undefined;
      if (!line) break;
      const text = line.translateToString(true, y === start ? x : 0);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return { lines: trimTrailingEmpty(lines), evicted };
  }

  /**
   * A bounded snapshot: the largest number of whole history lines whose serialized form fits
   * scrollbackMaxBytes, plus the viewport, modes and cursor. `sequence` names the last chunk parsed;
   * the result is cached per sequence.
   */
  snapshot(sequence: number): ScreenSnapshot {
    if (this.cached && this.cached.sequence === sequence) return this.cached;
    const available = Math.min(this.terminal.buffer.normal.baseY, this.options.scrollbackLines);
    const base = this.serializer.serialize({ scrollback: 0 });
    const baseBytes = utf8Length(base);
    let lines = available;
    let replay = lines === 0 ? base : this.serializer.serialize({ scrollback: lines });
    let historyBytes = utf8Length(replay) - baseBytes;
    for (let attempt = 0; historyBytes > this.options.scrollbackMaxBytes && attempt < 8; attempt++) {
      lines = Math.floor((lines * this.options.scrollbackMaxBytes) / historyBytes * 0.97);
      replay = lines === 0 ? base : this.serializer.serialize({ scrollback: lines });
      historyBytes = utf8Length(replay) - baseBytes;
    }
    if (historyBytes > this.options.scrollbackMaxBytes) {
      lines = 0;
      replay = base;
      historyBytes = 0;
    }
    this.cached = {
      sequence,
      rows: this.rows,
      cols: this.cols,
      replay,
      historyLines: lines,
      historyBytes: Math.max(0, historyBytes),
      truncated: lines < this.terminal.buffer.normal.baseY || this.evicted,
    };
    return this.cached;
  }

  /** Text of the whole normal buffer; for tests and diagnostics. */
  allText(): string {
    const buffer = this.terminal.buffer.normal;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  dispose(): void {
    this.terminal.dispose();
  }
}

function trimTrailingEmpty(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  return lines.slice(0, end);
}

export { utf8Tail };
