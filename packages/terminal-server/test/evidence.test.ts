/**
 * Issue 16: the evidence rules without a PTY. Each row is an observation as the generation records it
 * (the kernel facts are the ones the Linux inspector reported for the named program on a real terminal)
 * and the verdict the rules must give.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ForegroundInfo } from '../src/index.ts';
import { type Observation, type Verdict, judge, sameVerdict, siblingsWorking } from '../src/terminal/evidence.ts';

const SHELL = 4100;
const PROMPT_STACK = '0x7ffc9293df10';

/** bash asleep in its line editor (pselect without timeout) at the depth of its top-level prompt. */
const lineEditor: ForegroundInfo = {
  processGroupId: SHELL,
  command: 'bash',
  inputWaiting: true,
  inputCall: 'poll',
  inputTimed: false,
  inputProcessId: SHELL,
  inputStack: PROMPT_STACK,
};

function observe(
  front: ForegroundInfo | undefined,
  extra: Partial<Observation> = {},
  marks: Partial<Observation['marks']> = {},
): Observation {
  return {
    shellPid: SHELL,
    shellProgram: 'bash',
    waitsKnown: true,
    front,
    marks: {
      prompt: false,
      commandRunning: false,
      statusMissing: false,
      lineSubmitted: true,
      lineOpen: false,
      lineErased: false,
      continuing: false,
      ...marks,
    },
    sinceWriteMs: 600,
    quietMs: 500,
    waitSeenMs: 0,
    ...extra,
  };
}

type Expect = 'undecided' | 'prompt/marker' | 'prompt/kernel' | 'input' | 'input/secret' | 'input/relay' | 'input/uncertain';

function describeVerdict(v: Verdict): Expect {
  if (v.kind === 'undecided') return 'undecided';
  if (v.kind === 'prompt') return `prompt/${v.evidence}`;
  if (v.wait.relay === 'unknown') return 'input/uncertain';
  if (v.wait.relay) return 'input/relay';
  return v.wait.secret ? 'input/secret' : 'input';
}

const rows: Array<[string, Observation, Expect]> = [
  ['right after a write nothing is trusted', observe(lineEditor, { sinceWriteMs: 3 }, { prompt: true }), 'undecided'],
  ['the shell exited or could not be read', observe(undefined), 'undecided'],
  [
    'a line written 40 ms ago, nothing printed since: bash may not have it yet',
    observe(lineEditor, { sinceWriteMs: 40, quietMs: 900 }),
    'undecided',
  ],
  [
    'a REPL still in epoll 40 ms after .exit was written, nothing printed since',
    observe(
      { processGroupId: 4200, command: 'node', inputWaiting: true, inputCall: 'poll', inputTimed: false, inputProcessId: 4200 },
      { sinceWriteMs: 40, quietMs: 900 },
    ),
    'undecided',
  ],
  [
    'a silent reader 300 ms after the write (read -s answered, read -s again)',
    observe({ ...lineEditor, inputCall: 'read', secret: true }, { sinceWriteMs: 300, quietMs: 900 }),
    'input/secret',
  ],
  ['without a mark, no output since the write is never a prompt', observe(lineEditor, { sinceWriteMs: 5000, quietMs: 9000 }), 'undecided'],
  [
    'output still arriving',
    observe({ ...lineEditor, processGroupId: 4200, command: 'python3', inputProcessId: 4200, inputStack: '0x1' }, { quietMs: 2 }),
    'undecided',
  ],
  ['a counted prompt mark and bash in its line editor', observe(lineEditor, {}, { prompt: true }), 'prompt/marker'],
  [
    "a prompt mark with the command line's status not come yet, 40 ms quiet (stdout through a pipe)",
    observe(lineEditor, { quietMs: 40 }, { prompt: true, statusMissing: true }),
    'undecided',
  ],
  [
    'a prompt mark whose status has not come in 150 ms of quiet (stdout to a file)',
    observe(lineEditor, { quietMs: 150 }, { prompt: true, statusMissing: true }),
    'prompt/marker',
  ],
  ['no mark, bash idle, quiet 50 ms: not yet', observe(lineEditor, { quietMs: 50 }), 'undecided'],
  ['no mark (exec bash), bash idle, quiet 150 ms', observe(lineEditor, { quietMs: 150, waitSeenMs: 120 }), 'prompt/kernel'],
  [
    'no mark yet, bash first seen in its line editor after a long quiet: what it printed before may be unread',
    observe(lineEditor, { quietMs: 300, waitSeenMs: 0 }, { promptStack: PROMPT_STACK }),
    'undecided',
  ],
  [
    'read -e: a command line started, no prompt since',
    observe({ ...lineEditor, inputStack: undefined }, {}, { commandRunning: true }),
    'input',
  ],
  [
    'a command line started, no depth known, quiet 30 ms: its prompt marks may still be on the way',
    observe({ ...lineEditor, inputStack: undefined }, { quietMs: 30, sinceWriteMs: 60 }, { commandRunning: true }),
    'undecided',
  ],
  ['read -e: deeper than the prompt', observe({ ...lineEditor, inputStack: '0x7ffc9293ea30' }, {}, { promptStack: PROMPT_STACK }), 'input'],
  [
    'a quote continuation (PS2) waits deeper too',
    observe({ ...lineEditor, inputStack: '0x7ffc9293de80' }, {}, { promptStack: PROMPT_STACK }),
    'input',
  ],
  [
    'a line submitted that neither started a command nor ended (an open `for`, a trailing backslash): PS2 at the prompt depth',
    observe(lineEditor, { quietMs: 150, waitSeenMs: 120 }, { continuing: true, promptStack: PROMPT_STACK }),
    'input',
  ],
  [
    'the same before the terminal was quiet long enough for the marks to arrive',
    observe(lineEditor, { quietMs: 50 }, { continuing: true, promptStack: PROMPT_STACK }),
    'undecided',
  ],
  [
    'no mark, bash idle, nothing written since its prompt was reported: no new prompt',
    observe(lineEditor, { quietMs: 5000 }, { lineSubmitted: false }),
    'undecided',
  ],
  [
    'text typed at the prompt without Enter: bash waits for the rest of the line',
    observe(lineEditor, {}, { lineSubmitted: false, lineOpen: true, promptStack: PROMPT_STACK }),
    'input',
  ],
  [
    'lines run, then a last one typed without Enter: a wait, not the prompt',
    observe(lineEditor, {}, { lineOpen: true, commandRunning: true, promptStack: PROMPT_STACK }),
    'input',
  ],
  [
    "the shell process exec'd python3: its REPL waits like any program, never the prompt",
    observe({ ...lineEditor, command: 'python3' }, { shellProgram: 'other' }, { lineSubmitted: true }),
    'input',
  ],
  [
    "a line open inside read -e is that read's wait",
    observe({ ...lineEditor, inputStack: '0x7ffc9293ea30' }, {}, { lineOpen: true, promptStack: PROMPT_STACK }),
    'input',
  ],
  [
    'the hook was removed mid-command: the depth says prompt',
    observe(lineEditor, { waitSeenMs: 150 }, { commandRunning: true, promptStack: PROMPT_STACK }),
    'prompt/kernel',
  ],
  ["bash's read builtin blocks in read()", observe({ ...lineEditor, inputCall: 'read', inputStack: '0x7ffc9293eb40' }), 'input'],
  [
    'line editing off (set +o emacs): bash reads its next command line in read(), after a prompt mark',
    observe(
      { ...lineEditor, inputCall: 'read', icanon: true, echo: true, inputStack: '0x7ffc9293eb40' },
      {},
      { prompt: true, promptStack: PROMPT_STACK },
    ),
    'prompt/marker',
  ],
  ['read -s: echo off', observe({ ...lineEditor, inputCall: 'read', secret: true, echo: false, icanon: true }), 'input/secret'],
  [
    'read -t 10: a timed select',
    observe({ ...lineEditor, inputTimed: true, inputTimeoutMs: 10_000, inputStack: '0x7ffc9293eb40' }),
    'input',
  ],
  [
    'read -t 0.3, seen 100 ms: it ends by itself',
    observe({ ...lineEditor, inputTimed: true, inputTimeoutMs: 300 }, { waitSeenMs: 100 }),
    'undecided',
  ],
  [
    'a 100 ms poll seen for 500 ms: a polling loop',
    observe(
      { ...lineEditor, processGroupId: 4200, command: 'htop', inputProcessId: 4200, inputTimed: true, inputTimeoutMs: 100 },
      { waitSeenMs: 500 },
    ),
    'input',
  ],
  [
    'a timed wait whose timeout could not be read, seen 500 ms',
    observe({ ...lineEditor, inputTimed: true }, { waitSeenMs: 500 }),
    'undecided',
  ],
  [
    '... and seen 1.2 s',
    observe({ ...lineEditor, processGroupId: 4200, inputProcessId: 4200, inputTimed: true }, { waitSeenMs: 1200 }),
    'input',
  ],
  [
    'node after .exit, still in epoll with the terminal in its interest list, seen 10 ms',
    observe(
      {
        processGroupId: 4200,
        command: 'node',
        inputWaiting: true,
        inputCall: 'poll',
        inputTimed: false,
        inputProcessId: 4200,
        inputInterestList: true,
      },
      { waitSeenMs: 10 },
    ),
    'undecided',
  ],
  [
    'the node REPL at its prompt, in epoll, seen 80 ms',
    observe(
      {
        processGroupId: 4200,
        command: 'node',
        inputWaiting: true,
        inputCall: 'poll',
        inputTimed: false,
        inputProcessId: 4200,
        inputInterestList: true,
      },
      { waitSeenMs: 80 },
    ),
    'input',
  ],
  [
    'python3 REPL in select',
    observe({ processGroupId: 4200, command: 'python3', inputWaiting: true, inputCall: 'poll', inputTimed: false, inputProcessId: 4200 }),
    'input',
  ],
  [
    'pinentry outside the job, echo off',
    observe({
      processGroupId: 4300,
      command: 'pinentry-curses',
      inputWaiting: true,
      inputCall: 'poll',
      inputProcessId: 4377,
      inputOutside: true,
      secret: true,
      echo: false,
      icanon: false,
    }),
    'input/secret',
  ],
  ['a job that runs (sleep, make): nothing waits', observe({ processGroupId: 4200, command: 'sleep', inputWaiting: false }), 'undecided'],
  ['watch redraws and never reads', observe({ processGroupId: 4200, command: 'watch', inputWaiting: false, busy: false }), 'undecided'],
  [
    'script: its inner bash waits at a prompt',
    observe({
      processGroupId: 4200,
      command: 'script',
      inputWaiting: true,
      inputCall: 'poll',
      inputProcessId: 4200,
      inner: { path: '/dev/pts/9', processGroupId: 4250, inputWaiting: true, command: 'bash', inputCall: 'poll' },
    }),
    'input/relay',
  ],
  [
    'tmux: the command inside still runs',
    observe({
      processGroupId: 4200,
      command: 'tmux: client',
      inputWaiting: true,
      inputCall: 'poll',
      inputProcessId: 4200,
      inner: { path: '/dev/pts/9', processGroupId: 4260, inputWaiting: false, command: 'sleep' },
    }),
    'undecided',
  ],
  [
    'ssh, quiet 300 ms: the far side may still be running something',
    observe(
      { processGroupId: 4200, command: 'ssh', inputWaiting: true, inputCall: 'poll', inputProcessId: 4200, inner: 'unknown' },
      { quietMs: 300 },
    ),
    'undecided',
  ],
  [
    'ssh: the far side cannot be seen',
    observe(
      { processGroupId: 4200, command: 'ssh', inputWaiting: true, inputCall: 'poll', inputProcessId: 4200, inner: 'unknown' },
      { quietMs: 1500, sinceWriteMs: 1600 },
    ),
    'input/uncertain',
  ],
  [
    'macOS: only the foreground is known; a mark and bash in front',
    observe({ processGroupId: SHELL, inputWaiting: false }, { waitsKnown: false }, { prompt: true }),
    'prompt/marker',
  ],
  ['macOS: no mark', observe({ processGroupId: SHELL, inputWaiting: false }, { waitsKnown: false }), 'undecided'],
];

/** jshell at its prompt: a reader thread of the jshell process, beside the compiler's threads and the
 *  execution agent (another process of the group). */
const jshell: ForegroundInfo = {
  processGroupId: 4300,
  command: 'jshell',
  inputWaiting: true,
  inputCall: 'read',
  inputTimed: false,
  inputProcessId: 4300,
  inputSiblings: { running: false, cpuNs: 9_000_000_000 },
};

describe('a reader whose siblings work', () => {
  const rows: Array<[string, Observation, Expect]> = [
    ['siblings idle since the write', observe(jshell), 'input'],
    ['siblings worked 40 ms ago (jshell between compiling and printing)', observe(jshell, { siblingsQuietMs: 40 }), 'undecided'],
    ['siblings idle for 300 ms', observe(jshell, { siblingsQuietMs: 300 }), 'input'],
    ['siblings working for 6 s: a REPL beside a worker thread', observe(jshell, { siblingsQuietMs: 0, waitSeenMs: 6000 }), 'input'],
  ];
  for (const [name, observation, expected] of rows) {
    it(`${name} → ${expected}`, () => {
      assert.equal(describeVerdict(judge(observation)), expected);
    });
  }

  it('a wait held for working siblings is marked busy; one after they stopped is not', () => {
    const held = judge(observe(jshell, { siblingsQuietMs: 0, waitSeenMs: 6000 }));
    assert.ok(held.kind === 'input' && held.wait.busy === true);
    const after = judge(observe(jshell, { siblingsQuietMs: 300 }));
    assert.ok(after.kind === 'input' && after.wait.busy === undefined);
    const retry = judge(observe(jshell, { siblingsQuietMs: 40, waitSeenMs: 100 }));
    assert.ok(retry.kind === 'undecided' && retry.retryMs !== undefined && retry.retryMs > 0 && retry.retryMs <= 211);
  });

  it('siblings work when one runs, or they used a quarter of a CPU between looks', () => {
    const at = 1000;
    assert.equal(siblingsWorking(undefined, { running: true, cpuNs: 0 }, at), true);
    assert.equal(siblingsWorking(undefined, { running: false, cpuNs: 5e9 }, at), false);
    // 50 ms apart: 20 ms of CPU is 40 %, 5 ms is 10 %.
    assert.equal(siblingsWorking({ cpuNs: 0, at: 950 }, { running: false, cpuNs: 20e6 }, at), true);
    assert.equal(siblingsWorking({ cpuNs: 0, at: 950 }, { running: false, cpuNs: 5e6 }, at), false);
    // A sample from 10 s before (taken before the write): judged over the quiet window, so a JVM's idle
    // 4 ms a second does not count, a 100 ms burst does.
    assert.equal(siblingsWorking({ cpuNs: 0, at: at - 10_000 }, { running: false, cpuNs: 40e6 }, at), false);
    assert.equal(siblingsWorking({ cpuNs: 0, at: at - 10_000 }, { running: false, cpuNs: 100e6 }, at), true);
    // A thread that ended takes its time with it: the sum may shrink, which is no work.
    assert.equal(siblingsWorking({ cpuNs: 50e6, at: 950 }, { running: false, cpuNs: 10e6 }, at), false);
  });
});

describe('evidence rules', () => {
  for (const [name, observation, expected] of rows) {
    it(`${name} → ${expected}`, () => {
      assert.equal(describeVerdict(judge(observation)), expected);
    });
  }

  it('only a line open at the prompt itself is marked unsubmitted', () => {
    const open = judge(observe(lineEditor, {}, { lineOpen: true, promptStack: PROMPT_STACK }));
    assert.ok(open.kind === 'input' && open.wait.unsubmitted === true && open.wait.shell);
    const deeper = judge(observe({ ...lineEditor, inputStack: '0x7ffc9293ea30' }, {}, { lineOpen: true, promptStack: PROMPT_STACK }));
    assert.ok(deeper.kind === 'input' && deeper.wait.unsubmitted === undefined);
    const marked = judge(observe(lineEditor, {}, { prompt: true, lineOpen: true, promptStack: PROMPT_STACK }));
    assert.equal(marked.kind, 'prompt', 'a pristine mark (the line was erased back to it) is the prompt');
    const erased = judge(observe(lineEditor, {}, { lineErased: true, promptStack: PROMPT_STACK }));
    assert.deepEqual(erased, { kind: 'prompt', evidence: 'marker' }, 'a typed line erased again: the prompt stands');
    const unseen = judge(observe(lineEditor, { quietMs: 500, sinceWriteMs: 100 }, { lineErased: true, promptStack: PROMPT_STACK }));
    assert.equal(unseen.kind, 'undecided', 'no output since the write yet: bash may not have taken the input');
    const silent = judge(observe(lineEditor, { quietMs: 500, sinceWriteMs: 300 }, { lineErased: true, promptStack: PROMPT_STACK }));
    assert.equal(silent.kind, 'prompt', 'input that never showed (the line discipline took it) leaves the prompt as it was');
  });

  it('an undecided verdict says when to look again, never later than the rule needs', () => {
    const v = judge(observe(lineEditor, { quietMs: 40 }));
    assert.equal(v.kind, 'undecided');
    assert.ok(v.kind === 'undecided' && v.retryMs !== undefined && v.retryMs <= 60 && v.retryMs > 0);
    const timed = judge(observe({ ...lineEditor, inputTimed: true, inputTimeoutMs: 300 }, { waitSeenMs: 100 }));
    assert.ok(timed.kind === 'undecided' && timed.retryMs !== undefined && timed.retryMs > 200 && timed.retryMs <= 301);
  });

  it('a confirming look agrees only on the same kind of verdict about the same reader', () => {
    const a = judge(observe({ processGroupId: 4200, command: 'python3', inputWaiting: true, inputCall: 'poll', inputProcessId: 4200 }));
    const b = judge(observe({ processGroupId: 4201, command: 'python3', inputWaiting: true, inputCall: 'poll', inputProcessId: 4201 }));
    assert.equal(sameVerdict(a, a), true);
    assert.equal(sameVerdict(a, b), false);
    assert.equal(sameVerdict(judge(observe(lineEditor, {}, { prompt: true })), judge(observe(lineEditor, { quietMs: 150 }))), false);
  });
});
