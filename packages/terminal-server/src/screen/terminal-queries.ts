/**
 * Answers to the terminal queries that @xterm/headless leaves unanswered but programs wait on. The
 * emulator already answers device attributes, cursor position, modes and DECRQSS; without these, vim
 * waits at exit for its colour queries (OSC 10/11) and a send reports a wait that is not the user's.
 * Answers describe the element's default (light) theme and xterm's palette, as xterm would answer them;
 * each query gets exactly one answer, from the server (browsers never answer). Colour answers end the way
 * their query ended (BEL or ST), as xterm's do: scripts read up to the terminator they sent.
 */
import type { Terminal as HeadlessTerminal } from '@xterm/headless';

/** Colours the answers name (the element's default theme). */
export interface QueryColours {
  foreground: string;
  background: string;
  cursor: string;
}

export const DEFAULT_QUERY_COLOURS: QueryColours = { foreground: '#1f2328', background: '#ffffff', cursor: '#1f2328' };

/** The name XTVERSION reports. */
const TERMINAL_NAME = 'shared-terminal(1)';
/** A nominal cell size in pixels for the window-size reports (the server draws nothing itself). */
const CELL_WIDTH = 8;
const CELL_HEIGHT = 16;

const ST = '\x1b\\';
const BEL = '\x07';

/** `#rrggbb` as X11's `rgb:rrrr/gggg/bbbb`. */
function x11(hex: string): string {
  const channel = (at: number): string => hex.slice(at, at + 2).repeat(2);
  return `rgb:${channel(1)}/${channel(3)}/${channel(5)}`;
}

/** xterm's 256-colour palette entry `index`. */
export function paletteColour(index: number): string {
  const base = [
    '#000000',
    '#cd0000',
    '#00cd00',
    '#cdcd00',
    '#0000ee',
    '#cd00cd',
    '#00cdcd',
    '#e5e5e5',
    '#7f7f7f',
    '#ff0000',
    '#00ff00',
    '#ffff00',
    '#5c5cff',
    '#ff00ff',
    '#00ffff',
    '#ffffff',
  ];
  const hex2 = (n: number): string => n.toString(16).padStart(2, '0');
  if (index < 16) return base[index]!;
  if (index < 232) {
    const steps = [0, 95, 135, 175, 215, 255];
    const n = index - 16;
    return `#${hex2(steps[Math.floor(n / 36)]!)}${hex2(steps[Math.floor(n / 6) % 6]!)}${hex2(steps[n % 6]!)}`;
  }
  const grey = 8 + (index - 232) * 10;
  return `#${hex2(grey)}${hex2(grey)}${hex2(grey)}`;
}

/**
 * The emulator hands an OSC handler its text, not its terminator. An OSC ended by ST is followed at once,
 * in the same parse run, by the escape dispatch of ST's `\`; one ended by BEL is not. Answers wait for
 * that dispatch, or for the end of the parse run (a microtask), and then end the same way.
 */
class OscReplies {
  private pending: string[] = [];
  private scheduled = false;

  private readonly reply: (data: string) => void;

  constructor(reply: (data: string) => void) {
    this.reply = reply;
  }

  add(body: string): void {
    this.pending.push(body);
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush(BEL));
  }

  flush(terminator: string): void {
    this.scheduled = false;
    const bodies = this.pending;
    this.pending = [];
    for (const body of bodies) this.reply(`${body}${terminator}`);
  }

  get waiting(): boolean {
    return this.pending.length > 0;
  }
}

export function answerTerminalQueries(terminal: HeadlessTerminal, reply: (data: string) => void, colours = DEFAULT_QUERY_COLOURS): void {
  const parser = terminal.parser;
  const osc = new OscReplies(reply);
  parser.registerEscHandler({ final: '\\' }, () => {
    if (osc.waiting) osc.flush(ST);
    return false;
  });
  // OSC 10/11/12: a query is `?`; further `;?` ask the next dynamic colours (xterm's rule).
  const dynamic = [colours.foreground, colours.background, colours.cursor];
  for (let first = 10; first <= 12; first++) {
    parser.registerOscHandler(first, (data) => {
      const parts = data.split(';');
      if (!parts.every((p) => p === '?')) return false;
      parts.forEach((_, i) => {
        const colour = dynamic[first - 10 + i];
        if (colour) osc.add(`\x1b]${first + i};${x11(colour)}`);
      });
      return true;
    });
  }
  // OSC 4: pairs of index and `?`.
  parser.registerOscHandler(4, (data) => {
    const parts = data.split(';');
    if (parts.length % 2 !== 0 || !parts.every((p, i) => (i % 2 === 1 ? p === '?' : /^\d{1,3}$/.test(p) && Number(p) < 256))) return false;
    for (let i = 0; i < parts.length; i += 2) osc.add(`\x1b]4;${parts[i]};${x11(paletteColour(Number(parts[i])))}`);
    return true;
  });
  // XTVERSION: CSI > 0 q.
  parser.registerCsiHandler({ prefix: '>', final: 'q' }, (params) => {
    if ((params[0] ?? 0) !== 0) return false;
    reply(`\x1bP>|${TERMINAL_NAME}${ST}`);
    return true;
  });
  // Window reports: 18 t (size in characters), 14 t (text area in pixels), 16 t (cell in pixels).
  parser.registerCsiHandler({ final: 't' }, (params) => {
    const rows = terminal.rows;
    const cols = terminal.cols;
    if (params.length !== 1) return false;
    if (params[0] === 18) reply(`\x1b[8;${rows};${cols}t`);
    else if (params[0] === 14) reply(`\x1b[4;${rows * CELL_HEIGHT};${cols * CELL_WIDTH}t`);
    else if (params[0] === 16) reply(`\x1b[6;${CELL_HEIGHT};${CELL_WIDTH}t`);
    else return false;
    return true;
  });
  // XTGETTCAP: no capability is offered; xterm answers each unknown name with `0 + r`.
  parser.registerDcsHandler({ intermediates: '+', final: 'q' }, (data) => {
    if (!/^[0-9a-fA-F;]*$/.test(data)) return false;
    for (const name of data.split(';').filter(Boolean)) reply(`\x1bP0+r${name}${ST}`);
    return true;
  });
}
