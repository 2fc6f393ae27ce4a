/**
 * One story = one scenario: a scripted in-page server (the real protocol, no network, no PTY) and a
 * `<shared-terminal>` wired to it. `script` runs once the element is attached, to move the server into the
 * state the story shows.
 */
import '@shared-terminal/element';
import type { SharedTerminalElement } from '@shared-terminal/element';
import { ScriptedServer, type ScriptedServerOptions } from '@shared-terminal/test-support/scripted-server';

export interface Scenario {
  server?: ScriptedServerOptions;
  readonly?: boolean;
  collapsed?: boolean;
  fontSize?: number;
  lang?: string;
  theme?: 'light' | 'dark' | 'auto';
  touch?: boolean;
  script?: (server: ScriptedServer, el: SharedTerminalElement) => void | Promise<void>;
}

const servers = new WeakMap<Element, ScriptedServer>();

/** The scripted server behind a story's element (for play functions). */
export function serverOf(el: Element): ScriptedServer {
  const server = servers.get(el);
  if (!server) throw new Error('this element was not made by renderScenario');
  return server;
}

export function renderScenario(scenario: Scenario): HTMLElement {
  const server = new ScriptedServer(scenario.server);
  const el = document.createElement('shared-terminal');
  servers.set(el, server);
  if (scenario.readonly) el.setAttribute('readonly', '');
  if (scenario.collapsed) el.setAttribute('collapsed', '');
  if (scenario.fontSize) el.setAttribute('font-size', String(scenario.fontSize));
  if (scenario.lang) el.setAttribute('lang', scenario.lang);
  if (scenario.theme) el.setAttribute('theme', scenario.theme);
  el.touchDevice = scenario.touch ?? false;
  el.socketFactory = server.createSocket;
  el.connector = server.connector;
  if (scenario.script) {
    const script = scenario.script;
    let ran = false;
    el.addEventListener('shared-terminal-status', () => {
      if (ran) return;
      ran = true;
      void script(server, el);
    });
  }
  if (scenario.theme !== 'dark') return el;
  const frame = document.createElement('div');
  frame.style.cssText = 'background:#010409;padding:16px;border-radius:8px';
  frame.append(el);
  return frame;
}

/** Find the story's element inside the canvas. */
export function terminalIn(canvasElement: HTMLElement): SharedTerminalElement {
  const el = canvasElement.querySelector('shared-terminal');
  if (!el) throw new Error('no <shared-terminal> in the story');
  return el;
}

/** A query inside the element's shadow root that fails loudly. */
export function part(el: SharedTerminalElement, selector: string): HTMLElement {
  const found = el.shadowRoot?.querySelector<HTMLElement>(selector);
  if (!found) throw new Error(`no ${selector} in <shared-terminal>`);
  return found;
}

export function statusText(el: SharedTerminalElement): string {
  return part(el, '[part="status"]').textContent!.replace(/\s+/g, ' ').trim();
}

const PROMPT = '\x1b[1;32mdev@box\x1b[0m:\x1b[1;34m~/project\x1b[0m$ ';
export const SCREENS = {
  prompt: PROMPT,
  idle:
    `${PROMPT}ls\r\n\x1b[1;34msrc\x1b[0m  \x1b[1;34mtest\x1b[0m  package.json  README.md\r\n` +
    `${PROMPT}echo "你好，世界 🌏 — wide characters line up"\r\n你好，世界 🌏 — wide characters line up\r\n${PROMPT}`,
  python: `${PROMPT}python3 -q\r\n>>> name = input("name? ")\r\nname? `,
  exited: `${PROMPT}exit\r\nexit\r\n`,
  blocked: `${PROMPT}sleep 100000 & wait\r\n^C\r\n`,
};
export { PROMPT };
