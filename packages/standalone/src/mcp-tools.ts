/**
 * The four tools as MCP `Tool` entries: the engine's names, descriptions, input and result schemas, plus
 * what MCP adds for clients: a display title and behaviour hints (a client may approve a read-only tool
 * without asking its user, and warns before a destructive one).
 */
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { TOOL_DESCRIPTIONS, TOOL_INPUT_SCHEMAS, TOOL_NAMES, TOOL_RESULT_SCHEMAS, type ToolName } from '@shared-terminal/server';

const TITLES: Record<ToolName, string> = {
  shared_terminal_send: 'Type into the shared terminal',
  shared_terminal_read: 'Read the shared terminal',
  shared_terminal_signal: "Signal the shared terminal's foreground program",
  shared_terminal_reset: 'Reset the shared terminal',
};

// Hints say what a call may do. A send types any command into bash, so it may change or delete anything
// and reach the network; a signal can end a program and its work; a reset ends every program and all shell
// state. None of the three gives the same effect when repeated, so none is idempotent.
const ANNOTATIONS: Record<ToolName, ToolAnnotations> = {
  shared_terminal_send: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  shared_terminal_read: { readOnlyHint: true, openWorldHint: false },
  shared_terminal_signal: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  shared_terminal_reset: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
};

/** The `tools/list` entries (fresh copies: the engine's schemas are frozen literals). */
export function mcpToolList(): Tool[] {
  return TOOL_NAMES.map((name) => ({
    name,
    title: TITLES[name],
    description: TOOL_DESCRIPTIONS[name],
    inputSchema: structuredClone(TOOL_INPUT_SCHEMAS[name]) as unknown as Tool['inputSchema'],
    outputSchema: structuredClone(TOOL_RESULT_SCHEMAS[name]) as unknown as NonNullable<Tool['outputSchema']>,
    annotations: { title: TITLES[name], ...ANNOTATIONS[name] },
  }));
}
