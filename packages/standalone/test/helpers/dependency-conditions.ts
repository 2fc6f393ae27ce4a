/**
 * The tests run with `--conditions=source` so that the workspace packages load from their TypeScript
 * sources. Some registry packages publish a `source` condition too (eventsource-parser, under the MCP SDK's
 * HTTP client), and Node will not strip types under node_modules. A dependency that resolved to its
 * TypeScript source is sent to the `import` (or `default`) target of the same export instead, its
 * published JavaScript. (Node's resolver keeps command-line conditions even when a hook drops them.)
 */
import { readFileSync } from 'node:fs';
import { findPackageJSON, registerHooks } from 'node:module';
import { pathToFileURL } from 'node:url';

type Target = string | { [condition: string]: Target } | null;

function publishedTarget(sourceUrl: string): string | undefined {
  const manifestPath = findPackageJSON(sourceUrl);
  if (!manifestPath) return undefined;
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { exports?: Record<string, Target> };
  const root = pathToFileURL(manifestPath).href.replace(/package\.json$/, '');
  const relative = `./${sourceUrl.slice(root.length)}`;
  for (const entry of Object.values(manifest.exports ?? {})) {
    if (entry && typeof entry === 'object' && entry['source'] === relative) {
      const published = entry['import'] ?? entry['default'];
      if (typeof published === 'string') return new URL(published, root).href;
    }
  }
  return undefined;
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (!resolved.url.includes('/node_modules/') || !/\.[mc]?ts$/.test(resolved.url)) return resolved;
    const published = publishedTarget(resolved.url);
    return published ? { ...resolved, url: published, format: 'module' } : resolved;
  },
});
