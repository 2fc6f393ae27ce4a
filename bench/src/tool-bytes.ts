/**
 * `npm run tool-bytes` (in bench/): what a model pays for in send results. Runs a typical session of 20
 * commands (a small project: files, git, python, node, listings) through `runSend` on a real PTY with the
 * default config, and counts the JSON bytes of each result as it is now, and as it was before viewport
 * rows that the output holds were left out (the same result with its screen rebuilt from viewportOmitted,
 * which is also checked against a read of the screen). Writes bench/tool-bytes.json and this measure's
 * section of REPORT.md (report.ts keeps the section when it rewrites the report).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  TerminalHub,
  createNodePtyProvider,
  rebuildViewport,
  resolveConfig,
  runRead,
  runSend,
  utf8Length,
  type SendResult,
} from '@shared-terminal/server';
import { TOOL_BYTES_FILE, type ToolBytes } from './tool-bytes-report.ts';
import { rewriteSideSections } from './side-sections.ts';

const SESSION = [
  'pwd',
  'ls -la',
  'mkdir -p src && printf \'import sys\\nprint("hello", sys.argv[1:])\\n\' > src/main.py',
  'cat src/main.py',
  'python3 src/main.py a b',
  'python3 -c "print(1)"',
  'git init -q && git add -A && git status --short',
  'echo "$SHELL $TERM"',
  'ls -la /usr/bin | head -n 20',
  'wc -l src/main.py',
  'grep -rn print src',
  'seq 1 50 | tail -n 5',
  'date +%Y',
  'node -e "console.log(process.version)"',
  'for i in 1 2 3; do echo "item $i"; done',
  'head -n 5 /etc/os-release',
  'du -sh src',
  'env | grep -c "^PATH="',
  'python3 -c "import sys; print(sys.version.split()[0])"',
  'ls src',
];

const dir = mkdtempSync(join(tmpdir(), 'bench-tool-bytes-'));
const hub = new TerminalHub({ config: resolveConfig({}), provider: createNodePtyProvider(), cwd: dir });
const commands: ToolBytes['commands'] = [];
try {
  for (const text of SESSION) {
    const result: SendResult = await runSend(hub, 'bytes', { text });
    const screen = rebuildViewport(result.viewport, result.output, result.viewportOmitted);
    const read = await runRead(hub, 'bytes', { count: 1 });
    if (screen !== read.viewport) throw new Error(`the rebuilt screen after ${JSON.stringify(text)} differs from a read of it`);
    const { viewportOmitted: _omitted, ...whole } = { ...result, viewport: screen };
    // Not done, estimated: the rows above this command's own line left out too (the earlier session).
    const compactRows = result.viewport.split('\n');
    const firstLine = result.output.split('\n')[0] ?? '';
    let commandRow = compactRows.length - 1;
    while (commandRow > 0 && !compactRows[commandRow]!.endsWith(firstLine)) commandRow -= 1;
    const aboveLeftOut = { ...result, viewport: compactRows.slice(commandRow).join('\n'), viewportRowsAbove: commandRow };
    commands.push({
      command: text,
      before: utf8Length(JSON.stringify(whole)),
      after: utf8Length(JSON.stringify(result)),
      output: utf8Length(result.output),
      omittedRows: result.viewportOmitted?.count ?? 0,
      withoutRowsAbove: utf8Length(JSON.stringify(aboveLeftOut)),
    });
  }
} finally {
  await hub.disposeAll();
  rmSync(dir, { recursive: true, force: true });
}

const results: ToolBytes = { measuredAt: new Date().toISOString(), config: 'default (40×160)', commands };
const benchDir = new URL('..', import.meta.url);
writeFileSync(new URL(TOOL_BYTES_FILE, benchDir), `${JSON.stringify(results, null, 2)}\n`);
rewriteSideSections(benchDir);
const total = (key: 'before' | 'after') => commands.reduce((sum, c) => sum + c[key], 0);
console.log(`20 sends: ${total('before')} B before, ${total('after')} B after; wrote ${TOOL_BYTES_FILE} and REPORT.md`);
