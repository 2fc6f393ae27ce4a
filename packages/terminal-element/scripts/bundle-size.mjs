// Prints the size of the built bundle, raw and gzip-compressed (the README quotes the gzip number).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const file = new URL('../dist/index.js', import.meta.url);
const raw = readFileSync(file);
const gzip = gzipSync(raw, { level: 9 });
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`dist/index.js: ${kib(raw.length)} raw, ${kib(gzip.length)} gzip`);
