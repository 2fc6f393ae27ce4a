// `shared-terminal mcp` with the SDK's own client over stdio: the four tools, their schemas and results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ReadResult, SendResult } from '@shared-terminal/server';
import { alive, CLI, requireBuiltCli, tempDir, waitFor, writeConfig } from './helpers/cli.ts';
import { assertToolMetadata, lastJson } from './helpers/mcp.ts';

function texts(result: Record<string, unknown>): string[] {
  return (result['content'] as Array<{ type: string; text: string }>).filter((item) => item.type === 'text').map((item) => item.text);
}

test('a real MCP client lists the four tools and runs send and read', async () => {
  requireBuiltCli();
  const dir = tempDir('st-mcp-');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent', 'mcp-test', '--cwd', dir],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: 'standalone-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    assert.match(client.getInstructions() ?? '', /human_handoff/);
    const { tools } = await client.listTools();
    assertToolMetadata(tools);

    const send = await client.callTool({ name: 'shared_terminal_send', arguments: { text: 'echo "mcp=$((40+2))"; echo "pid=$$"' } });
    assert.equal(send.isError, undefined);
    const sent = JSON.parse(texts(send).at(-1)!) as SendResult;
    // The SDK client checked structuredContent against the outputSchema; it is the same object as the text.
    assert.deepEqual(send.structuredContent, sent);
    assert.match(sent.output, /^mcp=42$/m);
    assert.equal(sent.waitReason, 'prompt');
    const pid = Number(/^pid=(\d+)$/m.exec(sent.output)?.[1]);

    const read = await client.callTool({ name: 'shared_terminal_read', arguments: { count: 10 } });
    const page = JSON.parse(texts(read).at(-1)!) as ReadResult;
    assert.deepEqual(read.structuredContent, page);
    assert.match(page.viewport, /mcp=42/);

    const bad = await client.callTool({ name: 'shared_terminal_send', arguments: { text: 1 } });
    assert.equal(bad.isError, true);
    assert.deepEqual(JSON.parse(texts(bad)[0]!), {
      error: { code: 'invalid-arguments', message: 'shared_terminal_send: "text" must be a string' },
    });

    // The page of this agent is served on loopback; its address (with the token) went to stderr only.
    const line = await waitFor(
      () => /^shared-terminal: (http:\/\/127\.0\.0\.1:\d+)\/agents\/mcp-test\?token=(\S+)$/m.exec(stderr),
      'the address on stderr',
    );
    const agents = await fetch(`${line[1]}/api/agents`, { headers: { Authorization: `Bearer ${line[2]}` } });
    assert.deepEqual(
      ((await agents.json()) as { agents: Array<{ id: string }> }).agents.map((a) => a.id),
      ['mcp-test'],
    );

    await client.close();
    await waitFor(() => !alive(pid), 'the shell to end when the client goes away');
  } finally {
    await client.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('over stdio a send with timeoutMs outlives operationTimeoutMs and ends at its prompt', async () => {
  requireBuiltCli();
  const dir = tempDir('st-mcp-long-');
  // A short default deadline stands in for the 30 s one (the HTTP test runs the real 40 s case).
  const config = writeConfig(dir, { operationTimeoutMs: 1000, maxOperationTimeoutMs: 60000 });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--agent', 'mcp-long', '--cwd', dir, '--config', config],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'standalone-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const command = 'sleep 3; echo "slept=$((1+2))"';
    const short = await client.callTool({ name: 'shared_terminal_send', arguments: { text: command } });
    assert.equal((lastJson(short) as SendResult).waitReason, 'timeout', 'without timeoutMs the configured deadline interrupts it');
    const long = await client.callTool({ name: 'shared_terminal_send', arguments: { text: command, timeoutMs: 30000 } });
    const result = long.structuredContent as unknown as SendResult;
    assert.equal(result.waitReason, 'prompt');
    assert.match(result.output, /^slept=3$/m);
    const over = await client.callTool({ name: 'shared_terminal_send', arguments: { text: 'true', timeoutMs: 60001 } });
    assert.equal(over.isError, true);
    assert.match(texts(over).at(-1)!, /over this server's maxOperationTimeoutMs \(60000\)/);
  } finally {
    await client.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
