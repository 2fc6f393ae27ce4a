/**
 * The 16 ANSI colours of each theme. xterm.js's own palette is made for a dark background: on the light
 * theme its bright green and blue (a bash prompt's colours) read at 1.6:1 and 2.8:1 against white. Each
 * colour here reads at least 4.5:1 (WCAG AA) against its theme's default background.
 */
import type { ITheme } from '@xterm/xterm';

type Palette = Pick<
  ITheme,
  | 'black'
  | 'red'
  | 'green'
  | 'yellow'
  | 'blue'
  | 'magenta'
  | 'cyan'
  | 'white'
  | 'brightBlack'
  | 'brightRed'
  | 'brightGreen'
  | 'brightYellow'
  | 'brightBlue'
  | 'brightMagenta'
  | 'brightCyan'
  | 'brightWhite'
>;

/** Against #ffffff: 4.55:1 (white, bright white) to 14.6:1 (black). */
export const LIGHT_PALETTE: Palette = {
  black: '#24292f',
  red: '#cf222e',
  green: '#116329',
  yellow: '#7d4e00',
  blue: '#0969da',
  magenta: '#8250df',
  cyan: '#1b7c83',
  white: '#6e7781',
  brightBlack: '#57606a',
  brightRed: '#a40e26',
  brightGreen: '#1a7f37',
  brightYellow: '#633c01',
  brightBlue: '#0550ae',
  brightMagenta: '#6639ba',
  brightCyan: '#0e6b75',
  brightWhite: '#6e7781',
};

/** Against #0d1117: 6.2:1 (black, bright black) to 18.9:1 (bright white). */
export const DARK_PALETTE: Palette = {
  black: '#8b949e',
  red: '#ff7b72',
  green: '#3fb950',
  yellow: '#d29922',
  blue: '#58a6ff',
  magenta: '#bc8cff',
  cyan: '#39c5cf',
  white: '#b1bac4',
  brightBlack: '#8b949e',
  brightRed: '#ffa198',
  brightGreen: '#56d364',
  brightYellow: '#e3b341',
  brightBlue: '#79c0ff',
  brightMagenta: '#d2a8ff',
  brightCyan: '#56d4dd',
  brightWhite: '#ffffff',
};
