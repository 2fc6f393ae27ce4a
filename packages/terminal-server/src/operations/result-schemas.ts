/**
 * JSON Schemas of the four tools' result objects, for hosts that declare them (MCP `outputSchema`). They
 * describe the fields of `tools.ts`'s result types; they are open (no `additionalProperties: false`), so a
 * host built against them keeps validating when a result gains an optional field.
 */
import type { ToolName } from './tools.ts';

const int = { type: 'integer' } as const;
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;
// Nullable as `oneOf` of single types (like the DSH schemas): clients that map schemas onto a dialect of
// one `type` per node (OpenAPI-style function declarations) refuse a `type` array.
const nullableInt = { oneOf: [int, { type: 'null' }] } as const;
const nullableString = { oneOf: [str, { type: 'null' }] } as const;

const BASE_PROPERTIES = {
  generation: { ...int, description: 'Terminal generation; a reset starts the next one.' },
  sequence: { ...int, description: 'Output sequence number of the screen below.' },
  rows: { ...int, description: 'PTY rows.' },
  cols: { ...int, description: 'PTY columns.' },
  viewport: { ...str, description: 'The visible screen as text, one line a row, blank rows at the end left out.' },
  cursor: {
    type: 'object',
    properties: { x: int, y: int },
    required: ['x', 'y'],
    description: 'Cursor column and row, from zero.',
  },
  status: {
    type: 'object',
    properties: { kind: { type: 'string', enum: ['running', 'exited'] }, exitCode: nullableInt, signal: nullableString },
    required: ['kind'],
    description: 'Whether the shell runs, or how it ended.',
  },
  queueStatus: { type: 'string', enum: ['ready', 'busy', 'blocked', 'exited', 'disposed'] },
  holder: {
    oneOf: [{ type: 'string', enum: ['model-send', 'human', 'signal', 'reset'] }, { type: 'null' }],
    description: 'Who holds the terminal now, or null.',
  },
  pendingCount: { ...int, description: 'Operations waiting behind the holder.' },
  truncated: { ...bool, description: 'Text was cut to stay within maxToolOutputBytes; the newest part was kept.' },
} as const;
const BASE_REQUIRED = Object.keys(BASE_PROPERTIES);

const MUTATION_PROPERTIES = {
  queueTimeMs: { ...int, description: 'Time spent waiting in the queue before the operation ran.' },
  waitReason: {
    type: 'string',
    enum: ['prompt', 'stdin_read', 'human_handoff', 'session_exit', 'timeout', 'cancelled'],
    description: 'Why the operation returned.',
  },
} as const;

const CAPTURE_PROPERTIES = {
  output: { ...str, description: 'What the operation printed, from its command line on.' },
  exitCode: { ...int, description: 'Exit status of the command (or of the shell, after session_exit).' },
  promptEvidence: {
    type: 'string',
    enum: ['kernel'],
    description:
      "The prompt was seen without its mark (bash exec'd, its hook removed, or its stderr sent elsewhere); exitCode comes only if the hook's status mark did.",
  },
  inputWait: {
    type: 'object',
    properties: {
      command: nullableString,
      secret: bool,
      processGroupId: int,
      relay: { type: 'string', description: 'The nested terminal program (tmux, screen, script, ssh); command is what waits inside it.' },
      uncertain: { type: 'boolean', enum: [true], description: 'The inside of the relay cannot be seen: only quiet output says it waits.' },
      busy: {
        type: 'boolean',
        enum: [true],
        description:
          'The program kept computing in another thread while it read: it takes input, but more output may come (send text "" with submit false to wait for it).',
      },
      unsubmitted: {
        type: 'boolean',
        enum: [true],
        description: 'bash is at its prompt with text typed on its line but not submitted: text "" runs the line.',
      },
    },
    required: ['command', 'secret', 'processGroupId'],
    description:
      'The program that waits for input (waitReason stdin_read, or after timeout or cancelled: the interrupted program reads input again); secret: a password prompt.',
  },
  viewportOmitted: {
    type: 'object',
    properties: { row: int, count: int },
    required: ['row', 'count'],
    description:
      "Rows left out of viewport because output holds them: the screen is viewport's lines with the last `count` lines of output inserted before line `row`.",
  },
} as const;

/** One schema per tool, keyed like TOOL_INPUT_SCHEMAS. */
export const TOOL_RESULT_SCHEMAS = {
  shared_terminal_send: {
    type: 'object',
    properties: { ...BASE_PROPERTIES, ...MUTATION_PROPERTIES, ...CAPTURE_PROPERTIES },
    required: [...BASE_REQUIRED, 'output', 'queueTimeMs', 'waitReason'],
  },
  shared_terminal_read: {
    type: 'object',
    properties: {
      ...BASE_PROPERTIES,
      text: { ...str, description: 'History lines lineBegin (inclusive) to lineEnd (exclusive).' },
      totalLines: { ...int, description: 'History lines kept.' },
      lineBegin: int,
      lineEnd: int,
    },
    required: [...BASE_REQUIRED, 'text', 'totalLines', 'lineBegin', 'lineEnd'],
  },
  shared_terminal_signal: {
    type: 'object',
    properties: {
      ...BASE_PROPERTIES,
      ...MUTATION_PROPERTIES,
      ...CAPTURE_PROPERTIES,
      processGroupId: { ...nullableInt, description: 'The process group that got the signal.' },
    },
    required: [...BASE_REQUIRED, 'output', 'queueTimeMs', 'waitReason', 'processGroupId'],
  },
  shared_terminal_reset: {
    type: 'object',
    properties: { ...BASE_PROPERTIES, ...MUTATION_PROPERTIES },
    required: [...BASE_REQUIRED, 'queueTimeMs', 'waitReason'],
  },
} as const satisfies Record<ToolName, { type: 'object'; properties: object; required: readonly string[] }>;
