/**
 * Shell integration: how the engine knows, without guessing, that bash is back at its prompt, that a
 * command line is running, and what the last command's exit status was.
 *
 * The nonce never enters any environment. bash starts with a one-shot PROMPT_COMMAND (the boot code, which
 * holds no secret) that reads the nonce as the first line of input (the host writes it right after spawn;
 * everything bash prints before the first marker is discarded), keeps it in a read-only shell variable that
 * is not exported, and installs the hook. Children inherit neither the nonce nor the hook.
 *
 * Four markers, all OSC 633 with the nonce, all stripped before the screen sees the stream:
 *   D;<nonce>;<status>   from the hook (PROMPT_COMMAND): the command line finished with that status.
 *   A;<nonce>            at the start of PS1: the prompt begins. bash prints its job notices (`[1]+  Done`)
 *                        after PROMPT_COMMAND and before PS1, so what stands between D and A is still
 *                        the command's to report.
 *   B;<nonce>;<number>   at the end of PS1: the prompt is drawn; <number> is bash's command number (\#),
 *                        which only a real prompt advances, so a replay (`printf %s "${PS1@P}"`) repeats a
 *                        number already seen and counts for nothing.
 *   C;<nonce>            from PS0: a command line was read and runs now.
 *
 * The hook survives what users do to their prompt: it sits in two slots of the PROMPT_COMMAND array, so
 * `PROMPT_COMMAND='...'` (which assigns slot 0) keeps slot 1; each run marks the status again, the last
 * one counting; and it puts the A prefix and the B and C suffixes back on a PS1 or PS0 the user replaced
 * (an A the user's own prefix pushed inward is moved back to the front). PS1 and PS0 name the nonce
 * variable (`${__st_n}`), so `echo "$PS1"` shows no secret.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

type MarkerBody = { kind: 'D'; status: number } | { kind: 'A' } | { kind: 'B'; command: number } | { kind: 'C' };
/** A marker and where it stood in the filtered text. */
export type ShellMarker = MarkerBody & { at: number };

/** The visible prompt: the working directory's name, in colour (short, so commands keep the width). */
export const DEFAULT_PS1 = '\\[\\e[1;34m\\]\\W\\[\\e[0m\\]\\$ ';

/** The variables that choose the locale of character handling, strongest first. */
const LOCALE_NAMES = ['LC_ALL', 'LC_CTYPE', 'LANG'] as const;

/** Environment names that look like credentials are not passed to the shell. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

export function scrubEnvironment(base: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || SECRET_NAME.test(name) || name.startsWith('SHARED_TERMINAL_')) continue;
    // Variables of the host's own shell integration would confuse ours.
    if (name === 'PROMPT_COMMAND' || name === 'PS0' || name === 'PS1' || name === 'PS2' || name.startsWith('BASH_FUNC_')) continue;
    env[name] = value;
  }
  return env;
}

/**
 * The hook, once `__st_n` holds the nonce; the caller puts `__st_p` into PROMPT_COMMAND. `__st_e` is a
 * one-element array whose subscript, evaluated when PS1 or PS0 is expanded, has a side effect that prints
 * nothing: it puts the hook back into slot 99 of PROMPT_COMMAND when a user replaced or unset the whole
 * array (`${PROMPT_COMMAND[99]:=__st_p}`, whose value the subscript then reads as the variable `__st_p`, 0,
 * which exists so that `set -u` finds nothing unset). It sits inside each mark's escape sequence, so that
 * with `shopt -u promptvars` (PS1 and PS0 not expanded) its text goes to the terminal as part of an OSC
 * sequence the screen ignores, never shown; those marks then carry no nonce and the kernel's evidence finds
 * the prompt.
 *
 * Every run of the hook prints the exit-status mark, and the last one before the prompt counts. It prints it
 * first and leaves a read-only PS1 or PS0 alone: assigning one (`readonly PS1`) would abort the function,
 * and while a prompt the hook cannot mark is still found from the kernel, only this mark carries the status.
 * It goes to stdout while that is the terminal or a pipe: `exec > >(tee log)` then carries it behind the
 * command's own output, so what the pipe delivers late is still the command's. Where stdout is a file or
 * /dev/null (`exec >log`) it goes to /dev/tty instead: the file would swallow the status and keep the nonce.
 *
 * bash gives each element of PROMPT_COMMAND the command's own `$?`, but not a hook that runs after other code
 * in the same element: `PROMPT_COMMAND="mine;$PROMPT_COMMAND"` (starship, direnv) puts slot 0's copy
 * behind `mine`, whose status it would report. The copy in a slot of its own runs later and says the truth.
 *
 * The user's shell options reach the hook: under `set -x` bash would trace its every line at each prompt,
 * so PROMPT_COMMAND's `__st_p` is an alias that runs the function with its trace (and any complaint) sent
 * to /dev/null; a braced group is not traced itself. Without aliases (`unalias -a`) the function runs as
 * it is, traced. It reads `PS1` and `PS0` as possibly unset.
 */
function hookCode(): string[] {
  return [
    "__st_e=('') __st_p=0",
    "__st_b='\\[\\e]633;B;${__st_n};\\#${__st_e[${PROMPT_COMMAND[99]:=__st_p}]}\\a\\]'",
    "__st_c='\\e]633;C;${__st_n}${__st_e[${PROMPT_COMMAND[99]:=__st_p}]}\\a'",
    "__st_a='\\[\\e]633;A;${__st_n}\\a\\]'",
    "__st_d='\\033]633;D;%s;%s\\007'",
    'builtin readonly __st_n __st_a __st_b __st_c __st_d __st_p',
    '__st_p() { local __st_s=$?; if [[ -t 1 || -p /dev/stdout ]]; then builtin printf "$__st_d" "$__st_n" "$__st_s"; ' +
      'else builtin printf "$__st_d" "$__st_n" "$__st_s" >/dev/tty; fi; ' +
      'if [[ ! -v PS1 || ${PS1@a} != *r* ]]; then ' +
      '[[ ${PS1-} == "$__st_a"* ]] || { PS1=${PS1-}; PS1=$__st_a${PS1//"$__st_a"/}; }; ' +
      '[[ ${PS1-} == *"$__st_b"* ]] || PS1+=$__st_b; fi; ' +
      '[[ -v PS0 && ${PS0@a} == *r* || ${PS0-} == *"$__st_c"* ]] || PS0+=$__st_c; return $__st_s; }',
    "builtin alias __st_p='{ __st_p; } 2>/dev/null'",
  ];
}

/** The boot code, run once as PROMPT_COMMAND: it reads the nonce as the first line of input. */
function bootCode(): string {
  return [
    'builtin export -n PROMPT_COMMAND PS0 PS1 PS2',
    'IFS= builtin read -r __st_n',
    ...hookCode(),
    'PROMPT_COMMAND=(__st_p __st_p)',
    '__st_p',
  ].join('; ');
}

/**
 * The hook again, for a new bash in the same process (`exec bash` dropped the old image and its hook).
 * It is sourced from a private file by a line typed at that bash's prompt: the file removes itself (it
 * holds the nonce), erases the typed line from the screen and, unless the user's HISTCONTROL already
 * leaves space-led lines out, from history. The user's PS1 and PROMPT_COMMAND are kept; the hook joins them.
 */
export function restoreScript(nonce: string): string {
  return [
    'command rm -rf -- "${BASH_SOURCE[0]%/*}"',
    '[[ $HISTCONTROL == *ignorespace* || $HISTCONTROL == *ignoreboth* ]] || builtin history -d -1 2>/dev/null',
    "builtin printf '\\033[1A\\r\\033[2K'",
    `__st_n=${nonce}`,
    ...hookCode(),
    '[[ $(builtin declare -p PROMPT_COMMAND 2>/dev/null) == "declare -a"* ]] || PROMPT_COMMAND=(${PROMPT_COMMAND+"$PROMPT_COMMAND"})',
    'PROMPT_COMMAND+=(__st_p __st_p)',
    '',
  ].join('\n');
}

export interface ShellLaunch {
  nonce: string;
  env: Record<string, string>;
  /** Written to the PTY right after spawn: the nonce line that the boot code reads. */
  bootInput: string;
}

export function prepareShellLaunch(options: {
  baseEnv: NodeJS.ProcessEnv;
  /** The bash that runs: `SHELL` names it, whatever the server's own `SHELL` says. */
  shellPath: string;
  term: string;
  extraEnv?: Record<string, string>;
  ps1?: string;
}): ShellLaunch {
  const nonce = randomBytes(18).toString('base64url');
  const env: Record<string, string> = {
    ...scrubEnvironment(options.baseEnv),
    TERM: options.term,
    COLORTERM: options.term.includes('256color') ? 'truecolor' : '',
    PAGER: 'cat',
    GIT_PAGER: 'cat',
    MANPAGER: 'cat',
    SYSTEMD_PAGER: '',
    SHARED_TERMINAL: '1',
    // screen, tmux, script, vim's :shell and `$SHELL -c` start this; a host's /bin/sh would lose `read -s`.
    SHELL: resolveShell(options.shellPath, options.baseEnv['PATH']),
    ...options.extraEnv,
    PS1: options.ps1 ?? DEFAULT_PS1,
    PS2: '> ',
    PS0: '',
    PROMPT_COMMAND: bootCode(),
  };
  if (env['COLORTERM'] === '') delete env['COLORTERM'];
  // The terminal speaks UTF-8 (the server decodes it so, xterm.js draws it so). In the POSIX locale
  // readline takes the bytes of `é` for Meta keys (M-< recalls the first history line) and `ls` prints
  // `?`: where the environment names no locale at all, a UTF-8 one is set, as VS Code's terminal does.
  if (!LOCALE_NAMES.some((name) => env[name])) env['LANG'] = process.platform === 'darwin' ? 'en_US.UTF-8' : 'C.UTF-8';
  return { nonce, env, bootInput: `${nonce}\r` };
}

/** The absolute path of `shell` as the kernel's exec would find it (a bare name is looked up in PATH). */
export function resolveShell(shell: string, path: string | undefined): string {
  if (shell.includes('/')) return isAbsolute(shell) ? shell : resolve(shell);
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, shell);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: the next directory
    }
  }
  return shell;
}

/** Longest unfinished escape sequence held back at the end of a chunk (longer ones pass through). */
const MAX_HELD_SEQUENCE = 4096;

/**
 * Where an unfinished escape sequence starts at the end of `text` (-1: none). Chunks then end between
 * sequences, so a snapshot taken between two chunks never leaves a view's parser in the middle of one
 * (its rest would otherwise show as text, e.g. `5;10m`).
 */
export function unfinishedSequenceStart(text: string): number {
  const esc = text.lastIndexOf('\x1b');
  if (esc < 0 || text.length - esc > MAX_HELD_SEQUENCE) return -1;
  if (esc === text.length - 1) return esc;
  const kind = text.charCodeAt(esc + 1);
  if (kind === 0x5b) {
    // CSI: parameters and intermediates until a final byte in @..~
    for (let i = esc + 2; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x40 && c <= 0x7e) return -1;
    }
    return esc;
  }
  if (kind === 0x5d || kind === 0x50 || kind === 0x5f || kind === 0x5e || kind === 0x58) {
    // OSC, DCS, APC, PM, SOS: a string until BEL (or ST, whose ESC would be the last one)
    return text.indexOf('\x07', esc + 2) >= 0 ? -1 : esc;
  }
  if (kind >= 0x20 && kind <= 0x2f) {
    // intermediates (e.g. a charset designation) until a final byte
    for (let i = esc + 2; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x30 && c <= 0x7e) return -1;
    }
    return esc;
  }
  return -1;
}

/** `ESC ] 633 ;`: where every marker starts. */
const MARKER_START = '\x1b]633;';
/** The longest marker body after its nonce (`;` + a number of at most 10 digits + BEL). */
const MAX_MARKER_TAIL = 12;
/** The most of a marker's line held back with a marker split across chunks. */
const MAX_HELD_LINE = 4096;

/**
 * Streaming filter: removes this nonce's markers from PTY text and reports where they stood. Markers split
 * across chunks, and any escape sequence unfinished at the end of a chunk, are held back until complete
 * (or until `flush`, which the generation calls once the stream has paused). An OSC 633 sequence with
 * another nonce, or of another shape, passes through as text (the emulator ignores it). Linear in the
 * chunk: each position is looked at a bounded number of times.
 */
export class MarkerFilter {
  private readonly nonce: string;
  private carry = '';

  constructor(nonce: string) {
    this.nonce = nonce;
  }

  push(chunk: string): { text: string; markers: ShellMarker[] } {
    const input = this.carry + chunk;
    this.carry = '';
    const markers: ShellMarker[] = [];
    let text = '';
    let from = 0;
    for (let at = input.indexOf(MARKER_START); at >= 0; at = input.indexOf(MARKER_START, at + 1)) {
      const parsed = this.parseAt(input, at);
      if (parsed === 'partial') {
        // The line the marker ends (the prompt's text) is held with it, so that the two arrive together
        // and the chunk that carries the prompt is known to carry it.
        const lineStart = Math.max(from, input.lastIndexOf('\n', at) + 1, at - MAX_HELD_LINE);
        text += input.slice(from, lineStart);
        this.carry = input.slice(lineStart);
        return { text, markers };
      }
      if (parsed === undefined) continue;
      text += input.slice(from, at);
      markers.push({ ...parsed.marker, at: text.length });
      from = parsed.end;
      at = parsed.end - 1;
    }
    let rest = input.slice(from);
    // Hold back a tail that is an unfinished escape sequence (a marker's start among them).
    const esc = rest.lastIndexOf('\x1b');
    if (esc >= 0 && MARKER_START.startsWith(rest.slice(esc))) {
      // Perhaps a marker's start: its line goes with it, as above.
      const lineStart = Math.max(0, rest.lastIndexOf('\n', esc) + 1, esc - MAX_HELD_LINE);
      this.carry = rest.slice(lineStart);
      rest = rest.slice(0, lineStart);
    } else if (esc >= 0 && unfinishedSequenceStart(rest) === esc) {
      this.carry = rest.slice(esc);
      rest = rest.slice(0, esc);
    }
    return { text: text + rest, markers };
  }

  /** The marker of this nonce that starts at `at`, 'partial' when the text ends before it could be told. */
  private parseAt(input: string, at: number): { marker: MarkerBody; end: number } | 'partial' | undefined {
    const kindAt = at + MARKER_START.length;
    const head = `${input[kindAt] ?? ''};${this.nonce}`;
    const available = input.slice(kindAt, kindAt + head.length);
    if (available.length < head.length)
      return head.startsWith(available) && /^[ABCD]?$/.test(available.slice(0, 1)) ? 'partial' : undefined;
    const kind = input[kindAt];
    if ((kind !== 'A' && kind !== 'B' && kind !== 'C' && kind !== 'D') || available !== head) return undefined;
    const bodyAt = kindAt + head.length;
    // BEL is looked for only where a marker's body can be: the filter stays linear in its input.
    const near = input.slice(bodyAt, bodyAt + MAX_MARKER_TAIL + 1).indexOf('\x07');
    const bell = near < 0 ? -1 : bodyAt + near;
    const window = input.slice(bodyAt, bell < 0 ? bodyAt + MAX_MARKER_TAIL + 1 : bell);
    if (bell < 0) {
      return input.length - bodyAt <= MAX_MARKER_TAIL && /^(;\d*)?$/.test(window) ? 'partial' : undefined;
    }
    const end = bell + 1;
    if (kind === 'A' || kind === 'C') return window === '' ? { marker: { kind }, end } : undefined;
    const match = /^;(\d{1,10})$/.exec(window);
    if (!match) return undefined;
    const value = Number(match[1]);
    if (kind === 'D') return value <= 255 ? { marker: { kind: 'D', status: value }, end } : undefined;
    return { marker: { kind: 'B', command: value }, end };
  }

  /** Whether text is held back (the generation flushes it once the stream pauses). */
  get holding(): boolean {
    return this.carry !== '';
  }

  /** Text held back at the end of the stream. */
  flush(): string {
    const rest = this.carry;
    this.carry = '';
    return rest;
  }
}
