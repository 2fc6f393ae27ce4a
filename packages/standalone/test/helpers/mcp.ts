/** Checks shared by the MCP tests over stdio and Streamable HTTP. */
import assert from 'node:assert/strict';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_DESCRIPTIONS, TOOL_INPUT_SCHEMAS, TOOL_NAMES, TOOL_RESULT_SCHEMAS, type ToolName } from '@shared-terminal/server';

/** The object in the last text item of a tool result. */
export function lastJson(result: Record<string, unknown>): unknown {
  const items = (result['content'] as Array<{ type: string; text?: string }>).filter((item) => item.type === 'text');
  return JSON.parse(items.at(-1)!.text!);
}

/** The four tools with the engine's schemas and descriptions, titles, and the hints clients act on. */
export function assertToolMetadata(tools: Tool[]): void {
  assert.deepEqual(
    tools.map((tool) => tool.name),
    [...TOOL_NAMES],
  );
  for (const tool of tools) {
    const name = tool.name as ToolName;
    assert.deepEqual(tool.inputSchema, TOOL_INPUT_SCHEMAS[name], `${name} input schema`);
    assert.deepEqual(tool.outputSchema, TOOL_RESULT_SCHEMAS[name], `${name} output schema`);
    assert.equal(tool.description, TOOL_DESCRIPTIONS[name]);
    assert.ok(tool.title && tool.title.length > 0, `${name} has a title`);
  }
  const hints = Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations]));
  assert.equal(hints['shared_terminal_read']?.readOnlyHint, true, 'read is read-only (clients may approve it without asking)');
  for (const name of ['shared_terminal_send', 'shared_terminal_signal', 'shared_terminal_reset']) {
    assert.equal(hints[name]?.readOnlyHint, false, `${name} is not read-only`);
    assert.equal(hints[name]?.destructiveHint, true, `${name} is destructive`);
  }
  assert.match(TOOL_DESCRIPTIONS.shared_terminal_send, /timeoutMs/, 'the send teaches timeoutMs');
}
