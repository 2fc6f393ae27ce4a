import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';
import type { Options } from 'tsup';

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

const stub = (file: string) => fileURLToPath(new URL(file, import.meta.url));

// Two bundles, both self-contained:
// - lib/index.js, the server half (ESM for DSH's Loader). It bundles the engine, schemastery and ws, and
//   imports nothing from `@deepseek-ai/*`, so it loads the same whether DSH installed the plugin from a
//   directory (a link whose imports resolve from the checkout), a tarball or the registry.
// - lib/client.js, the browser half in DSH's client module format: one classic script that hands a
//   CommonJS-style factory to `window.__ModuleLoader__`; React comes from DSH through `require`.
// Source maps are not shipped: the server half is not minified (its stack traces already name real
// functions and readable lines), and the client's map would be four times the size of the package for a
// debugger view nobody opens in production. `DSH_IT_SOURCEMAP=1 pnpm run build` writes both for debugging.
const sourcemap = process.env['DSH_IT_SOURCEMAP'] === '1';

/** `import css from 'x.css?inline'` (as Vite does it): the stylesheet's text, for the element's shadow root. */
const inlineCss: Plugin = {
  name: 'inline-css',
  setup(build) {
    build.onResolve({ filter: /\.css\?inline$/ }, async (args) => {
      const resolved = await build.resolve(args.path.slice(0, -'?inline'.length), { kind: args.kind, resolveDir: args.resolveDir });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      // The suffix keeps tsup's own CSS handling (which matches paths ending in .css) away from it.
      return { path: `${resolved.path}?inline`, namespace: 'inline-css' };
    });
    build.onLoad({ filter: /.*/, namespace: 'inline-css' }, async (args) => ({
      contents: `export default ${JSON.stringify(await readFile(args.path.slice(0, -'?inline'.length), 'utf8'))};`,
      loader: 'js',
    }));
  },
};

export default defineConfig([
  {
    entry: { index: 'src/server/index.ts' },
    outDir: 'lib',
    format: ['esm'],
    platform: 'node',
    target: 'node22',
    sourcemap,
    clean: false,
    dts: false,
    splitting: false,
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.conditions = ['source'];
      // As Node itself resolves them: xterm's addons are CommonJS under `main` (their `module` build has no
      // default export, which the engine imports).
      options.mainFields = ['main', 'module'];
      options.alias = { 'node-pty': stub('src/server/no-node-pty.ts') };
    },
    // Bundled CommonJS (ws) calls require() for Node's own modules.
    banner: {
      js: "import { createRequire as __dshCreateRequire } from 'node:module'; const require = __dshCreateRequire(import.meta.url);",
    },
  },
  {
    entry: { client: 'src/client/index.ts' },
    outDir: 'lib',
    format: ['cjs'],
    platform: 'browser',
    minify: true,
    target: 'es2022',
    sourcemap,
    clean: false,
    dts: false,
    splitting: false,
    noExternal: [/^(?!react$|react\/jsx-runtime$|react-dom$|react-dom\/client$).*/],
    external: ['react', 'react/jsx-runtime', 'react-dom', 'react-dom/client'],
    outExtension: () => ({ js: '.js' }),
    esbuildPlugins: [inlineCss],
    esbuildOptions(options) {
      options.conditions = ['source'];
      options.legalComments = 'eof';
    },
    banner: {
      js: 'window.__ModuleLoader__.load({ id: "dsh-interactive-terminal", factory: (require) => { var module = { exports: {} }; var exports = module.exports;',
    },
    footer: { js: 'return module.exports; } });' },
  },
]);
