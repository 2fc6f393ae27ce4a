/**
 * The renderer stack: owns which xterm.js renderer is on screen and how snapshots and output reach it.
 * Another shell or size gets a fresh renderer; a snapshot with history for the screen shown is parsed in a
 * hidden renderer and swapped in (the shown one keeps its keys meanwhile); a catch-up (a screen without
 * history) is written in place, drawn on the flood canvas (flood-screen.ts) while flood-policy.ts says so.
 * Acks go out when what was written is parsed (a catch-up's when it is drawn). The element supplies the
 * renderers (options, addons, handlers) and hears when a screen is shown.
 */
import type { Terminal } from '@xterm/xterm';
import type { OutputFrame, SnapshotFrame } from '@shared-terminal/server/protocol';
import { FloodScreen } from './flood-screen.ts';
import { FloodPolicy, type Clock } from './flood-policy.ts';

/**
 * empty: no renderer. shown: `term` is on screen. staging: `staged` parses a snapshot with history off
 * screen and replaces `term` once parsed.
 */
export type StackState =
  | { kind: 'empty' }
  | { kind: 'shown'; term: Terminal; generation: number }
  | { kind: 'staging'; term: Terminal; generation: number; staged: Terminal };

/** Where acks go: the connection of the moment, captured when a write starts. */
export interface AckTarget {
  parsed(sequence: number, chars: number): void;
}

export interface RendererStackHost {
  /** The element renderers are put in, or null before the first render. */
  container(): HTMLElement | null;
  /** The focused element of the host's shadow root (focus moves with a swapped renderer). */
  activeElement(): Element | null;
  /** A renderer at the snapshot's size, opened in `wrapper`. */
  createTerminal(frame: SnapshotFrame, wrapper: HTMLElement): Terminal;
  ackTarget(): AckTarget | null;
  /** Whether a screen reader reads the rows (then no flood canvas: its rows are what it reads). */
  screenReader(): boolean;
  /** A snapshot is parsed and on screen. */
  shown(frame: SnapshotFrame, term: Terminal, how: 'fresh' | 'swapped' | 'in-place'): void;
  /** The shown renderer changed (or went). */
  changed(): void;
}

const browserClock: Clock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Run `task` once the next frame is drawn (after its rendering callbacks, style, layout and paint). */
function afterNextFrame(task: () => void): void {
  requestAnimationFrame(() => setTimeout(task, 0));
}

export class RendererStack {
  private readonly host: RendererStackHost;
  private readonly flood: FloodPolicy;
  private current: StackState = { kind: 'empty' };
  /** Each renderer's canvas screen for floods, made at its first catch-up (null: not available). */
  private readonly floodScreens = new WeakMap<Terminal, FloodScreen | null>();

  constructor(host: RendererStackHost, clock: Clock = browserClock) {
    this.host = host;
    this.flood = new FloodPolicy(clock);
  }

  get state(): StackState {
    return this.current;
  }
  /** The renderer on screen, or null. */
  get term(): Terminal | null {
    return this.current.kind === 'empty' ? null : this.current.term;
  }
  get generation(): number | null {
    return this.current.kind === 'empty' ? null : this.current.generation;
  }
  /** The shown renderer and the staged one (it replaces the shown one in a moment and must look the same). */
  get renderers(): Terminal[] {
    if (this.current.kind === 'empty') return [];
    return this.current.kind === 'staging' ? [this.current.term, this.current.staged] : [this.current.term];
  }

  snapshot(frame: SnapshotFrame): void {
    const container = this.host.container();
    if (!container) return;
    this.dropStaged();
    if (this.sameScreen(frame)) {
      if (frame.historyLines === 0) this.applyInPlace(frame);
      else this.stage(frame, container);
      return;
    }
    const shown = this.term;
    const active = this.host.activeElement();
    const hadFocus = !!shown && !!active && container.contains(active);
    this.dispose();
    // Another shell or size: a fresh renderer (writes queued on the old one must never land on the new screen).
    const term = this.open(frame, container, false);
    this.current = { kind: 'shown', term, generation: frame.generation };
    this.host.changed();
    const acks = this.host.ackTarget();
    term.write(frame.replay, () => {
      if (term !== this.term) return;
      acks?.parsed(frame.sequence, 0);
      this.host.shown(frame, term, 'fresh');
    });
    if (hadFocus) term.focus();
  }

  output(frame: OutputFrame): void {
    const state = this.current;
    if (state.kind === 'empty') return;
    // Output after a staged snapshot belongs to the staged renderer (the shown one is as of that snapshot).
    const term = state.kind === 'staging' ? state.staged : state.term;
    // While a flood goes on the canvas stays the screen and draws this output too (flood-policy.ts).
    const flood = term === state.term ? this.floodScreens.get(term) : undefined;
    const onCanvas = this.flood.outputOnCanvas(!!flood?.showing);
    if (onCanvas) this.flood.leaveWhenQuiet(() => this.leaveFloodScreen());
    else if (term === state.term) this.leaveFloodScreen();
    const acks = this.host.ackTarget();
    term.write(frame.data, () => {
      if (onCanvas) flood?.drawNextFrame();
      if (this.renderers.includes(term)) acks?.parsed(frame.sequence, frame.data.length);
    });
  }

  /** Back to xterm's DOM rows (output streams again, or the look changed). */
  leaveFloodScreen(): void {
    const term = this.term;
    if (term) this.floodScreens.get(term)?.leave();
  }

  /** No renderer any more (another connector, or the terminal was disposed). */
  dispose(): void {
    this.flood.cancel();
    this.dropStaged();
    this.term?.dispose();
    this.current = { kind: 'empty' };
    this.host.container()?.replaceChildren();
    this.host.changed();
  }

  /** A snapshot of the shown shell at the shown size (the same scrollback too). */
  private sameScreen(frame: SnapshotFrame): boolean {
    const term = this.term;
    return (
      !!term &&
      this.generation === frame.generation &&
      term.rows === frame.rows &&
      term.cols === frame.cols &&
      term.options.scrollback === frame.scrollbackLines
    );
  }

  /** A renderer at the snapshot's size in a wrapper of its own (hidden while staged). */
  private open(frame: SnapshotFrame, container: HTMLElement, staged: boolean): Terminal {
    const wrapper = document.createElement('div');
    wrapper.className = staged ? 'renderer staged' : 'renderer';
    container.append(wrapper);
    return this.host.createTerminal(frame, wrapper);
  }

  /**
   * A catch-up: rebuild the screen in the current renderer. The full reset is written in order, so writes
   * queued before it land before it and never after. A method of its own on purpose: a closure over the old
   * renderer in snapshot() would share its scope with the new renderer's handlers and keep the old one alive.
   *
   * Acked once drawn, not once parsed: in a flood the server takes the next screen when this ack arrives,
   * and a screen taken while the page is still drawing waits in its queue and is older when shown; keys
   * typed meanwhile also get the page between frames. (A hidden page draws nothing, so it acks when shown.)
   */
  private applyInPlace(frame: SnapshotFrame): void {
    const term = this.term;
    if (!term) return;
    const acks = this.host.ackTarget();
    const flood = this.floodScreenOf(term);
    flood?.enter();
    this.flood.catchUp();
    term.write(`\x1bc${frame.replay}`, () => {
      if (term !== this.term) return;
      flood?.drawNextFrame();
      afterNextFrame(() => {
        if (term !== this.term) return;
        acks?.parsed(frame.sequence, 0);
        this.host.shown(frame, term, 'in-place');
      });
    });
  }

  /** The canvas screen that shows catch-ups, or null: not with a screen reader, nor where xterm.js is not the version it was made for. */
  private floodScreenOf(term: Terminal): FloodScreen | null {
    if (this.host.screenReader()) return null;
    if (!this.floodScreens.has(term)) this.floodScreens.set(term, FloodScreen.create(term));
    return this.floodScreens.get(term) ?? null;
  }

  /**
   * A snapshot with history for the screen already shown (the full history after a reconnect's first
   * screen, or after catching up with a flood): parsing thousands of rows takes the page a few hundred
   * milliseconds, so it is parsed in a hidden renderer while the current one stays on screen and takes
   * keys, and swapped in once parsed. The server sends nothing newer until this snapshot is acked, so the
   * screen shown meanwhile is the snapshot's own.
   */
  private stage(frame: SnapshotFrame, container: HTMLElement): void {
    const shown = this.current;
    if (shown.kind === 'empty') return;
    const staged = this.open(frame, container, true);
    this.current = { kind: 'staging', term: shown.term, generation: shown.generation, staged };
    const acks = this.host.ackTarget();
    staged.write(frame.replay, () => {
      if (this.current.kind !== 'staging' || this.current.staged !== staged) return;
      this.swapInStaged();
      acks?.parsed(frame.sequence, 0);
      this.host.shown(frame, staged, 'swapped');
    });
  }

  /** Put the parsed staged renderer on screen in place of the current one, at the same distance from the
   *  bottom if the person had scrolled up, with the focus it had. */
  private swapInStaged(): void {
    const state = this.current;
    if (state.kind !== 'staging') return;
    const { term: previous, staged: next } = state;
    const previousWrapper = previous.element?.parentElement ?? null;
    const active = this.host.activeElement();
    const hadFocus = !!previousWrapper && !!active && previousWrapper.contains(active);
    const fromBottom = previous.buffer.active.baseY - previous.buffer.active.viewportY;
    next.element?.parentElement?.classList.remove('staged');
    if (fromBottom > 0) next.scrollToLine(Math.max(0, next.buffer.active.baseY - fromBottom));
    this.current = { kind: 'shown', term: next, generation: state.generation };
    previous.dispose();
    previousWrapper?.remove();
    if (hadFocus) next.focus();
    this.host.changed();
  }

  /** A staged renderer that will not be shown (another snapshot replaced it, or the renderer went). */
  private dropStaged(): void {
    const state = this.current;
    if (state.kind !== 'staging') return;
    this.current = { kind: 'shown', term: state.term, generation: state.generation };
    const wrapper = state.staged.element?.parentElement;
    state.staged.dispose();
    wrapper?.remove();
  }
}
