/**
 * What the terminals print during the bench, identical for the product and the baseline: files written
 * once per run into a temporary directory, and the shell commands that print them.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const THROUGHPUT_BYTES = 20_000_000;
/** History lines printed to fill a 10,000-line scrollback (a little more, so that it is full). */
export const HISTORY_LINES = 10_100;
/** The line that ends the throughput stream; the page's probe looks for it in what the renderer parsed
 *  (the command prints it through a format, so the echoed command line does not contain it). */
export const DONE_TEXT = 'bench-throughput-done';

export interface ContentFiles {
  dir: string;
  /** 20 MB of 256-colour text, lines of at most 150 columns. */
  throughput: string;
  /** 1 MB of coloured digits: no letter but the `m` of SGR, so typed letters are recognisable in a flood. */
  flood: string;
}

function colouredLine(index: number, words: readonly string[]): string {
  let line = '';
  let visible = 0;
  for (let i = 0; visible < 120; i++) {
    const word = words[(index * 7 + i) % words.length]!;
    line += `\x1b[38;5;${(index + i * 11) % 256}m${word}\x1b[0m `;
    visible += word.length + 1;
  }
  return `${line}\n`;
}

function fill(bytes: number, words: readonly string[]): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = colouredLine(i, words);
    parts.push(line);
    size += line.length;
  }
  // Whole lines only: a line cut inside an escape sequence would swallow the first letter of what follows.
  const text = parts.join('');
  return text.slice(0, text.lastIndexOf('\n', bytes - 1) + 1);
}

export function writeContent(): ContentFiles {
  const dir = mkdtempSync(join(tmpdir(), 'shared-terminal-bench-'));
  const throughput = join(dir, 'throughput.txt');
  const flood = join(dir, 'flood.txt');
  writeFileSync(
    throughput,
    fill(THROUGHPUT_BYTES, [
      'lorem',
      'ipsum',
      'dolor',
      'sit',
      'amet',
      'consectetur',
      'adipiscing',
      'elit',
      'sed',
      'do',
      'eiusmod',
      'tempor',
      'incididunt',
      'ut',
      'labore',
      'et',
      'dolore',
      'magna',
      'aliqua',
      'ENIM',
      'AD',
      'MINIM',
      'veniam',
      'quis',
      'nostrud',
      'exercitation',
      '0x7f3a',
      '1234',
      '3.14159',
      'ok',
      'FAIL',
      'warn:',
    ]),
  );
  writeFileSync(flood, fill(1_000_000, ['0123456789', '31415926', '27182818', '161803', '1414213562', '42', '000000', '99999']));
  return { dir, throughput, flood };
}

/** Prints `lines` numbered, coloured history lines of about 100 columns. */
export function historyCommand(lines: number): string {
  return `awk 'BEGIN{for(i=1;i<=${lines};i++) printf "\\033[3%dmline %05d\\033[0m the quick brown fox jumps over the lazy dog \\033[1m%s\\033[0m %d\\n", i%7+1, i, "0123456789abcdefghijklmnopqrstuvwxyz", i*i}'`;
}

/** Prints the throughput file, then the done line. */
export function throughputCommand(files: ContentFiles): string {
  return `cat ${files.throughput}; printf 'bench-%s-done\\n' throughput`;
}

/** A flood that starts after the prompt is back and ends by itself (or when its pid file is used). */
export function backgroundFloodCommand(files: ContentFiles, seconds: number, pidFile: string): string {
  return `(sleep 0.3; exec timeout ${seconds} bash -c 'while :; do cat ${files.flood}; done') & echo $! > ${pidFile}`;
}

/** A flood in the foreground (what a person stops with Interrupt input / Ctrl-C). */
export function foregroundFloodCommand(files: ContentFiles): string {
  return `while :; do cat ${files.flood}; done`;
}

/** The line that ends the drain stream (printed through a format, so the echoed command lacks it). */
export const DRAIN_DONE_TEXT = 'bench-drain-done';

/** The flood file `repeats` times in the foreground, then the done line: what a terminal with no page drains. */
export function drainCommand(files: ContentFiles, repeats: number): string {
  return `for i in $(seq ${repeats}); do cat ${files.flood}; done; printf 'bench-%s-done\\n' drain`;
}
