// A client we did not write: the MCP Inspector's CLI (a pinned devDependency, run from node_modules, so no
// registry is needed) lists the tools over stdio and over Streamable HTTP, in strict mode, which reports
// tool schemas that other clients could not map, and calls the send over HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { TOOL_NAMES } from '@shared-terminal/server';
import { CLI, requireBuiltCli, startCli, tempDir } from './helpers/cli.ts';

const INSPECTOR = new URL('../node_modules/.bin/inspector', import.meta.url).pathname;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the Inspector's CLI with a private home, so that it neither reads nor writes a catalog of the user's. */
function inspector(args: string[], home: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      INSPECTOR,
      ['--cli', ...args],
      { env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'catalog.json') }, timeout: 60_000, maxBuffer: 1 << 24 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function toolNames(run: Run): string[] {
  return (JSON.parse(run.stdout) as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
}

test('the Inspector CLI lists the tools over stdio without a portability warning', async () => {
  requireBuiltCli();
  const dir = tempDir('st-inspector-');
  try {
    // `--` ends the Inspector's own options: its --cwd would otherwise take ours.
    const run = await inspector(
      ['--strict', '--method', 'tools/list', '--', process.execPath, CLI, 'mcp', '--agent', 'inspected', '--cwd', dir],
      dir,
    );
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(toolNames(run), [...TOOL_NAMES]);
    assert.doesNotMatch(run.stderr, /Warning|Error/, 'strict mode found nothing to report');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the Inspector CLI lists and calls the tools over Streamable HTTP with the bearer token', async () => {
  const cli = await startCli();
  try {
    const target = [`${cli.base}/agents/inspected/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${cli.token}`];
    // The target first: --header and --tool-arg take every value up to the next option.
    const list = await inspector([...target, '--strict', '--method', 'tools/list'], cli.dir);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(toolNames(list), [...TOOL_NAMES]);
    assert.doesNotMatch(list.stderr, /Warning|Error/);
    const call = await inspector(
      [...target, '--method', 'tools/call', '--tool-name', 'shared_terminal_send', '--tool-arg', 'text=echo inspected-$((3*4))'],
      cli.dir,
    );
    assert.equal(call.code, 0, call.stderr);
    const result = JSON.parse(call.stdout) as { structuredContent?: { output: string; waitReason: string } };
    assert.match(result.structuredContent?.output ?? '', /^inspected-12$/m);
    assert.equal(result.structuredContent?.waitReason, 'prompt');
    const refused = await inspector([`${cli.base}/agents/inspected/mcp`, '--transport', 'http', '--method', 'tools/list'], cli.dir);
    assert.notEqual(refused.code, 0, 'without the token the Inspector is refused');
  } finally {
    await cli.stop();
  }
});
