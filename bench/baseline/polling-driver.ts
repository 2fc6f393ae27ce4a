/**
 * A model of the original plugin's way of knowing a command is done, for the tool round-trip and
 * input-wait comparisons (see ../../shared/reference/behaviour.md §C–D): bash prints an OSC 133;D marker
 * from PROMPT_COMMAND before the prompt `dsh$ `; a prompt counts once the marker arrived AND 50 ms
 * (`pollIntervalMs`) passed with no further output AND the cursor line ends with `dsh$ `. Meanwhile the
 * foreground is inspected every 50 ms (each inspection waits 50 ms after the previous one finished) for
 * a process sleeping in read(2) on the terminal; like the original, a reader counts only when the
 * foreground group is not the shell itself, so bash's own `read` builtin is never seen (the bench shows
 * that with `read x`, and measures the polling cost with a child reader, `head -n 1`).
 *
 * This is our own small driver over node-pty, not the original's code: it reproduces the 50 ms debounce
 * and the 50 ms inspection loop, which is what bounds the original's latency (it measured a median of 71 ms
 * for `true` inside DSH, where more layers add their share).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { spawn, type IPty } from 'node-pty';

const POLL_MS = 50;
const PROMPT = 'dsh$ ';
const MARKER = '\x1b]133;D;bench;';

export type PollingOutcome = 'prompt' | 'stdin_read' | 'timeout';

function procStat(pid: number): { state: string; pgrp: number; tpgid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, pgrp: Number(fields[2]), tpgid: Number(fields[5]) };
  } catch {
    return undefined;
  }
}

/** Whether `pid` sleeps in read(2) on fd 0 (x86_64 syscall 0). */
function sleepsInStdinRead(pid: number): boolean {
  const stat = procStat(pid);
  if (!stat || stat.state !== 'S') return false;
  try {
    const [nr, fd] = readFileSync(`/proc/${pid}/syscall`, 'utf8').trim().split(' ');
    return nr === '0' && (fd === '0x0' || fd === '0');
  } catch {
    return false;
  }
}

function membersOf(pgrp: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat?.pgrp === pgrp) pids.push(Number(entry));
  }
  return pids;
}

export class PollingDriver {
  private pty: IPty;
  private output = '';
  private lastIngest = 0;
  private listeners = new Set<() => void>();
  readonly ready: Promise<void>;

  constructor(options: { cwd: string; rows: number; cols: number }) {
    this.pty = spawn('bash', ['--noprofile', '--norc', '-i'], {
      name: 'xterm-256color',
      cwd: options.cwd,
      rows: options.rows,
      cols: options.cols,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        TERM: 'xterm-256color',
        PS1: PROMPT,
        PROMPT_COMMAND: `printf '\\033]133;D;bench;%s\\007' "$?"`,
      },
    });
    this.pty.onData((data) => {
      this.output += data;
      if (this.output.length > 1_000_000) this.output = this.output.slice(-100_000);
      this.lastIngest = performance.now();
      for (const listener of this.listeners) listener();
    });
    this.ready = this.run('', { timeoutMs: 10_000 }).then(() => undefined);
  }

  get pid(): number {
    return this.pty.pid;
  }

  /** Write `text` + Enter and wait the way the original does; resolves with how it ended. */
  run(text: string, options: { timeoutMs: number }): Promise<PollingOutcome> {
    const from = this.output.length;
    if (text) this.pty.write(`${text}\r`);
    return new Promise<PollingOutcome>((resolve) => {
      let debounce: NodeJS.Timeout | undefined;
      let inspect: NodeJS.Timeout | undefined;
      let finished = false;
      const finish = (outcome: PollingOutcome) => {
        if (finished) return;
        finished = true;
        clearTimeout(debounce);
        clearTimeout(inspect);
        clearTimeout(deadline);
        this.listeners.delete(onData);
        resolve(outcome);
      };
      const checkPrompt = () => {
        if (performance.now() - this.lastIngest < POLL_MS) return arm();
        const tail = this.output.slice(from);
        const lastLine = tail.slice(tail.lastIndexOf('\n') + 1);
        if (tail.includes(MARKER) && lastLine.endsWith(PROMPT)) finish('prompt');
      };
      const arm = () => {
        clearTimeout(debounce);
        debounce = setTimeout(checkPrompt, POLL_MS);
      };
      const onData = () => {
        if (this.output.slice(from).includes(MARKER)) arm();
      };
      const poll = () => {
        const shell = procStat(this.pty.pid);
        if (shell && shell.tpgid > 0) {
          if (shell.tpgid !== this.pty.pid && membersOf(shell.tpgid).some(sleepsInStdinRead)) return finish('stdin_read');
        }
        if (!finished) inspect = setTimeout(poll, POLL_MS);
      };
      const deadline = setTimeout(() => finish('timeout'), options.timeoutMs);
      this.listeners.add(onData);
      onData();
      if (text) inspect = setTimeout(poll, 0);
    });
  }

  kill(): Promise<void> {
    return new Promise((resolve) => {
      this.pty.onExit(() => resolve());
      this.pty.kill('SIGHUP');
    });
  }
}
