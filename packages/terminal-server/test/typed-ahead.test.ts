/**
 * Lines typed ahead of bash: a multi-line send ends at its last prompt even when the kernel hands the
 * lines to bash in parts (seen on a loaded machine: bash ran the first lines, drew a prompt and slept in
 * its line editor with the rest not yet readable). The ledger's rules with a counted clock, then the
 * engine with real bash on a PTY whose writes arrive in two parts, as that hand-over does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PtyProvider } from '../src/index.ts';
import { TYPED_AHEAD_GRACE_MS, TypedAheadLedger } from '../src/terminal/typed-ahead.ts';
import { overridingProvider } from './helpers/engine.ts';
import { useHub } from './helpers/real-programs.ts';

function ledgerAt(start: number) {
  const shell = { read: start };
  return { shell, ledger: new TypedAheadLedger(() => shell.read) };
}

describe('typed-ahead ledger', () => {
  it('owes nothing for a single line, and holds lines typed ahead until bash has read their bytes', () => {
    const { shell, ledger } = ledgerAt(1000);
    ledger.writing('echo one\r', 0);
    assert.equal(ledger.look(1), 'clear');
    ledger.writing('echo é\necho two\r', 10); // 17 bytes: é is two
    shell.read += 8;
    assert.equal(ledger.look(11), 'owed');
    shell.read += 8;
    assert.equal(ledger.look(12), 'owed');
    shell.read += 1;
    assert.equal(ledger.look(13), 'read');
    assert.equal(ledger.look(14), 'read', 'read stays until a prompt is confirmed with nothing in flight');
    ledger.confirmed();
    assert.equal(ledger.look(15), 'clear');
  });

  it('counts a later write into the same shortfall', () => {
    const { shell, ledger } = ledgerAt(0);
    ledger.writing('a\nb\r', 0);
    ledger.writing('c\r', 1);
    shell.read = 4;
    assert.equal(ledger.look(2), 'owed');
    shell.read = 6;
    assert.equal(ledger.look(3), 'read');
    ledger.writing('echo next\r', 4);
    assert.equal(ledger.look(5), 'clear', 'a new single line starts afresh');
  });

  it('lets a shortfall go once it has stood still for the grace, and restarts the grace when bytes are read', () => {
    const { shell, ledger } = ledgerAt(0);
    ledger.writing('python3\nprint(1)\nexit()\r', 0);
    shell.read = 8; // bash read `python3`; python took the rest
    assert.equal(ledger.look(100), 'owed');
    assert.equal(ledger.look(100 + TYPED_AHEAD_GRACE_MS - 1), 'owed');
    shell.read = 9;
    assert.equal(ledger.look(100 + TYPED_AHEAD_GRACE_MS), 'owed', 'a byte read is progress: the grace starts again');
    assert.equal(ledger.look(100 + 2 * TYPED_AHEAD_GRACE_MS), 'clear');
  });

  it('trusts no count for input the line discipline may act on, nor when the count cannot be read', () => {
    const { ledger } = ledgerAt(0);
    ledger.writing('sleep 5\nCtrl-C follows\r', 0);
    ledger.writing('\x03', 1);
    assert.equal(ledger.look(2), 'clear');
    const unknown = new TypedAheadLedger(() => undefined);
    unknown.writing('a\nb\r', 0);
    assert.equal(unknown.look(1), 'clear');
  });
});

/** Real bash on a PTY whose multi-line writes arrive in two parts: the first line now, the rest
 *  `lateMs` later (the hand-over the kernel's worker was seen to make under load). */
function lateHandOverProvider(lateMs: number): PtyProvider {
  return overridingProvider((handle) => ({
    write(data: string) {
      const cut = data.search(/[\r\n]/) + 1;
      if (cut <= 0 || cut === data.length) return handle.write(data);
      const late = data.slice(cut);
      setTimeout(() => void handle.write(late), lateMs);
      return handle.write(data.slice(0, cut));
    },
  }));
}

describe('engine: lines typed ahead that reach bash late', () => {
  const { send } = useHub('late', {}, lateHandOverProvider(100));

  // With the second part 100 ms late, bash reads it, runs it and sleeps at its last prompt, maybe before
  // the server has read that output: the earlier prompt mark must not be taken for the last one.
  it('a multi-line send ends at its last prompt, with every line run', async () => {
    for (let i = 0; i < 6; i++) {
      const r = await send(`echo first-${i}\necho second-${i}\necho third-${i}`);
      assert.equal(r.waitReason, 'prompt');
      assert.match(r.output, new RegExp(`first-${i}\\n[\\s\\S]*second-${i}\\n[\\s\\S]*third-${i}$`));
    }
    // Nothing of the send runs after it: the next send's output is its own.
    const next = await send('echo after');
    assert.match(next.output, /^echo after\nafter$/);
  });
});
