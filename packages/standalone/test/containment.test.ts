// No process of a terminal outlives its server (issue 18): programs that escape the shell's session,
// ignore SIGHUP, double-fork or clear their environment are ended after a `kill -9` of the server and by
// DELETE. With cgroup v2 (where the host allows it) every one of them; with the watchdog alone (forced
// here with SHARED_TERMINAL_CGROUP=off) all but those that both leave the session and clear their
// environment, which the README states.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { containmentMode } from '@shared-terminal/server';
import { callTool, startCli, waitFor, type RunningCli } from './helpers/cli.ts';

/** Ways a program started at the prompt tries to outlive the terminal, each with its own sleep length; the
 *  last two leave the session and the tree mark behind, which only a cgroup catches. */
const ESCAPES: ReadonlyArray<{ name: string; command: (seconds: string) => string; leavesSessionAndEnvironment?: boolean }> = [
  { name: 'background job', command: (s) => `sleep ${s} &` },
  { name: 'disowned job', command: (s) => `sleep ${s} & disown` },
  { name: 'setsid', command: (s) => `setsid sleep ${s} &` },
  { name: 'nohup', command: (s) => `nohup sleep ${s} >/dev/null 2>&1 &` },
  { name: 'trap plus setsid', command: (s) => `(trap '' HUP TERM; setsid sleep ${s} &)` },
  { name: 'double fork', command: (s) => `( (sleep ${s} &) & )` },
  { name: 'nohup env -i (in the session, no mark)', command: (s) => `nohup env -i sleep ${s} >/dev/null 2>&1 &` },
  { name: 'setsid env -i', command: (s) => `setsid env -i sleep ${s} &`, leavesSessionAndEnvironment: true },
  { name: '( setsid env -i & )', command: (s) => `( setsid env -i sleep ${s} & )`, leavesSessionAndEnvironment: true },
];

/** The pids of `sleep SECONDS` processes, by their command line. */
function sleepers(seconds: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') === `sleep\0${seconds}\0`) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function plant(cli: RunningCli, agent: string): Promise<Map<string, string>> {
  const tag = String(100_000 + Math.floor(Math.random() * 800_000));
  const planted = new Map<string, string>();
  for (const [index, escape] of ESCAPES.entries()) {
    const seconds = `${tag}${index}`;
    planted.set(escape.name, seconds);
    const sent = await callTool(cli, agent, 'shared_terminal_send', { text: escape.command(seconds) });
    assert.equal(sent.status, 200, escape.name);
  }
  await waitFor(() => [...planted.values()].every((s) => sleepers(s).length === 1), 'every planted program to run');
  return planted;
}

function survivors(planted: Map<string, string>): string[] {
  return [...planted].filter(([, seconds]) => sleepers(seconds).length > 0).map(([name]) => name);
}

function cleanUp(planted: Map<string, string>): void {
  for (const seconds of planted.values()) for (const pid of sleepers(seconds)) process.kill(pid, 'SIGKILL');
}

const linux = process.platform === 'linux';
const cgroups = linux && containmentMode() === 'cgroup';

test(
  'after kill -9 of the server, no planted program survives (cgroup v2)',
  { skip: !cgroups && 'this host gives no cgroup v2 to this user' },
  async () => {
    const cli = await startCli();
    const planted = await plant(cli, 'crash');
    try {
      cli.child.kill('SIGKILL');
      await cli.stop();
      await waitFor(() => survivors(planted).length === 0, 'the planted programs to end');
    } finally {
      cleanUp(planted);
    }
  },
);

test(
  'DELETE ends programs that left the session and cleared their environment (cgroup v2)',
  { skip: !cgroups && 'this host gives no cgroup v2 to this user' },
  async () => {
    const cli = await startCli();
    const planted = await plant(cli, 'gone');
    try {
      const response = await fetch(`${cli.base}/api/agents/gone`, { method: 'DELETE', headers: cli.auth });
      assert.equal(response.status, 200);
      assert.deepEqual(survivors(planted), []);
    } finally {
      cleanUp(planted);
      await cli.stop();
    }
  },
);

test(
  'without cgroups the watchdog ends all but what left the session with a cleared environment, after kill -9',
  { skip: !linux && 'Linux only' },
  async () => {
    const cli = await startCli([], { SHARED_TERMINAL_CGROUP: 'off' });
    const planted = await plant(cli, 'fallback');
    try {
      cli.child.kill('SIGKILL');
      await cli.stop();
      const escaping = ESCAPES.filter((e) => e.leavesSessionAndEnvironment).map((e) => e.name);
      await waitFor(() => survivors(planted).every((name) => escaping.includes(name)), "the watchdog's sweep");
      assert.deepEqual(survivors(planted), escaping, 'the documented gap of the fallback, and nothing else');
    } finally {
      cleanUp(planted);
    }
  },
);
