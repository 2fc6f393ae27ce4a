// Measures the built bundle, raw and gzip-compressed, prints both and writes them into the README's
// "Bundle" line, so the number there is always the one the last build measured.
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const file = new URL('../dist/index.js', import.meta.url);
const readme = new URL('../README.md', import.meta.url);
const raw = readFileSync(file);
const gzip = gzipSync(raw, { level: 9 });
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const figures = `**${kib(raw.length)} raw, ${kib(gzip.length)} gzip**`;
console.log(`dist/index.js: ${kib(raw.length)} raw, ${kib(gzip.length)} gzip`);

const text = readFileSync(readme, 'utf8');
const pattern = /\*\*[\d.]+ KiB raw, [\d.]+ KiB gzip\*\*/;
if (!pattern.test(text)) {
  console.error('README.md has no "**N KiB raw, N KiB gzip**" to update');
  process.exit(1);
}
const next = text.replace(pattern, figures);
if (next !== text) writeFileSync(readme, next);
