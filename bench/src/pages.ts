/** Opening the product's and the baseline's pages in Chromium, with the probe attached to the renderer. */
import type { Browser, Page } from 'playwright-core';
import { installProbe, type ProbeState } from './probe.ts';

export type System = 'product' | 'baseline';

const VIEWPORT = { width: 1400, height: 900 };

interface RendererLike {
  buffer: { active: { getLine(y: number): { translateToString(trim?: boolean): string } | undefined; length: number } };
}
/** What the bench reads of `<shared-terminal>` (its public read-outs and `reconnect()`). */
export interface ElementLike extends HTMLElement {
  renderer: RendererLike | null;
  connectionState: string;
  role: string | null;
  lease: { state: string };
  reconnect(): void;
}

interface BenchWindow {
  __bench: ProbeState & { attach(term: unknown): void };
  term?: RendererLike;
}

async function newPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  await page.addInitScript(installProbe);
  return page;
}

/** The product's page for `owner`, connected as controller, at a prompt, probe attached. */
export async function openProduct(browser: Browser, baseUrl: string, owner: string): Promise<Page> {
  const page = await newPage(browser);
  await page.goto(`${baseUrl}?owner=${encodeURIComponent(owner)}`);
  await page.waitForFunction(
    () => {
      const el = document.querySelector<ElementLike>('shared-terminal');
      const term = el?.renderer;
      if (!el || !term || el.connectionState !== 'connected' || el.role !== 'controller') return false;
      const buffer = term.buffer.active;
      for (let y = 0; y < buffer.length; y++) if (/[$#] ?$/.test(buffer.getLine(y)?.translateToString(true) ?? '')) return true;
      return false;
    },
    undefined,
    { timeout: 30_000, polling: 50 },
  );
  await page.evaluate(() => {
    const w = window as unknown as BenchWindow;
    w.__bench.attach(document.querySelector<ElementLike>('shared-terminal')!.renderer);
  });
  return page;
}

/** The baseline's page for terminal `id`, connected, at a prompt, probe attached. */
export async function openBaseline(browser: Browser, baseUrl: string, id: string): Promise<Page> {
  const page = await newPage(browser);
  page.on('pageerror', (error) => console.error(`baseline page error: ${error.message}`));
  await page.goto(`${baseUrl}?term=${encodeURIComponent(id)}`);
  await page
    .waitForFunction(
      () => {
        const term = (window as unknown as BenchWindow).term;
        if (!term) return false;
        const buffer = term.buffer.active;
        for (let y = 0; y < buffer.length; y++) if (/[$#] ?$/.test(buffer.getLine(y)?.translateToString(true) ?? '')) return true;
        return false;
      },
      undefined,
      { timeout: 30_000, polling: 50 },
    )
    .catch(async (error: Error) => {
      const seen = await page.evaluate(() => {
        const term = (window as unknown as BenchWindow).term;
        const lines: string[] = [];
        if (term)
          for (let y = 0; y < term.buffer.active.length; y++) lines.push(term.buffer.active.getLine(y)?.translateToString(true) ?? '');
        return { hasTerm: !!term, text: lines.filter(Boolean).join('\n') };
      });
      throw new Error(`the baseline page showed no prompt: ${JSON.stringify(seen)} (${error.message})`);
    });
  await page.evaluate(() => {
    const w = window as unknown as BenchWindow;
    w.__bench.attach(w.term);
  });
  return page;
}

/** Focus the renderer so that keys go to xterm's textarea. */
export async function focusTerminal(page: Page, system: System): Promise<void> {
  // The product's renderer on screen (a staged one, parsing a snapshot off screen, may exist beside it).
  await page.locator(system === 'product' ? 'shared-terminal .renderer:not(.staged) .xterm-screen' : '#terminal .xterm-screen').click();
}

export function probe<T>(page: Page, read: (state: ProbeState) => T): Promise<T> {
  return page.evaluate(`(${read.toString()})(window.__bench)`) as Promise<T>;
}
