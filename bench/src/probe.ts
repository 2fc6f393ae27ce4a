/**
 * In-page instrumentation, identical for the product's page and the baseline's. It wraps `write` on the
 * xterm.js Terminal prototype (the element bundles its own copy, so the prototype is taken from a live
 * renderer) and records, on xterm's own "parsed" callback, when:
 * - an awaited echo character was parsed into the buffer (keystroke echo),
 * - a large write (a snapshot replay) was parsed (the full history after a flood),
 * - the element reported a snapshot on screen (`shared-terminal-screen`, reconnect),
 * - the cursor line became a prompt after an interrupt,
 * - the end of the throughput stream (its closing text line) was parsed,
 * and how many characters each page parsed in all (a view that skips ahead parses fewer). A character is
 * looked for in the text outside escape sequences only (a replay's `ESC c` is not a typed `c`).
 * Keydown and click times come from capture listeners (`event.timeStamp`, same clock as performance.now()).
 */

export interface ProbeState {
  keys: { key: string; t: number }[];
  clicks: { t: number }[];
  expect: string | null;
  echoes: { ch: string; t: number; paint: number }[];
  done: { t: number }[];
  parsedChars: number;
  bigWrites: { length: number; t0: number; t: number; paint: number }[];
  /** For the awaited echo character: when its key left on the socket and when its echo arrived. */
  sent: Record<string, number>;
  arrived: Record<string, number>;
  /** Acks the product's page sent (sequence parsed, when): a page that skips ahead shows a screen at least
   *  as new as an output once it acks that output's sequence (or a later one). */
  acks: { sequence: number; t: number }[];
  /** Large WebSocket messages (snapshots), when they arrived. */
  bigMessages: { length: number; t: number }[];
  /** Every snapshot frame the product's page received, when. */
  snapshots: { length: number; t: number }[];
  /** The sequence of the snapshot frame just received, until its replay is written. */
  snapshotSequence: number | null;
  /** Catch-ups (snapshots written in place after `ESC c`) parsed into xterm's buffer: their sequence, when,
   *  and the next frame after. */
  caughtUp: { sequence: number; t: number; paint: number }[];
  /** The product's element put a snapshot on screen (parsed; the first paint after it). */
  screens: { historyLines: number; truncated: boolean; t: number; paint: number }[];
  prompt: { since: number; t: number | null; paint: number | null };
  terms: number;
}

/** How a typed key's echo was first shown (see `whenShown`); times are relative to the keydown. */
export interface ShownInPage {
  latency: number;
  paint: number;
  glyph: boolean;
  sent: number;
  arrived: number;
  /** The keydown on the wall clock (performance.timeOrigin based), to set against the server's clock. */
  keyWall: number;
}

/** The probe's functions, next to its state on `window.__bench`. */
export interface ProbeFunctions {
  attach(term: ProbedTerminal): void;
  /**
   * Resolves once the echo of `key` is shown: its glyph parsed, or a catch-up (or an ack) at least as new as
   * `sequence` (the server's output event that carried the echo; null: the glyph only), each with its next
   * frame drawn; null after `timeoutMs`. Waits in the page, woken by what the probe records, so the harness
   * asks once per key instead of polling the page (a poll every few milliseconds cost the measured page's
   * main thread, and the machine's 2 cores, work of its own).
   */
  whenShown(key: string, sequence: number | null, timeoutMs: number): Promise<ShownInPage | null>;
}

interface ProbedTerminal {
  write(data: string | Uint8Array, callback?: () => void): void;
  buffer: {
    active: {
      baseY: number;
      cursorY: number;
      cursorX: number;
      getLine(y: number): { translateToString(trim?: boolean): string } | undefined;
    };
  };
  __benchSeen?: boolean;
  /** The end of the previous write: the done line may be split across two chunks. */
  __benchTail?: string;
}

interface ProbeWindow {
  __bench: ProbeState & ProbeFunctions;
}

/** Runs in the page before its scripts (page.addInitScript). */
export function installProbe(): void {
  const w = window as unknown as ProbeWindow;
  const hooked = new WeakSet<object>();
  const state: ProbeState = {
    keys: [],
    clicks: [],
    expect: null,
    echoes: [],
    done: [],
    parsedChars: 0,
    bigWrites: [],
    bigMessages: [],
    snapshots: [],
    snapshotSequence: null,
    caughtUp: [],
    screens: [],
    sent: {},
    arrived: {},
    acks: [],
    prompt: { since: Infinity, t: null, paint: null },
    terms: 0,
  };
  addEventListener('keydown', (event) => state.keys.push({ key: event.key, t: event.timeStamp }), true);
  addEventListener('click', (event) => state.clicks.push({ t: event.timeStamp }), true);
  addEventListener('shared-terminal-screen', (event) => {
    const detail = (event as CustomEvent<{ historyLines: number; truncated: boolean }>).detail;
    const screen = { historyLines: detail.historyLines, truncated: detail.truncated, t: performance.now(), paint: 0 };
    state.screens.push(screen);
    requestAnimationFrame(() => (screen.paint = performance.now()));
  });
  // The product speaks JSON frames (the text is in `data` or `input`); the baseline sends raw text.
  const payload = (text: string, field: string): string => {
    if (!text.startsWith('{')) return text;
    try {
      const value = (JSON.parse(text) as Record<string, unknown>)[field];
      return typeof value === 'string' ? value : '';
    } catch {
      return '';
    }
  };
  // Printable text of a chunk of terminal output: OSC, CSI, charset and other escape sequences removed.
  const visible = (text: string): string =>
    text
      .replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '')
      .replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '')
      .replace(/\x1b[()*+][ -~]/g, '')
      .replace(/\x1b[ -~]/g, '');
  const carries = (text: string, ch: string): boolean => text.includes(ch) && visible(text).includes(ch);
  const DONE_TEXT = 'bench-throughput-done';
  const NativeSocket = WebSocket;
  (window as unknown as { WebSocket: typeof WebSocket }).WebSocket = class extends NativeSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', (event: MessageEvent) => {
        if (typeof event.data !== 'string') return;
        const t = performance.now();
        if (event.data.length > 100_000) state.bigMessages.push({ length: event.data.length, t });
        if (event.data.startsWith('{"v":1,"type":"snapshot"')) {
          state.snapshots.push({ length: event.data.length, t });
          // Only the frame's own key can match: inside the replay string every quote is escaped.
          const sequence = /"sequence":(\d+)/.exec(event.data);
          state.snapshotSequence = sequence ? Number(sequence[1]) : null;
          return; // a snapshot has no `data`: the echo's arrival is an output frame's
        }
        const expected = state.expect;
        if (expected !== null && state.arrived[expected] === undefined && carries(payload(event.data, 'data'), expected))
          state.arrived[expected] = t;
      });
    }
    override send(data: string | ArrayBufferLike | Blob | ArrayBufferView): void {
      if (typeof data === 'string' && data.startsWith('{"v":1,"type":"ack"')) {
        const sequence = (JSON.parse(data) as { sequence: number }).sequence;
        state.acks.push({ sequence, t: performance.now() });
        if (state.acks.length > 5000) state.acks.splice(0, 2500);
        wake();
      }
      const expected = state.expect;
      if (expected !== null && typeof data === 'string' && payload(data, 'input').includes(expected)) {
        state.sent[expected] = performance.now();
        delete state.arrived[expected];
      }
      super.send(data);
    }
  };
  const waiters = new Set<() => void>();
  // Called after every record a waiting `whenShown` may be looking for (a paint, an ack).
  function wake(): void {
    for (const waiter of [...waiters]) waiter();
  }
  const nextPaint = (set: (t: number) => void) =>
    requestAnimationFrame(() => {
      set(performance.now());
      wake();
    });
  /** The first of: the glyph parsed, a catch-up at least as new parsed, an ack at least as new. */
  const shown = (c: string, sequence: number | null): ShownInPage | null => {
    const key = state.keys.filter((k) => k.key === c).at(-1);
    if (!key) return null;
    const echo = state.echoes.at(-1);
    const glyph = echo && echo.ch === c && echo.t >= key.t && echo.paint > 0 ? echo : undefined;
    const newer = (s: { sequence: number; t: number }) => sequence !== null && s.t >= key.t && s.sequence >= sequence;
    const screen = state.caughtUp.find((s) => newer(s) && s.paint > 0);
    const ack = state.acks.find(newer);
    const firsts: { t: number; paint: number; glyph: boolean }[] = [];
    if (glyph) firsts.push({ t: glyph.t, paint: glyph.paint, glyph: true });
    if (screen) firsts.push({ t: screen.t, paint: screen.paint, glyph: false });
    if (ack) firsts.push({ t: ack.t, paint: ack.t, glyph: false });
    if (firsts.length === 0) return null;
    const first = firsts.reduce((a, x) => (x.t < a.t ? x : a));
    return {
      latency: first.t - key.t,
      paint: first.paint - key.t,
      glyph: first.glyph,
      sent: (state.sent[c] ?? NaN) - key.t,
      arrived: (state.arrived[c] ?? NaN) - key.t,
      keyWall: performance.timeOrigin + key.t,
    };
  };
  w.__bench = Object.assign(state, {
    whenShown(c: string, sequence: number | null, timeoutMs: number): Promise<ShownInPage | null> {
      return new Promise<ShownInPage | null>((resolve) => {
        const settle = (result: ShownInPage | null) => {
          clearTimeout(timer);
          waiters.delete(check);
          resolve(result);
        };
        const check = () => {
          const result = shown(c, sequence);
          if (result) settle(result);
        };
        const timer = setTimeout(() => settle(null), timeoutMs);
        waiters.add(check);
        check();
      });
    },
    attach(term: ProbedTerminal) {
      const proto = Object.getPrototypeOf(term) as ProbedTerminal;
      if (hooked.has(proto)) return;
      hooked.add(proto);
      const original = proto.write;
      proto.write = function (this: ProbedTerminal, data: string | Uint8Array, callback?: () => void) {
        if (!this.__benchSeen) {
          this.__benchSeen = true;
          state.terms += 1;
        }
        const text = typeof data === 'string' ? data : '';
        state.parsedChars += text.length;
        const probes: (() => void)[] = [];
        if (((this.__benchTail ?? '') + text.slice(0, DONE_TEXT.length)).includes(DONE_TEXT) || text.includes(DONE_TEXT)) {
          probes.push(() => state.done.push({ t: performance.now() }));
        }
        this.__benchTail = text.slice(-DONE_TEXT.length);
        const expected = state.expect;
        if (expected !== null && carries(text, expected)) {
          state.expect = null;
          probes.push(() => {
            const echo = { ch: expected, t: performance.now(), paint: 0 };
            state.echoes.push(echo);
            nextPaint((t) => (echo.paint = t));
          });
        }
        if (text.startsWith('\x1bc') && state.snapshotSequence !== null) {
          const sequence = state.snapshotSequence;
          state.snapshotSequence = null;
          probes.push(() => {
            const screen = { sequence, t: performance.now(), paint: 0 };
            state.caughtUp.push(screen);
            if (state.caughtUp.length > 5000) state.caughtUp.splice(0, 2500);
            nextPaint((t) => (screen.paint = t));
          });
        }
        if (text.length > 100_000) {
          const t0 = performance.now();
          probes.push(() => {
            const write = { length: text.length, t0, t: performance.now(), paint: 0 };
            state.bigWrites.push(write);
            nextPaint((t) => (write.paint = t));
          });
        }
        if (state.prompt.t === null && performance.now() >= state.prompt.since) {
          probes.push(() => {
            if (state.prompt.t !== null) return;
            const buffer = this.buffer.active;
            const line = buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(true) ?? '';
            if (buffer.cursorX > 0 && /[$#] ?$/.test(line)) {
              state.prompt.t = performance.now();
              nextPaint((t) => (state.prompt.paint = t));
            }
          });
        }
        if (probes.length === 0) return original.call(this, data, callback);
        return original.call(this, data, () => {
          for (const probe of probes) probe();
          callback?.();
        });
      };
    },
  });
}
