import { defineConfig } from 'tsup';

// Declarations only (Vite builds the JavaScript): one bundled .d.ts per published entry, so a host's
// TypeScript reads built types under its own settings instead of checking our source. The protocol's types
// are inlined: the bundle carries the protocol's code, so a page installs no server (nor its native PTY).
export default defineConfig({
  entry: { index: 'src/index.ts', react: 'src/react.ts' },
  format: ['esm'],
  dts: { only: true, resolve: ['@shared-terminal/server'] },
  clean: false,
  outDir: 'dist',
  tsconfig: 'tsconfig.dts.json',
});
