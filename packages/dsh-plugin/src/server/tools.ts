/**
 * The four tools as DSH tool definitions: the engine's closed argument schemas and teaching descriptions,
 * `runTool` against the calling Agent's own terminal, and the bounded result object as the canonical
 * value. The model sees that JSON as text; nothing else (no terminal bytes) reaches the session log.
 *
 * The result's JSON must reach the model whole: DSH's spill policy cuts any result text larger than its
 * inline limit, so the cap is the smaller of maxToolOutputBytes and that limit (`inlineLimit`, read from
 * DSH per call), and the engine's bounding keeps the newest text and sets `truncated`.
 *
 * No argument can pick another Agent, PTY, working directory, shell, environment or sandbox: the Agent is
 * `exec.agent`, and a call without one (a direct host call) is refused.
 */
import {
  boundResult,
  TOOL_DESCRIPTIONS,
  TOOL_INPUT_SCHEMAS,
  TOOL_NAMES,
  TOOL_RESULT_SCHEMAS,
  runTool,
  type BaseResult,
  type ToolName,
} from '@shared-terminal/server';
import { presentCall, presentResult } from './cards.ts';
import type { JsonSchema, ToolDefinition } from './dsh-api.ts';
import { effectiveResultCap } from './inline-limit.ts';
import type { AgentTerminals } from './terminals.ts';

/** Keywords DSH's schema subset accepts (the rest are folded into the description). */
const SUPPORTED = new Set([
  'type',
  'oneOf',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'description',
  'title',
  'default',
  'examples',
]);

/** Rewrite an engine schema into DSH's subset: `minimum: n` becomes part of the description. */
export function toDshSchema(schema: JsonSchema): JsonSchema {
  const out: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && value && typeof value === 'object') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, JsonSchema>).map(([name, inner]) => [name, toDshSchema(inner)]));
    } else if (key === 'minimum') {
      notes.push(`Minimum ${String(value)}.`);
    } else if (SUPPORTED.has(key)) {
      out[key] = Array.isArray(value) ? [...value] : value;
    }
  }
  if (notes.length > 0) out['description'] = [out['description'], ...notes].filter(Boolean).join(' ');
  return out;
}

/** Output schemas: the engine's result schemas (the same ones MCP declares), in DSH's keyword subset. */
export const RESULT_SCHEMAS = Object.fromEntries(TOOL_NAMES.map((name) => [name, toDshSchema(TOOL_RESULT_SCHEMAS[name])])) as Record<
  ToolName,
  JsonSchema
>;

function describeFailure(tool: ToolName, error: unknown): Error {
  if (!(error instanceof Error)) return new Error(`${tool} failed: ${String(error)}`);
  const code = (error as { code?: unknown }).code;
  const failure = new Error(typeof code === 'string' ? `${error.message} (${code})` : error.message, { cause: error });
  failure.name = error.name;
  return failure;
}

/** Bytes a JSON number can grow by (a safe integer has at most 16 digits). */
const LINE_NUMBER_ROOM = 16;

/**
 * A read's history page cut by bytes keeps whole lines only, and says which: the cut part of its oldest
 * line is dropped and `lineBegin` moves up to the first line kept.
 */
function wholeLines(before: BaseResult, after: BaseResult): BaseResult {
  const original = (before as { text?: unknown }).text;
  const page = after as BaseResult & { text?: unknown; lineBegin?: unknown; lineEnd?: unknown };
  if (typeof original !== 'string' || typeof page.text !== 'string' || page.text === original || typeof page.lineEnd !== 'number')
    return after;
  let text = page.text;
  const cutMidLine = original.length > text.length && original[original.length - text.length - 1] !== '\n';
  if (cutMidLine) {
    const newline = text.indexOf('\n');
    text = newline < 0 ? '' : text.slice(newline + 1);
  }
  const lines = text === '' ? 0 : text.split('\n').length;
  return { ...page, text, lineBegin: page.lineEnd - lines } as BaseResult;
}

/** A result bounded again to `cap` bytes when DSH's inline limit is below the engine's own cap. */
export function capResult(result: BaseResult, maxToolOutputBytes: number, inlineLimit: number | undefined): BaseResult {
  const cap = effectiveResultCap(maxToolOutputBytes, inlineLimit);
  if (cap >= maxToolOutputBytes) return result;
  try {
    // A read keeps room for lineBegin to grow by its digits once the cut line is dropped.
    if (typeof (result as { text?: unknown }).text === 'string') return wholeLines(result, boundResult(result, cap - LINE_NUMBER_ROOM));
    return boundResult(result, cap);
  } catch {
    throw new Error(
      `DSH keeps at most ${cap} bytes of a tool result inline (spill policy maxInlineBytes), too few for the terminal's metadata: ` +
        'raise maxInlineBytes or lower rows/cols',
    );
  }
}

export function createToolDefinitions(
  terminals: AgentTerminals,
  inlineLimit: () => number | undefined = () => undefined,
): ToolDefinition[] {
  return TOOL_NAMES.map((name) => ({
    name,
    description: TOOL_DESCRIPTIONS[name],
    parameters: toDshSchema(TOOL_INPUT_SCHEMAS[name]),
    output: {
      schema: RESULT_SCHEMAS[name],
      render: (_args: unknown, value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }],
    },
    presentCall: (args: unknown) => presentCall(name, args),
    presentResult: (args, result) => presentResult(name, args, result),
    async execute(args: unknown, exec) {
      const agent = exec.agent;
      if (!agent) throw new Error(`${name} acts on the calling Agent's terminal, and this call has no Agent: call it from an Agent turn`);
      try {
        const key = terminals.ownerFor(agent);
        const result = await runTool(terminals.hub, key, name, args, exec.signal);
        return capResult(result, terminals.hub.config.maxToolOutputBytes, inlineLimit());
      } catch (error) {
        throw describeFailure(name, error);
      }
    },
  }));
}
