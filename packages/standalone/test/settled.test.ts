// When a human interaction settles, the agent hears it: on the events stream, as an MCP notification, and
// at the start of its next MCP tool result. The human's input goes through the engine's human lease (what
// the browser transport calls), on a real PTY; the MCP pair is linked in memory.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { LoggingMessageNotificationSchema, type LoggingMessageNotification } from '@modelcontextprotocol/sdk/types.js';
import { resolveConfig } from '@shared-terminal/server';
import { startMcpServer, startStandaloneServer, type HumanSettledEvent, type RunningMcp, type StandaloneServer } from '../src/index.ts';
import { tempDir, waitFor } from './helpers/cli.ts';

const token = 'settled-test-token-0123456789';
let dir: string;
let server: StandaloneServer;

before(async () => {
  dir = tempDir('st-settled-');
  server = await startStandaloneServer({ config: resolveConfig({}), host: '127.0.0.1', port: 0, token, cwd: dir });
});

after(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A human types `line` at the idle prompt and the interaction runs to its end. */
async function humanTypes(agent: string, line: string): Promise<void> {
  const owner = server.hub.acquire(agent);
  await owner.ensure();
  const session = await owner.beginHuman(`${line}\r`);
  await session.result;
}

test('the events stream reports each settled human interaction once', async () => {
  const response = await fetch(`${server.origin}/api/agents/human/events`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(response.status, 200);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let stream = '';
  const nextEvents = async (count: number) => {
    for (;;) {
      const events = [...stream.matchAll(/^event: human-settled\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]!) as HumanSettledEvent);
      if (events.length >= count) return events;
      const { value, done } = await reader.read();
      assert.ok(!done);
      stream += value;
    }
  };
  await humanTypes('human', 'echo first');
  await humanTypes('other-agent', 'echo not-for-this-stream');
  await humanTypes('human', 'false');
  const events = await nextEvents(2);
  await reader.cancel();
  assert.equal(events.length, 2, 'one event per interaction, none for another agent');
  assert.deepEqual(
    events.map(({ agent, origin, waitReason, exitCode }) => ({ agent, origin, waitReason, exitCode })),
    [
      { agent: 'human', origin: 'idle', waitReason: 'prompt', exitCode: 0 },
      { agent: 'human', origin: 'idle', waitReason: 'prompt', exitCode: 1 },
    ],
  );
  assert.match(events[0]!.message, /Call shared_terminal_read before sending more input/);
});

test('an MCP client gets a notification and the next tool result says so', async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const mcp: RunningMcp = await startMcpServer({
    hub: server.hub,
    relay: server.relay,
    agent: 'mcp-agent',
    version: 'test',
    transport: serverSide,
  });
  const client = new Client({ name: 'settled-test', version: '1.0.0' });
  const notes: LoggingMessageNotification['params'][] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
    notes.push(notification.params);
  });
  await client.connect(clientSide);
  try {
    await client.callTool({ name: 'shared_terminal_send', arguments: { text: 'echo model-was-here' } });
    await humanTypes('another', 'echo elsewhere');
    await humanTypes('mcp-agent', 'echo human-was-here');
    const note = await waitFor(() => notes[0], 'the MCP notification');
    assert.equal(note.level, 'notice');
    assert.equal(note.logger, 'shared-terminal');
    const data = note.data as HumanSettledEvent;
    assert.equal(data.event, 'human-settled');
    assert.equal(data.agent, 'mcp-agent');
    assert.equal(data.origin, 'idle');
    assert.equal(data.waitReason, 'prompt');

    const read = await client.callTool({ name: 'shared_terminal_read', arguments: {} });
    const items = read.content as Array<{ type: string; text: string }>;
    assert.equal(items.length, 2);
    assert.match(items[0]!.text, /^Notice: The human finished an interaction in the shared terminal at the idle prompt/);
    assert.match(JSON.parse(items[1]!.text).viewport, /human-was-here/);
    const again = await client.callTool({ name: 'shared_terminal_read', arguments: {} });
    assert.equal((again.content as unknown[]).length, 1, 'the notice is given once');
    assert.equal(notes.length, 1, 'nothing for the other agent');
  } finally {
    await client.close();
    await mcp.close();
  }
});
