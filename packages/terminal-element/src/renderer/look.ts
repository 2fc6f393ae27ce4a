/**
 * How the renderers look, read from the element: the font size within its limits, xterm.js's colours from
 * the element's CSS custom properties (xterm takes colours from script, not CSS), and the largest font
 * size at which every column fits the panel. None of it touches the PTY's rows and columns.
 */
import type { ITheme } from '@xterm/xterm';
import { DARK_PALETTE, LIGHT_PALETTE } from '../palette.ts';

/** Font size limits in CSS pixels (the `font-size` attribute). */
export const MIN_FONT_SIZE = 8;
export const MAX_FONT_SIZE = 32;
export const DEFAULT_FONT_SIZE = 13;

export function clampFontSize(size: number): number {
  const whole = Number.isFinite(size) ? Math.round(size) : DEFAULT_FONT_SIZE;
  return Math.min(MAX_FONT_SIZE, Math.max(MIN_FONT_SIZE, whole));
}

export function cssValue(element: Element, name: string): string {
  return getComputedStyle(element).getPropertyValue(name).trim();
}

/** Whether the dark colours are in force (theme="dark", or "auto" on a dark page; see styles.ts). */
export function isDark(element: Element): boolean {
  return getComputedStyle(element).colorScheme === 'dark';
}

export function xtermTheme(element: Element): ITheme {
  return {
    ...(isDark(element) ? DARK_PALETTE : LIGHT_PALETTE),
    background: cssValue(element, '--st-bg') || undefined,
    foreground: cssValue(element, '--st-fg') || undefined,
    cursor: cssValue(element, '--st-cursor') || undefined,
    cursorAccent: cssValue(element, '--st-bg') || undefined,
    selectionBackground: cssValue(element, '--st-selection') || undefined,
  } as ITheme;
}

/**
 * The largest font size (within the limits) at which every column fits `viewport`'s width, so a wide line
 * (the model's long command) reads without scrolling sideways. Width grows with the font size, so one
 * estimate is made from the current size and then checked against the laid-out screen: `apply` sets a
 * size and resolves once it is laid out; `screenWidth` measures the screen as it is now.
 */
export async function fitFontSize(
  viewport: HTMLElement,
  screenWidth: () => number,
  current: number,
  apply: (size: number) => Promise<void>,
): Promise<void> {
  const style = getComputedStyle(viewport);
  const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
  const available = (): number => viewport.clientWidth - padding;
  let size = Math.min(MAX_FONT_SIZE, Math.max(MIN_FONT_SIZE, Math.floor((current * available()) / screenWidth())));
  for (let tries = 0; tries < 4; tries++) {
    await apply(size);
    if (screenWidth() <= available() || size <= MIN_FONT_SIZE) break;
    size -= 1;
  }
}
