import { defineConfig } from 'tsup';

// Two entries: the engine (Node) and the runtime-free protocol that browsers import.
export default defineConfig({
  entry: { index: 'src/index.ts', protocol: 'src/protocol/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: true, // built declarations for each entry: hosts never type-check our source
  sourcemap: true,
  clean: true,
  external: ['node-pty', '@xterm/headless', '@xterm/addon-serialize', 'ws'],
});
