// The renderer stack's transitions with real xterm.js renderers: for each sequence of snapshots, the state
// it ends in, how each screen was shown, and which renderers it kept.
import { Terminal } from '@xterm/xterm';
import { PROTOCOL_VERSION, type SnapshotFrame } from '@shared-terminal/server/protocol';
import { RendererStack } from '../../src/renderer/renderer-stack.ts';
import { deepEqual, equal, ok, until } from '../helpers/assert.ts';

afterEach(() => {
  document.body.replaceChildren();
});

let sequence = 0;
function snapshot(generation: number, rows: number, historyLines: number): SnapshotFrame {
  sequence += 1;
  const history = Array.from({ length: historyLines }, (_, i) => `old ${i}\r\n`).join('');
  return {
    v: PROTOCOL_VERSION,
    type: 'snapshot',
    generation,
    sequence,
    rows,
    cols: 40,
    replay: `${history}screen ${sequence}`,
    historyLines,
    truncated: false,
    scrollbackLines: 100,
  };
}

function rig() {
  const container = document.createElement('div');
  document.body.append(container);
  const shown: string[] = [];
  const acks: number[] = [];
  const stack = new RendererStack({
    container: () => container,
    activeElement: () => document.activeElement,
    createTerminal: (frame, wrapper) => {
      const term = new Terminal({ rows: frame.rows, cols: frame.cols, scrollback: frame.scrollbackLines, allowProposedApi: true });
      term.open(wrapper);
      return term;
    },
    ackTarget: () => ({ parsed: (s) => acks.push(s) }),
    screenReader: () => false,
    shown: (_frame, _term, how) => shown.push(how),
    changed: () => {},
  });
  return { container, stack, shown, acks };
}

type Step = [generation: number, rows: number, historyLines: number];

// Each case: snapshots one after the other (each shown before the next), then what the stack says.
const cases: Array<{ name: string; steps: Step[]; shown: string[]; kept: boolean; wrappers: number }> = [
  { name: 'a first snapshot gets a fresh renderer', steps: [[1, 10, 0]], shown: ['fresh'], kept: true, wrappers: 1 },
  {
    name: 'a screen without history for the same screen is written in place',
    steps: [
      [1, 10, 0],
      [1, 10, 0],
    ],
    shown: ['fresh', 'in-place'],
    kept: true,
    wrappers: 1,
  },
  {
    name: 'a snapshot with history for the same screen is staged and swapped in',
    steps: [
      [1, 10, 0],
      [1, 10, 20],
    ],
    shown: ['fresh', 'swapped'],
    kept: false,
    wrappers: 1,
  },
  {
    name: 'another generation gets a fresh renderer',
    steps: [
      [1, 10, 0],
      [2, 10, 0],
    ],
    shown: ['fresh', 'fresh'],
    kept: false,
    wrappers: 1,
  },
  {
    name: 'another size gets a fresh renderer',
    steps: [
      [1, 10, 0],
      [1, 12, 0],
    ],
    shown: ['fresh', 'fresh'],
    kept: false,
    wrappers: 1,
  },
];

describe('RendererStack', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const r = rig();
      let first: Terminal | null = null;
      for (const [generation, rows, history] of c.steps) {
        const count = r.shown.length;
        r.stack.snapshot(snapshot(generation, rows, history));
        first ??= r.stack.term;
        await until(() => r.shown.length > count, `snapshot ${generation}/${rows}/${history} shown`);
      }
      deepEqual(r.shown, c.shown);
      equal(r.stack.state.kind, 'shown');
      equal(r.stack.term === first, c.kept, 'the first renderer is still the one on screen');
      equal(r.container.querySelectorAll('.renderer').length, c.wrappers, 'one renderer in the page');
      equal(r.acks.length, c.steps.length, 'each snapshot acked once shown');
    });
  }

  it('a snapshot that arrives while one is staged drops the staged renderer', async () => {
    const r = rig();
    r.stack.snapshot(snapshot(1, 10, 0));
    await until(() => r.shown.length === 1, 'first shown');
    r.stack.snapshot(snapshot(1, 10, 2000));
    equal(r.stack.state.kind, 'staging');
    equal(r.container.querySelectorAll('.renderer.staged').length, 1, 'the staged renderer is hidden in the page');
    r.stack.snapshot(snapshot(1, 10, 0));
    equal(r.container.querySelectorAll('.renderer.staged').length, 0, 'dropped');
    await until(() => r.shown.length === 2, 'the in-place screen shown');
    deepEqual(r.shown, ['fresh', 'in-place']);
  });

  it('dispose leaves it empty and the container bare', async () => {
    const r = rig();
    r.stack.snapshot(snapshot(1, 10, 0));
    await until(() => r.shown.length === 1, 'shown');
    r.stack.dispose();
    equal(r.stack.state.kind, 'empty');
    equal(r.stack.term, null);
    ok(r.container.childElementCount === 0, 'no renderer left in the page');
  });
});
