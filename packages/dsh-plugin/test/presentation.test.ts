/**
 * What DSH does with our tool results, without DSH: the cap against DSH's spill-policy inline limit (read
 * from the Loader's entries), and the terminal / generic cards DSH Web draws from presentCall and
 * presentResult.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BaseResult } from '@shared-terminal/server';
import { presentCall, presentResult, waitNote } from '../src/server/cards.ts';
import { effectiveResultCap, inlineLimitOf, SPILL_POLICY_MODULE } from '../src/server/inline-limit.ts';
import { capResult } from '../src/server/tools.ts';

const base: BaseResult = {
  generation: 1,
  sequence: 9,
  rows: 40,
  cols: 160,
  viewport: 'user@host:~$ seq 1 300000\n299999\n300000\n~$',
  cursor: { x: 2, y: 3 },
  status: { kind: 'running' },
  queueStatus: 'ready',
  holder: null,
  pendingCount: 0,
  truncated: false,
};

function seq(to: number): string {
  const lines: string[] = [];
  for (let i = 1; i <= to; i++) lines.push(String(i));
  return lines.join('\n');
}

describe('DSH inline limit', () => {
  const entry = (name: string, config: unknown, extra: Record<string, unknown> = {}) => ({ options: { name, config }, ...extra });

  it('is read from the enabled spill-policy rows of the Loader (live config first, smallest wins)', () => {
    const loader = {
      *entries() {
        yield entry('@deepseek-ai/dsh-base', { maxInlineBytes: 1 });
        yield entry(SPILL_POLICY_MODULE, { maxInlineBytes: 90000 }, { fiber: { config: { maxInlineBytes: 50000 } } });
        yield entry(SPILL_POLICY_MODULE, { maxInlineBytes: 70000 });
        yield entry(SPILL_POLICY_MODULE, { maxInlineBytes: 10 }, { disabled: true });
      },
    };
    assert.equal(inlineLimitOf(loader), 50000);
  });

  it('is absent without a Loader or a spill-policy row, or when the row sets no limit', () => {
    assert.equal(inlineLimitOf(undefined), undefined);
    assert.equal(inlineLimitOf({ *entries() {} }), undefined);
    assert.equal(
      inlineLimitOf({
        *entries() {
          yield entry(SPILL_POLICY_MODULE, {});
        },
      }),
      undefined,
    );
  });

  it('the effective cap is the smaller of maxToolOutputBytes and the inline limit', () => {
    assert.equal(effectiveResultCap(262144, 50000), 50000);
    assert.equal(effectiveResultCap(8192, 50000), 8192);
    assert.equal(effectiveResultCap(8192, undefined), 8192);
  });

  it('a send result over the limit arrives whole: parseable JSON within the limit, newest output kept, truncated', () => {
    const big = { ...base, output: seq(300000), queueTimeMs: 0, waitReason: 'prompt', exitCode: 0 } as BaseResult;
    const capped = capResult(big, 262144, 50000);
    const text = JSON.stringify(capped);
    assert.ok(Buffer.byteLength(text) <= 50000, `${Buffer.byteLength(text)} bytes`);
    const parsed = JSON.parse(text) as { output: string; truncated: boolean };
    assert.equal(parsed.truncated, true);
    assert.match(parsed.output, /\n300000$/);
    // Under the limit nothing changes.
    const small = { ...base, output: 'hi', queueTimeMs: 0, waitReason: 'prompt' } as BaseResult;
    assert.deepEqual(capResult(small, 262144, 50000), small);
  });

  it('a read page cut by the limit keeps whole lines and moves lineBegin to the first one kept', () => {
    const text = seq(20000);
    const read = { ...base, text, totalLines: 20000, lineBegin: 0, lineEnd: 20000 } as BaseResult;
    const capped = capResult(read, 262144, 20000) as BaseResult & { text: string; lineBegin: number; lineEnd: number };
    assert.ok(Buffer.byteLength(JSON.stringify(capped)) <= 20000);
    const lines = capped.text.split('\n');
    assert.equal(capped.lineEnd - capped.lineBegin, lines.length);
    assert.equal(lines[0], String(capped.lineBegin + 1), 'the first line kept is whole and numbered as lineBegin says');
    assert.equal(lines.at(-1), '20000');
  });

  it('a limit too small for the metadata is a clear error, never a cut document', () => {
    assert.throws(() => capResult({ ...base, output: 'x' } as BaseResult, 262144, 100), /maxInlineBytes/);
  });
});

const content = (value: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(value) }], isError: false });

describe('cards', () => {
  it('send is a terminal card: the command, its output and exit code', () => {
    assert.deepEqual(presentCall('shared_terminal_send', { text: 'ls -l' }), { card: 'terminal', title: 'ls -l' });
    const view = presentResult(
      'shared_terminal_send',
      { text: 'ls -l' },
      content({ ...base, output: 'a\nb', waitReason: 'prompt', exitCode: 2 }),
    );
    assert.deepEqual(view, { card: 'terminal', output: 'a\nb', exitCode: 2 });
  });

  it('says why a send returned when it was not the prompt', () => {
    const view = presentResult(
      'shared_terminal_send',
      {},
      content({ ...base, output: 'first? ', waitReason: 'stdin_read', inputWait: { command: 'read', secret: false, processGroupId: 5 } }),
    );
    assert.deepEqual(view, { card: 'terminal', output: 'first? \n[read is waiting for input]' });
    assert.match(waitNote({ waitReason: 'human_handoff' }) ?? '', /took over/);
    assert.match(waitNote({ waitReason: 'timeout' }) ?? '', /SIGINT.*may still be running/);
    assert.equal(waitNote({ waitReason: 'timeout', exitCode: 130 }), '[timed out: SIGINT was sent; the prompt is back]');
    const interrupted = { waitReason: 'timeout', inputWait: { command: 'python3', secret: false, processGroupId: 7 } };
    assert.equal(waitNote(interrupted), '[timed out: SIGINT was sent; python3 is waiting for input]');
    assert.equal(waitNote({ ...interrupted, waitReason: 'cancelled' }), '[cancelled; python3 is waiting for input]');
    assert.equal(waitNote({ waitReason: 'prompt' }), undefined);
    const busy = { waitReason: 'stdin_read', inputWait: { command: 'python3', secret: false, processGroupId: 5, busy: true } };
    assert.equal(waitNote(busy), '[python3 is waiting for input, still working]');
    const typed = { waitReason: 'stdin_read', inputWait: { command: 'bash', secret: false, processGroupId: 5, unsubmitted: true } };
    assert.equal(waitNote(typed), '[the typed line waits at the prompt, not yet submitted]');
  });

  it('signal is a terminal card too; read and reset get compact cards of their own (the screen, the new generation)', () => {
    assert.equal(presentCall('shared_terminal_signal', { signal: 'SIGINT' })?.card, 'terminal');
    assert.deepEqual(presentCall('shared_terminal_read', {}), {
      card: 'terminal',
      title: 'shared_terminal_read',
      description: "Read the shared terminal's screen",
    });
    const read = presentResult('shared_terminal_read', {}, content({ ...base, text: 'x', totalLines: 9, lineBegin: 4, lineEnd: 9 }));
    assert.deepEqual(read, { card: 'terminal', output: `[history lines 4–9 of 9 returned to the model; the screen:]\n${base.viewport}` });
    assert.equal(presentCall('shared_terminal_reset', {})?.card, 'terminal');
    const reset = presentResult('shared_terminal_reset', {}, content({ ...base, generation: 3, queueTimeMs: 1, waitReason: 'prompt' }));
    assert.match(String(reset && 'output' in reset ? reset.output : ''), /generation 3/);
    assert.doesNotMatch(JSON.stringify(reset), /queueStatus/);
  });

  it("falls back to DSH's plain card for errors, foreign text and malformed arguments", () => {
    assert.equal(presentResult('shared_terminal_send', {}, { content: [{ type: 'text', text: 'boom' }], isError: true }), undefined);
    assert.equal(presentResult('shared_terminal_send', {}, { content: [{ type: 'text', text: '{"cut' }], isError: false }), undefined);
    assert.equal(presentCall('shared_terminal_send', { text: 3 }), undefined);
    assert.equal(presentCall('shared_terminal_send', null), undefined);
  });
});
