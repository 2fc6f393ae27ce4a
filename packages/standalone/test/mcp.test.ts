// `shared-terminal mcp` with the SDK's own client over stdio: the four tools, their schemas and results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TOOL_DESCRIPTIONS, TOOL_INPUT_SCHEMAS, TOOL_NAMES, type ReadResult, type SendResult } from '@shared-terminal/server';
import { alive, CLI, requireBuiltCli, tempDir, waitFor } from './helpers/cli.ts';

function texts(result: Record<string, unknown>): string[] {
  return (result['content'] as Array<{ type: string; text: string }>).filter((item) => item.type === 'text').map((item) => item.text);
}

test('a real MCP client lists the four tools and runs send and read', async () => {
  requireBuiltCli();
  const dir = tempDir('st-mcp-');
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--agent', 'mcp-test', '--cwd', dir], stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'standalone-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    assert.match(client.getInstructions() ?? '', /human_handoff/);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), [...TOOL_NAMES]);
    for (const tool of tools) {
      assert.deepEqual(tool.inputSchema, TOOL_INPUT_SCHEMAS[tool.name as keyof typeof TOOL_INPUT_SCHEMAS], `${tool.name} schema`);
      assert.equal(tool.description, TOOL_DESCRIPTIONS[tool.name as keyof typeof TOOL_DESCRIPTIONS]);
    }

    const send = await client.callTool({ name: 'shared_terminal_send', arguments: { text: 'echo "mcp=$((40+2))"; echo "pid=$$"' } });
    assert.equal(send.isError, undefined);
    const sent = JSON.parse(texts(send).at(-1)!) as SendResult;
    assert.match(sent.output, /^mcp=42$/m);
    assert.equal(sent.waitReason, 'prompt');
    const pid = Number(/^pid=(\d+)$/m.exec(sent.output)?.[1]);

    const read = await client.callTool({ name: 'shared_terminal_read', arguments: { count: 10 } });
    const page = JSON.parse(texts(read).at(-1)!) as ReadResult;
    assert.match(page.viewport, /mcp=42/);

    const bad = await client.callTool({ name: 'shared_terminal_send', arguments: { text: 1 } });
    assert.equal(bad.isError, true);
    assert.deepEqual(JSON.parse(texts(bad)[0]!), { error: { code: 'invalid-arguments', message: 'shared_terminal_send: "text" must be a string' } });

    // The page of this agent is served on loopback; its address (with the token) went to stderr only.
    const line = await waitFor(() => /^shared-terminal: (http:\/\/127\.0\.0\.1:\d+)\/agents\/mcp-test\?token=(\S+)$/m.exec(stderr), 'the address on stderr');
    const agents = await fetch(`${line[1]}/api/agents`, { headers: { Authorization: `Bearer ${line[2]}` } });
    assert.deepEqual(((await agents.json()) as { agents: Array<{ id: string }> }).agents.map((a) => a.id), ['mcp-test']);

    await client.close();
    await waitFor(() => !alive(pid), 'the shell to end when the client goes away');
  } finally {
    await client.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});
