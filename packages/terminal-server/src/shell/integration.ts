/**
 * Shell integration: how the engine knows, without guessing, that bash is back at its prompt and what the
 * last command's exit status was.
 *
 * The nonce never enters any environment. bash starts with a one-shot PROMPT_COMMAND (the boot code, which
 * holds no secret) that un-exports PROMPT_COMMAND/PS1/PS2, reads the nonce as the first line of input (the
 * host writes it right after spawn; the engine discards everything bash prints before the first marker,
 * so the echoed line is never shown), keeps it in a read-only shell variable that is not exported, and
 * installs the real prompt hook. Children therefore inherit neither the nonce nor the hook: a nested bash
 * emits no markers, and `printf`/`cat` of a marker from a child cannot know the nonce.
 *
 * Two markers, both OSC 633 with the nonce and both stripped before the screen sees the stream:
 *   D;<nonce>;<status>   printed by the prompt hook: the command finished with that status.
 *   B;<nonce>            printed at the end of PS1: the prompt has been drawn.
 */
import { randomBytes } from 'node:crypto';

export type ShellMarker = { kind: 'D'; status: number; at: number } | { kind: 'B'; at: number };

/** The visible prompt: user@host:dir$ in colour. */
export const DEFAULT_PS1 = '\\[\\e[1;32m\\]\\u@\\h\\[\\e[0m\\]:\\[\\e[1;34m\\]\\w\\[\\e[0m\\]\\$ ';

/** Environment names that look like credentials are not passed to the shell. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

export function scrubEnvironment(base: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || SECRET_NAME.test(name) || name.startsWith('SHARED_TERMINAL_')) continue;
    // Variables of the host's own shell integration would confuse ours.
    if (name === 'PROMPT_COMMAND' || name === 'PS1' || name === 'PS2' || name.startsWith('BASH_FUNC_')) continue;
    env[name] = value;
  }
  return env;
}

function bootCode(): string {
  return [
    'builtin export -n PROMPT_COMMAND PS1 PS2',
    'IFS= builtin read -r __st_n',
    'builtin readonly __st_n',
    "__st_p() { local __st_s=$?; builtin printf '\\033]633;D;%s;%s\\007' \"$__st_n\" \"$__st_s\"; return $__st_s; }",
    "PS1=\"$PS1\"'\\[\\033]633;B;'\"$__st_n\"'\\007\\]'",
    'PROMPT_COMMAND=__st_p',
    '__st_p',
  ].join('; ');
}

export interface ShellLaunch {
  nonce: string;
  env: Record<string, string>;
  /** Written to the PTY right after spawn: the nonce line that the boot code reads. */
  bootInput: string;
}

export function prepareShellLaunch(options: {
  baseEnv: NodeJS.ProcessEnv;
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
    ...options.extraEnv,
    PS1: options.ps1 ?? DEFAULT_PS1,
    PS2: '> ',
    PROMPT_COMMAND: bootCode(),
  };
  if (env['COLORTERM'] === '') delete env['COLORTERM'];
  return { nonce, env, bootInput: `${nonce}\r` };
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

/**
 * Streaming filter: removes this nonce's markers from PTY text and reports where they stood. Markers split
 * across chunks, and any escape sequence unfinished at the end of a chunk, are held back until complete
 * (or until `flush`, which the generation calls once the stream has paused).
 */
export class MarkerFilter {
  private readonly prefixD: string;
  private readonly prefixB: string;
  private carry = '';

  constructor(nonce: string) {
    this.prefixD = `\x1b]633;D;${nonce};`;
    this.prefixB = `\x1b]633;B;${nonce}\x07`;
  }

  push(chunk: string): { text: string; markers: ShellMarker[] } {
    let input = this.carry + chunk;
    this.carry = '';
    const markers: ShellMarker[] = [];
    let text = '';
    for (;;) {
      const d = input.indexOf(this.prefixD);
      const b = input.indexOf(this.prefixB);
      let next = -1;
      if (d >= 0 && (b < 0 || d < b)) next = d;
      else if (b >= 0) next = b;
      if (next < 0) break;
      text += input.slice(0, next);
      if (next === b) {
        markers.push({ kind: 'B', at: text.length });
        input = input.slice(next + this.prefixB.length);
        continue;
      }
      const rest = input.slice(next + this.prefixD.length);
      const end = rest.indexOf('\x07');
      if (end < 0) {
        if (rest.length > 8) {
          // Not a marker of ours after all (no BEL within a status width): pass it through.
          text += input.slice(0, next + 1);
          input = input.slice(next + 1);
          continue;
        }
        this.carry = input.slice(next);
        input = '';
        break;
      }
      const status = rest.slice(0, end);
      if (/^\d{1,3}$/.test(status) && Number(status) <= 255) {
        markers.push({ kind: 'D', status: Number(status), at: text.length });
      }
      input = rest.slice(end + 1);
    }
    // Hold back a tail that could be the start of a marker, or is an unfinished sequence.
    const esc = input.lastIndexOf('\x1b');
    if (esc >= 0 && this.carry === '') {
      const tail = input.slice(esc);
      if (this.prefixD.startsWith(tail) || this.prefixB.startsWith(tail) || unfinishedSequenceStart(input) === esc) {
        this.carry = tail;
        input = input.slice(0, esc);
      }
    }
    return { text: text + input, markers };
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
