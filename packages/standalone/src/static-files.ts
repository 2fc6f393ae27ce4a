/**
 * Static files: the pages' own scripts and styles (packages/standalone/assets) and the `<shared-terminal>`
 * bundle (the element package's built ESM files). Only plain file names are served, so no path can climb
 * out of those two folders.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerResponse } from 'node:http';
import { COMMON_HEADERS } from './http-io.ts';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

const SAFE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/** The folder of this package's page assets (the same relative place from src/ and from dist/). */
export const PAGE_ASSETS_DIR = fileURLToPath(new URL('../assets/', import.meta.url));

export interface ElementBundle {
  /** Folder of the element's built files. */
  dir: string;
  /** File name of the ESM entry inside `dir`. */
  entry: string;
}

/**
 * Find the built `<shared-terminal>` bundle: the element package's default (non-source) entry. Returns
 * undefined when the package is missing or not built, so the page can say so instead of failing blankly.
 */
export function findElementBundle(resolve: (specifier: string) => string = (s) => import.meta.resolve(s)): ElementBundle | undefined {
  let url: string;
  try {
    url = resolve('@shared-terminal/element');
  } catch {
    return undefined;
  }
  if (!url.startsWith('file:')) return undefined;
  const file = fileURLToPath(url);
  if (!/\.m?js$/.test(file) || !existsSync(file)) return undefined;
  return { dir: dirname(file), entry: file.slice(dirname(file).length + 1) };
}

/** Serve `name` from `dir` if it is a plain file name of a known type; returns false when not found. */
export function serveFile(res: ServerResponse, dir: string, name: string): boolean {
  if (!SAFE_NAME.test(name)) return false;
  const dot = name.lastIndexOf('.');
  const type = dot === -1 ? undefined : CONTENT_TYPES[name.slice(dot)];
  if (!type) return false;
  const path = join(dir, name);
  try {
    if (!statSync(path).isFile()) return false;
  } catch {
    return false;
  }
  const body = readFileSync(path);
  res.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': type, 'Content-Length': String(body.length) });
  res.end(body);
  return true;
}
