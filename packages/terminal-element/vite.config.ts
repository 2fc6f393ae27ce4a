import { defineConfig } from 'vite';

// One ESM bundle with lit, xterm.js, the unicode11 addon and xterm's CSS inside: the standalone server and
// the DSH plugin load dist/index.js as it is.
export default defineConfig({
  resolve: { conditions: ['source'] },
  build: {
    lib: { entry: 'src/index.ts', formats: ['es'], fileName: () => 'index.js' },
    target: 'es2022',
    sourcemap: true,
    minify: true,
    emptyOutDir: true,
  },
});
