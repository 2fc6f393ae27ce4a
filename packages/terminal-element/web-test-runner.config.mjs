// Element tests in the system Chromium (never a downloaded browser). TypeScript is served through esbuild,
// packages resolve through their `source` export condition, and `*.css?inline` imports (Vite's form, used
// for xterm.js's stylesheet) become modules that export the stylesheet's text.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { playwrightLauncher } from '@web/test-runner-playwright';
import { defaultReporter } from '@web/test-runner';
import { chromiumLaunchOptions } from '@shared-terminal/test-support/chromium';

const require = createRequire(import.meta.url);

function cssInline() {
  const prefix = '/__css-inline__/';
  return {
    name: 'css-inline',
    resolveImport({ source, context }) {
      if (!source.endsWith('.css?inline')) return undefined;
      const bare = source.slice(0, -'?inline'.length);
      const file = bare.startsWith('.') ? resolve(dirname(context.path), bare) : require.resolve(bare);
      return `${prefix}${encodeURIComponent(file)}.js`;
    },
    serve(context) {
      if (!context.path.startsWith(prefix)) return undefined;
      const file = decodeURIComponent(context.path.slice(prefix.length, -'.js'.length));
      return { body: `export default ${JSON.stringify(readFileSync(file, 'utf8'))};`, type: 'js' };
    },
  };
}

/** Prints "WTR: N passed, N failed" for scripts/test.mjs's count. */
function countReporter() {
  let passed = 0;
  let failed = 0;
  const walk = (suite) => {
    for (const t of suite.tests) {
      if (t.skipped) continue;
      if (t.passed) passed += 1;
      else failed += 1;
    }
    for (const child of suite.suites) walk(child);
  };
  return {
    onTestRunFinished({ sessions }) {
      for (const session of sessions) {
        if (session.testResults) walk(session.testResults);
        if (!session.passed && (!session.testResults || session.errors?.length)) failed += session.errors?.length || 1;
      }
      console.log(`WTR: ${passed} passed, ${failed} failed`);
    },
  };
}

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: { exportConditions: ['source', 'browser', 'development'] },
  plugins: [cssInline(), esbuildPlugin({ ts: true, target: 'es2022' })],
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: chromiumLaunchOptions(),
      // The clipboard tests read and write the clipboard as a page a person allowed to would.
      createBrowserContext: ({ browser }) => browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] }),
    }),
  ],
  concurrency: 1,
  concurrentBrowsers: 1,
  testFramework: { config: { timeout: 15000 } },
  testsFinishTimeout: 180000,
  reporters: [defaultReporter({ reportTestResults: true, reportTestProgress: false }), countReporter()],
};
