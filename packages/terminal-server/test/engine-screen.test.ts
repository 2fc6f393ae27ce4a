/**
 * Issue 2: the screen answers terminal queries exactly once; the shell's environment; snapshots rebuild
 * the screen; lazy creation is shared; a user's own PS1 still ends operations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import headless from '@xterm/headless';
import { rebuildViewport, runRead, runReset, runSend } from '../src/index.ts';
import { makeHub, recordingProvider, type TestHub } from './helpers/engine.ts';

describe('engine: screen and shell environment', () => {
  let t: TestHub;
  const provider = recordingProvider();
  before(() => {
    t = makeHub({}, provider);
  });
  after(() => t.close());
  const send = (text: string, submit = true) => runSend(t.hub, 'screen', { text, submit });

  it('a cursor position query gets exactly one answer, from the server emulator', async () => {
    const r = await send(
      `printf 'ab\\033[6n'; IFS= read -rs -d R -t 2 reply; extra=; IFS= read -rs -t 0.3 -n 1 extra; echo; echo "cpr=\${reply#*[} extra=[\${extra}]"`,
    );
    assert.match(r.output, /cpr=\d+;3 extra=\[\]$/);
  });

  it('a device attributes query gets exactly one answer', async () => {
    const r = await send(
      `printf '\\033[c'; IFS= read -rs -d c -t 2 da; extra=; IFS= read -rs -t 0.3 -n 1 extra; echo "da=\${#da} extra=[\${extra}]"`,
    );
    assert.match(r.output, /da=[1-9]\d* extra=\[\]$/);
  });

  it('TERM, PAGER and GIT_PAGER are set for a non-interactive-friendly shell; the size is fixed', async () => {
    const r = await send('echo "$TERM|$PAGER|$GIT_PAGER|$(stty size)"');
    assert.match(r.output, /xterm-256color\|cat\|cat\|40 160$/);
  });

  it('a snapshot rebuilds the same screen in a fresh emulator', async () => {
    await send("printf '\\033[31mred\\033[0m and \\033[1mbold\\033[0m\\n'; seq 1 50");
    const generation = t.hub.get('screen')!.generation!;
    const snapshot = await generation.snapshot();
    const replica = new headless.Terminal({ rows: snapshot.rows, cols: snapshot.cols, scrollback: 10000, allowProposedApi: true });
    await new Promise<void>((resolve) => replica.write(snapshot.replay, resolve));
    const lines: string[] = [];
    const buffer = replica.buffer.active;
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)!.translateToString(true));
    assert.equal(lines.join('\n').replace(/\n+$/, ''), (await generation.allText()).replace(/\n+$/, ''));
    assert.equal(snapshot.truncated, false);
    replica.dispose();
  });

  it("a send's viewport leaves out the rows its output holds, and they rebuild the screen", async () => {
    const r = await send('seq 101 130');
    assert.ok(r.viewportOmitted && r.viewportOmitted.count >= 30, JSON.stringify(r.viewportOmitted));
    assert.doesNotMatch(r.viewport, /^115$/m);
    const read = await runRead(t.hub, 'screen', { count: 1 });
    assert.equal(rebuildViewport(r.viewport, r.output, r.viewportOmitted), read.viewport);
    assert.equal('viewportOmitted' in read, false, 'a read keeps the whole screen');
  });

  it('read pages history from the newest end', async () => {
    await send('seq 1 200');
    const page = await runRead(t.hub, 'screen', { offset: 0, count: 5 });
    assert.equal(page.lineEnd, page.totalLines);
    assert.equal(page.lineBegin, page.totalLines - 5);
    assert.equal(page.text.split('\n').length, 5);
    const older = await runRead(t.hub, 'screen', { offset: 5, count: 5 });
    assert.equal(older.lineEnd, page.lineBegin);
    assert.match(older.viewport, /200/);
  });

  it("a user's own PS1 (no prompt-drawn marker) still ends operations", async () => {
    await send("PS1='custom> '");
    const r = await send('echo with-custom-prompt');
    assert.equal(r.waitReason, 'prompt');
    assert.match(r.output, /with-custom-prompt/);
    assert.equal(r.exitCode, 0);
  });

  it('a prompt of wide characters is cut by its columns: output, a typed line and its erasure read right', async () => {
    // 日本 takes four columns and two places in the row's text: positions are columns, texts strings.
    await send("PS1='日本 \\$ '");
    assert.equal((await send('echo 漢字 fine')).output, 'echo 漢字 fine\n漢字 fine');
    const typed = await send('echo 漢字 typed', false);
    assert.equal(typed.waitReason, 'stdin_read');
    assert.equal(typed.inputWait?.unsubmitted, true);
    assert.equal(typed.output, 'echo 漢字 typed');
    assert.equal((await send('\u0015', false)).waitReason, 'prompt', 'the typed line erased');
    // Output without a final newline: the prompt drawn after it is not output.
    assert.equal((await send('printf 中文')).output, 'printf 中文\n中文');
    await send("PS1='\\$ '");
  });
});

describe('engine: hub', () => {
  it('a reset before any shell exists starts generation 1', async () => {
    const t = makeHub();
    try {
      const reset = await runReset(t.hub, 'fresh', {});
      assert.equal(reset.generation, 1);
      assert.equal(reset.waitReason, 'prompt');
      assert.equal((await runSend(t.hub, 'fresh', { text: 'echo one' })).generation, 1);
    } finally {
      await t.close();
    }
  });

  it('concurrent first calls share one shell; events tell transports about owners', async () => {
    const provider = recordingProvider();
    const t = makeHub({}, provider);
    const created: string[] = [];
    const disposed: string[] = [];
    t.hub.on('created', (owner) => created.push(owner.ownerId));
    t.hub.on('disposed', (id) => disposed.push(id));
    try {
      const [a, b, c] = await Promise.all([
        runSend(t.hub, 'lazy', { text: 'echo one' }),
        runRead(t.hub, 'lazy', {}),
        runSend(t.hub, 'lazy', { text: 'echo two' }),
      ]);
      assert.equal(a.generation, 1);
      assert.equal(b.generation, 1);
      assert.equal(c.generation, 1);
      assert.equal(provider.writes.filter((w) => /^[A-Za-z0-9_-]{24}\r$/.test(w)).length, 1, 'more than one shell was spawned');
      assert.deepEqual(created, ['lazy']);
      await t.hub.dispose('lazy');
      assert.deepEqual(disposed, ['lazy']);
    } finally {
      await t.close();
    }
  });
});
