/**
 * The REPORT.md section of the tool-bytes measure (tool-bytes.ts), from bench/tool-bytes.json (see
 * side-sections.ts).
 */
export const TOOL_BYTES_FILE = 'tool-bytes.json';

export interface ToolBytes {
  measuredAt: string;
  config: string;
  /** withoutRowsAbove: an estimate of a cut not made (see the section). */
  commands: Array<{ command: string; before: number; after: number; output: number; omittedRows: number; withoutRowsAbove: number }>;
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

export function toolBytesSection(results: ToolBytes): string {
  const before = results.commands.reduce((sum, c) => sum + c.before, 0);
  const after = results.commands.reduce((sum, c) => sum + c.after, 0);
  const output = results.commands.reduce((sum, c) => sum + c.output, 0);
  const compacted = results.commands.filter((c) => c.omittedRows > 0);
  const aboveless = results.commands.reduce((sum, c) => sum + c.withoutRowsAbove, 0);
  const one = results.commands.find((c) => c.command === 'python3 -c "print(1)"');
  const saved = before === 0 ? 0 : Math.round((1 - after / before) * 100);
  const lines = [
    '## Tool result size: a session of 20 sends',
    '',
    `Measured by \`npm run tool-bytes\` (bench/src/tool-bytes.ts) on ${results.measuredAt}, config ${results.config}: 20 typical commands ` +
      '(files, git, python, node, listings) through `runSend` on a real PTY; the JSON bytes of each result, before and after send ' +
      'and signal results left out the viewport rows that `output` already holds (`viewportOmitted {row, count}` says where they go; ' +
      'the script rebuilds each screen from it and checks it against a read). Trailing blank rows were already left out before.',
    '',
    '| | before | after |',
    '|---|---:|---:|',
    `| 20 send results | ${before} B (${kib(before)}) | ${after} B (${kib(after)}), −${saved}% |`,
  ];
  if (one) lines.push(`| \`python3 -c "print(1)"\` (6th command) | ${one.before} B | ${one.after} B |`);
  lines.push(
    '',
    `Output itself is ${output} B of it. ${compacted.length} of 20 results had rows left out (${compacted.reduce((s, c) => s + c.omittedRows, 0)} rows in all). ` +
      'What is left is mostly the screen rows above the command (earlier commands, which the model saw in earlier results, or the ' +
      "person's own typing, which it did not) and the fixed fields; a one-line output saves nothing, because its row costs less than " +
      "the field. Leaving out the rows above the command's own line as well would bring the session to " +
      `${aboveless} B (−${before === 0 ? 0 : Math.round((1 - aboveless / before) * 100)}%; estimated by the script, not done): the screen could then ` +
      'no longer be rebuilt from the result alone, and those rows carry what the person typed in between, so it needs the owner ' +
      "to know that nothing but the model wrote since its last result (and a decision on the product description's viewport field).",
    '',
  );
  return lines.join('\n');
}
