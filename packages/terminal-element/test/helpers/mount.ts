// Mounting <shared-terminal> on the scripted server for the browser tests, and reading its shadow DOM.
import '../../src/index.ts';
import type { SharedTerminalElement } from '../../src/shared-terminal.ts';
import { ScriptedServer, type ScriptedServerOptions } from '@shared-terminal/test-support/scripted-server';
import { ok, until } from './assert.ts';

export interface Mounted {
  el: SharedTerminalElement;
  server: ScriptedServer;
  events: Array<{ type: string; detail: unknown }>;
}

export const EVENT_TYPES = ['connection', 'role', 'status', 'lease', 'notice', 'generation', 'toggle', 'font-size'].map(
  (t) => `shared-terminal-${t}`,
);

export async function mount(
  serverOptions: ScriptedServerOptions = {},
  attrs: Record<string, string> = {},
  parent: HTMLElement = document.body,
): Promise<Mounted> {
  const server = new ScriptedServer(serverOptions);
  const el = document.createElement('shared-terminal');
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.touchDevice = false;
  el.socketFactory = server.createSocket;
  el.connector = server.connector;
  const events: Mounted['events'] = [];
  for (const type of EVENT_TYPES) el.addEventListener(type, (e) => events.push({ type, detail: (e as CustomEvent).detail }));
  parent.append(el);
  if (!el.collapsed) await until(() => el.renderer && el.connectionState === 'connected' && el.status, 'connected with a renderer');
  return { el, server, events };
}

export function shadow(el: SharedTerminalElement, selector: string): HTMLElement {
  const found = el.shadowRoot!.querySelector<HTMLElement>(selector);
  ok(found, `no ${selector}`);
  return found;
}

/** Wait until the renderer parsed everything the server sent (the view acked the last sequence). */
export async function parsedAll(m: Mounted): Promise<void> {
  await until(() => m.server.framesOfType('ack').some((a) => a.sequence === m.server.sequence), `ack of ${m.server.sequence}`);
}

export function screenText(el: SharedTerminalElement): string {
  const buffer = el.renderer!.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) lines.push(buffer.getLine(i)!.translateToString(true));
  return lines.join('\n');
}

export async function nextFrames(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => requestAnimationFrame(resolve));
}
