/**
 * The interrupt's follow (hub/interrupt.ts) against a scripted foreground: the race it covers, a SIGINT
 * taken by bash's fork in the instant before it execs the program, cannot be produced on demand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FrontSignals, interruptForeground } from '../src/hub/interrupt.ts';
import { waitFor } from './helpers/engine.ts';

const SHELL = 100;

/** A generation whose foreground goes through `fronts` (the last one stays), recording the kills. */
function scripted(first: { group: number; command: string }, fronts: Array<{ group: number; command: string }>) {
  const kills: number[] = [];
  let index = 0;
  let current = first;
  const generation: FrontSignals = {
    status: { kind: 'running' },
    pid: SHELL,
    async signalForeground() {
      return first.group;
    },
    // A kill goes to the group in front at that moment: the one the last look saw.
    async killForeground() {
      kills.push(current.group);
      return current.group;
    },
    async foregroundFront() {
      current = index === 0 ? first : fronts[Math.min(index - 1, fronts.length - 1)]!;
      index += 1;
      return current;
    },
  };
  return { generation, kills };
}

describe('the interrupt follows the foreground', () => {
  it('signals again a group that was still bash when typed to and has become the program since', async () => {
    // `sleep 600` forked: the Ctrl-C lands while its process still runs bash's code, which takes it.
    const { generation, kills } = scripted({ group: 200, command: 'bash' }, [
      { group: 200, command: 'bash' },
      { group: 200, command: 'sleep' },
    ]);
    let holding = true;
    await interruptForeground(generation, () => holding, 1);
    await waitFor(() => kills.length > 0, 'a second SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 30));
    holding = false;
    assert.deepEqual(kills, [200], 'once, to the program it became');
  });

  it('leaves alone a program that took the SIGINT and stays in front (a REPL, an editor)', async () => {
    const { generation, kills } = scripted({ group: 300, command: 'python3' }, [{ group: 300, command: 'python3' }]);
    let holding = true;
    await interruptForeground(generation, () => holding, 1);
    await new Promise((resolve) => setTimeout(resolve, 40));
    holding = false;
    assert.deepEqual(kills, []);
  });

  it('signals each new group that comes to the front (a loop of short programs)', async () => {
    const { generation, kills } = scripted({ group: 400, command: 'cat' }, [
      { group: 401, command: 'cat' },
      { group: SHELL, command: 'bash' },
    ]);
    let holding = true;
    await interruptForeground(generation, () => holding, 1);
    await waitFor(() => kills.length > 0, 'the next group signalled');
    await new Promise((resolve) => setTimeout(resolve, 30));
    holding = false;
    assert.deepEqual(kills, [401]);
  });
});
