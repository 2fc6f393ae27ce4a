import { defineConfig } from 'tsup';

// The CLI (bin) and the library entry (createStandaloneServer for other Node hosts and tests).
export default defineConfig({
  entry: { cli: 'src/cli.ts', index: 'src/index.ts' },
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  dts: { entry: { index: 'src/index.ts' } }, // built declarations for the library entry (the CLI needs none)
  sourcemap: true,
  clean: true,
  banner: { js: '#!/usr/bin/env node' },
});
