/**
 * Sections of REPORT.md that come from measures run on their own (`npm run tool-bytes`, `dsh-lag`,
 * `startup` in bench/), each from its JSON file beside the report. A full bench run rewrites the report and appends
 * them again; a side measure rewrites them all after the main report, so neither loses the other's.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { DSH_LAG_FILE, DSH_LAG_HEADING, dshLagSection, type DshLag } from './dsh-lag-report.ts';
import { STARTUP_FILE, STARTUP_HEADING, startupSection, type Startup } from './startup-report.ts';
import { TOOL_BYTES_FILE, toolBytesSection, type ToolBytes } from './tool-bytes-report.ts';

const TOOL_BYTES_HEADING = '## Tool result size';

interface SideSection {
  file: string;
  heading: string;
  render(results: unknown): string;
}

const SECTIONS: SideSection[] = [
  { file: TOOL_BYTES_FILE, heading: TOOL_BYTES_HEADING, render: (r) => toolBytesSection(r as ToolBytes) },
  { file: DSH_LAG_FILE, heading: DSH_LAG_HEADING, render: (r) => dshLagSection(r as DshLag) },
  { file: STARTUP_FILE, heading: STARTUP_HEADING, render: (r) => startupSection(r as Startup) },
];

/** Every side section whose measure has run, in a fixed order. */
export function sideSectionsFrom(dir: URL): string {
  return SECTIONS.map((section) => {
    const file = new URL(section.file, dir);
    return existsSync(file) ? `\n${section.render(JSON.parse(readFileSync(file, 'utf8')))}` : '';
  }).join('');
}

/** REPORT.md with its side sections replaced by the current ones. */
export function rewriteSideSections(dir: URL): void {
  const reportUrl = new URL('REPORT.md', dir);
  const report = readFileSync(reportUrl, 'utf8');
  const starts = SECTIONS.map((s) => report.indexOf(`\n${s.heading}`)).filter((at) => at >= 0);
  const main = starts.length === 0 ? report : report.slice(0, Math.min(...starts));
  writeFileSync(reportUrl, `${main.trimEnd()}\n${sideSectionsFrom(dir)}`);
}
