/**
 * The line discipline's own limit on a line. While the program in front reads in canonical mode (ICANON:
 * `cat`, `head`, `read`, `input()` without readline), the kernel collects each line in a buffer of
 * N_TTY_BUF_SIZE (4096) bytes, one of them kept for the line's end; the bytes of a longer line past that
 * are dropped as they arrive, yet still echoed, so neither the screen nor the program says so. A model's
 * send that would lose its text that way is refused before anything is typed.
 */
import { utf8Length } from '../utf8.ts';

/** The most bytes of one line a canonical-mode reader gets (N_TTY_BUF_SIZE less the line's end). */
export const CANONICAL_LINE_MAX_BYTES = 4095;

/** The longest line of `input` (between CR or LF), numbered from 1, and its size in bytes. */
function longestLine(input: string): { line: number; bytes: number } {
  let longest = { line: 1, bytes: 0 };
  input.split(/\r\n|\r|\n/).forEach((text, index) => {
    const bytes = utf8Length(text);
    if (bytes > longest.bytes) longest = { line: index + 1, bytes };
  });
  return longest;
}

/** Why `input` cannot be typed into a terminal whose reader may read canonically (`readsCanonically` says
 *  so now), or undefined: the terminal's modes are read only for a text with a line that would not fit. */
export async function refusedLine(input: string, readsCanonically: () => Promise<boolean>): Promise<string | undefined> {
  const overlong = overlongLine(input);
  return overlong !== undefined && (await readsCanonically()) ? overlong : undefined;
}

/** Why `input` cannot be typed to a canonical-mode reader, or undefined when every line fits. */
export function overlongLine(input: string): string | undefined {
  const { line, bytes } = longestLine(input);
  if (bytes <= CANONICAL_LINE_MAX_BYTES) return undefined;
  return `line ${line} of the text is ${bytes} bytes, but the program in front reads the terminal line by line (canonical mode), where the kernel keeps at most ${CANONICAL_LINE_MAX_BYTES} bytes of a line and silently drops the rest; nothing was typed. Split the line, or write the text to a file (a heredoc at the shell prompt keeps long lines) and let the program read the file`;
}
