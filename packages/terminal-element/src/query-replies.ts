/**
 * Terminal queries are answered once, by the server's emulator. The browser's xterm.js would answer them
 * too (through `onData`, the same channel as keys), and those replies would either reach the shell twice or
 * turn up later as typed garbage. So the renderer is told to treat every query as handled: it then
 * generates no reply at all. Real keys, pastes and IME text never pass through these parser hooks, so they
 * are kept whatever they look like.
 */
import type { IDisposable, Terminal } from '@xterm/xterm';

/** OSC colour numbers whose `?` form is a query (palette, foreground, background, cursor). */
const COLOUR_QUERIES = [4, 10, 11, 12];

export function silenceQueryReplies(term: Terminal): IDisposable {
  const hooks: IDisposable[] = [];
  const swallow = (): boolean => true;
  const parser = term.parser;
  // DA1, DA2 (device attributes), DSR/CPR (status and cursor reports), DECRQM (mode reports),
  // XTWINOPS (window reports; also title stack ops, which the server's emulator owns anyway).
  hooks.push(parser.registerCsiHandler({ final: 'c' }, swallow));
  hooks.push(parser.registerCsiHandler({ prefix: '>', final: 'c' }, swallow));
  hooks.push(parser.registerCsiHandler({ prefix: '=', final: 'c' }, swallow));
  hooks.push(parser.registerCsiHandler({ final: 'n' }, swallow));
  hooks.push(parser.registerCsiHandler({ prefix: '?', final: 'n' }, swallow));
  hooks.push(parser.registerCsiHandler({ intermediates: '$', final: 'p' }, swallow));
  hooks.push(parser.registerCsiHandler({ prefix: '?', intermediates: '$', final: 'p' }, swallow));
  hooks.push(parser.registerCsiHandler({ final: 't' }, swallow));
  hooks.push(parser.registerCsiHandler({ prefix: '>', final: 'q' }, swallow));
  // DECRQSS (request status string).
  hooks.push(parser.registerDcsHandler({ intermediates: '$', final: 'q' }, swallow));
  // OSC colour queries; setting a colour (no `?`) still reaches the renderer.
  for (const ident of COLOUR_QUERIES) hooks.push(parser.registerOscHandler(ident, (data) => data.includes('?')));
  return { dispose: () => hooks.forEach((hook) => hook.dispose()) };
}

/** Focus reports (`CSI I` / `CSI O`, mode 1004) come from the renderer, not from a person. */
export function isFocusReport(data: string): boolean {
  return data === '\x1b[I' || data === '\x1b[O';
}
