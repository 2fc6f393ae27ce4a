// MCP over Streamable HTTP at /agents/{id}/mcp with the official SDK's client against the real server and
// real PTYs: access fences, tool metadata and structured results, the human's notice on the session's
// stream, a long send with timeoutMs and progress (beside the same over stdio, so the suite waits once),
// and a cancelled call that interrupts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_CONFIG, resolveConfig, TOOL_NAMES, TOOL_RESULT_SCHEMAS, type SendResult } from '@shared-terminal/server';
import { startStandaloneServer, type HumanSettledEvent, type StandaloneServer } from '../src/index.ts';
import { assertToolMetadata, lastJson } from './helpers/mcp.ts';
import { CLI, rawRequest, requireBuiltCli, tempDir, waitFor } from './helpers/cli.ts';

const token = 'mcp-http-test-token-0123456789';
let dir: string;
let server: StandaloneServer;

before(async () => {
  dir = tempDir('st-mcp-http-');
  server = await startStandaloneServer({ config: resolveConfig({}), host: '127.0.0.1', port: 0, token, cwd: dir, version: '9.9.9' });
});

after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(agent: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.origin}/agents/${agent}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'mcp-http-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const mcpHeaders = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

test('the endpoint takes only the bearer token, refuses a foreign Origin, and needs a session', async () => {
  const url = `${server.origin}/agents/fenced/mcp`;
  const none = await fetch(url, { method: 'POST', headers: mcpHeaders, body: initialize });
  assert.equal(none.status, 401);
  const wrong = await fetch(url, {
    method: 'POST',
    headers: { ...mcpHeaders, Authorization: 'Bearer wrong-token-0123456789' },
    body: initialize,
  });
  assert.equal(wrong.status, 401);
  // fetch cannot set Origin; a raw request can.
  const foreign = await rawRequest(server.port, {
    method: 'POST',
    path: '/agents/fenced/mcp',
    headers: { ...mcpHeaders, Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${token}`, Origin: 'http://evil.example' },
    body: initialize,
  });
  assert.equal(foreign.status, 403);
  assert.equal((JSON.parse(foreign.body) as { error: { code: string } }).error.code, 'forbidden-origin');
  const unknown = await fetch(url, {
    method: 'POST',
    headers: { ...mcpHeaders, Authorization: `Bearer ${token}`, 'Mcp-Session-Id': 'no-such-session' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  assert.equal(unknown.status, 404);
  const noSession = await fetch(url, {
    method: 'POST',
    headers: { ...mcpHeaders, Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  assert.equal(noSession.status, 400);
  const own = await rawRequest(server.port, {
    method: 'POST',
    path: '/agents/fenced/mcp',
    headers: { ...mcpHeaders, Host: `127.0.0.1:${server.port}`, Authorization: `Bearer ${token}`, Origin: server.origin },
    body: initialize,
  });
  assert.equal(own.status, 200, 'our own origin is accepted');
  const ok = await fetch(url, { method: 'POST', headers: { ...mcpHeaders, Authorization: `Bearer ${token}` }, body: initialize });
  assert.equal(ok.status, 200);
  const session = ok.headers.get('mcp-session-id');
  assert.ok(session, 'a session id');
  await ok.body?.cancel();
  // A session belongs to the agent it was opened for.
  const elsewhere = await fetch(`${server.origin}/agents/other/mcp`, {
    method: 'POST',
    headers: { ...mcpHeaders, Authorization: `Bearer ${token}`, 'Mcp-Session-Id': session },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  assert.equal(elsewhere.status, 404);
  const ended = await fetch(url, { method: 'DELETE', headers: { Authorization: `Bearer ${token}`, 'Mcp-Session-Id': session } });
  assert.equal(ended.status, 200);
  assert.equal(server.mcp.sessionCount, 1, 'the ended session is gone; the raw one with our Origin stays');
});

test('tools carry titles, hints and output schemas; results come as structuredContent', async () => {
  const client = await connect('http-tools');
  try {
    assert.equal(client.getServerVersion()?.version, '9.9.9');
    const { tools } = await client.listTools();
    assertToolMetadata(tools);
    // The SDK client checks structuredContent against the tool's outputSchema and throws on a mismatch.
    const send = await client.callTool({ name: 'shared_terminal_send', arguments: { text: 'echo "http=$((40+2))"' } });
    const sent = send.structuredContent as unknown as SendResult;
    assert.deepEqual(sent, lastJson(send));
    assert.match(sent.output, /^http=42$/m);
    assert.equal(sent.waitReason, 'prompt');
    for (const name of TOOL_NAMES.filter((n) => n !== 'shared_terminal_send')) {
      const args = name === 'shared_terminal_signal' ? { signal: 'SIGINT' } : {};
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) {
        // Nothing runs in front of the shell: the signal is refused with a coded error and no structuredContent.
        assert.equal(name, 'shared_terminal_signal');
        assert.equal(result.structuredContent, undefined);
        continue;
      }
      assert.deepEqual(result.structuredContent, lastJson(result), name);
      const structured = result.structuredContent as Record<string, unknown>;
      for (const key of TOOL_RESULT_SCHEMAS[name].required) assert.ok(key in structured, `${name} has ${key}`);
    }
  } finally {
    await client.close();
  }
});

test('the notice that the human finished arrives on the session stream', async () => {
  const client = await connect('http-human');
  const notes: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    notes.push(notification.params);
  });
  try {
    await client.callTool({ name: 'shared_terminal_send', arguments: { text: 'echo model-first' } });
    const owner = server.hub.acquire('http-human');
    const lease = await owner.beginHuman('echo human-was-here\r');
    await lease.result;
    const note = await waitFor(() => notes[0], 'the notice on the standalone stream');
    assert.equal(note.level, 'notice');
    assert.equal((note.data as HumanSettledEvent).agent, 'http-human');
    const read = await client.callTool({ name: 'shared_terminal_read', arguments: {} });
    assert.match((read.content as Array<{ text: string }>)[0]!.text, /^Notice: The human finished/);
  } finally {
    await client.close();
  }
});

const LONG_COMMAND = 'for i in $(seq 1 8); do echo "step-$i"; sleep 5; done; echo all-done';

/** A 40 s send with timeoutMs and a progress callback: its result, its reports, and how long it took. */
async function longSend(client: Client): Promise<{ result: SendResult; progress: Progress[]; elapsed: number }> {
  const progress: Progress[] = [];
  const started = Date.now();
  const long = await client.callTool({ name: 'shared_terminal_send', arguments: { text: LONG_COMMAND, timeoutMs: 120_000 } }, undefined, {
    onprogress: (p) => progress.push(p),
    timeout: 120_000,
  });
  return { result: long.structuredContent as unknown as SendResult, progress, elapsed: Date.now() - started };
}

test('over Streamable HTTP and stdio at once, a 40 s command with timeoutMs ends at its prompt, reporting progress', async () => {
  requireBuiltCli();
  const http = await connect('http-long');
  const stdioDir = tempDir('st-mcp-stdio-long-');
  const stdio = new Client({ name: 'mcp-stdio-test', version: '1.0.0' });
  await stdio.connect(
    new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--agent', 'stdio-long', '--cwd', stdioDir], stderr: 'pipe' }),
  );
  try {
    // Both run side by side, so the suite waits 40 s once.
    const runs = await Promise.all([longSend(http), longSend(stdio)]);
    for (const [index, { result, progress, elapsed }] of runs.entries()) {
      const transport = index === 0 ? 'HTTP' : 'stdio';
      assert.equal(result.waitReason, 'prompt', `${transport}: the default 30 s deadline did not interrupt it`);
      assert.match(result.output, /^all-done$/m);
      assert.ok(elapsed > DEFAULT_CONFIG.operationTimeoutMs, `${transport}: it ran past the default deadline`);
      // The default interval allows four reports a minute: 40 s gives two (at 15 and 30 s), never more than three.
      assert.ok(progress.length >= 2 && progress.length <= 3, `${transport} progress reports: ${progress.length}`);
      assert.ok(
        progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress),
        'progress increases',
      );
      assert.match(progress.at(-1)!.message ?? '', /newest line: step-\d/);
    }
  } finally {
    await http.close();
    await stdio.close();
    rmSync(stdioDir, { recursive: true, force: true });
  }
});

test('over Streamable HTTP a timeoutMs over the limit is refused, and a cancelled call interrupts', async () => {
  const client = await connect('http-cancel');
  try {
    const tooLong = await client.callTool({
      name: 'shared_terminal_send',
      arguments: { text: 'true', timeoutMs: server.hub.config.maxOperationTimeoutMs + 1 },
    });
    assert.equal(tooLong.isError, true);
    assert.match(lastJsonError(tooLong), /maxOperationTimeoutMs/);

    const abort = new AbortController();
    const cancelled = client.callTool(
      { name: 'shared_terminal_send', arguments: { text: 'echo sleep-starts; sleep 300', timeoutMs: 600_000 } },
      undefined,
      { signal: abort.signal },
    );
    // Cancel once the command runs (a cancel before bash started it would only show the queue's side).
    await waitFor(async () => /^sleep-starts$/m.test((await server.hub.acquire('http-cancel').view()).viewport), 'the sleep to start');
    abort.abort();
    await assert.rejects(cancelled);
    const next = await client.callTool({ name: 'shared_terminal_send', arguments: { text: 'echo "after=$((1+1))"' } });
    assert.equal(next.isError, undefined, JSON.stringify(next.content));
    assert.match((next.structuredContent as unknown as SendResult).output, /^after=2$/m, 'the sleep was interrupted and the shell is back');
  } finally {
    await client.close();
  }
});

function lastJsonError(result: Awaited<ReturnType<Client['callTool']>>): string {
  return (lastJson(result) as { error: { message: string } }).error.message;
}
