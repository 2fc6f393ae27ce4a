/**
 * Output the server reads late. On a loaded machine this process can be off the CPU while bash wakes
 * from a long wait, prints, draws its prompt and sleeps in its line editor again: the kernel then shows
 * bash at its prompt, after a long quiet, while the output and marks it printed are still unread. A
 * provider that hands each chunk on `lateMs` later stands in for that (the delay cannot be had on demand).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import type { PtyProvider } from '../src/index.ts';
import { overridingProvider } from './helpers/engine.ts';
import { useHub } from './helpers/real-programs.ts';

function lateReaderProvider(lateMs: number): PtyProvider {
  return overridingProvider((handle) => {
    const output = new PassThrough({ decodeStrings: false, encoding: 'utf8' });
    handle.output.on('data', (chunk: string) => setTimeout(() => output.write(chunk), lateMs));
    handle.output.on('end', () => setTimeout(() => output.end(), lateMs));
    const done = handle.done.then((exit) => new Promise<typeof exit>((resolve) => setTimeout(() => resolve(exit), lateMs * 2)));
    return { output, done };
  });
}

describe('engine: output the server reads late', () => {
  const { send } = useHub('late-output', {}, lateReaderProvider(60));

  it('bash back at its prompt after a quiet wait is not reported before what it printed is read', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await send(`read -t 0.3 -n 1 key; echo "after-${i} [$key]"`);
      assert.equal(r.waitReason, 'prompt', JSON.stringify(r));
      assert.match(r.output, new RegExp(`\\nafter-${i} \\[\\]$`));
      assert.equal(r.exitCode, 0);
    }
  });
});
