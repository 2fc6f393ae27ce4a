/**
 * Driving DSH Web (English UI) and the plugin's dock with Playwright on the system's Chromium.
 */
import { chromiumLaunchOptions } from '@shared-terminal/test-support/chromium';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { waitFor } from './util.ts';

/** The system Chromium with the repository's one list of launch flags. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch(chromiumLaunchOptions());
}

export const dock = (page: Page): Locator => page.getByTestId('dsh-interactive-terminal-dock');
export const terminal = (page: Page): Locator => dock(page).locator('shared-terminal');

/** The status line of the panel ("Controller | connected | …"). */
export async function statusText(page: Page): Promise<string> {
  return ((await terminal(page).locator('[part~="status"]').first().textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** What xterm.js shows (its DOM renderer's rows), one line per row, trailing blanks removed. */
export async function screenText(page: Page): Promise<string> {
  return terminal(page)
    .locator('.renderer:not(.staged) .xterm-rows')
    .first()
    .evaluate((rows) => [...rows.children].map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n'));
}

export async function waitForScreen(page: Page, pattern: RegExp, what: string, timeoutMs = 20_000): Promise<string> {
  return waitFor(
    async () => {
      const text = await screenText(page).catch(() => '');
      return pattern.test(text) ? text : undefined;
    },
    `${what} (screen ${pattern})`,
    timeoutMs,
  );
}

/** Pick the workspace folder in the browse dialog (first session only). */
export async function chooseWorkspace(page: Page, path: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Choose workspace' }).click();
  const dialog = page.getByRole('dialog', { name: 'Select Workspace Directory' });
  await dialog.getByRole('button', { name: 'Edit path' }).click();
  const input = dialog.getByRole('textbox', { name: 'Edit path' });
  await input.fill(path);
  await input.press('Enter');
  await dialog.getByRole('button', { name: 'Open' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/** Start a conversation with `prompt` (a new session unless this is the first one) and wait for the dock. */
export async function startConversation(page: Page, prompt: string, options: { newSession: boolean }): Promise<void> {
  // The sidebar's button (the brand mark is a second "New session" button); the hero's composer replaces
  // the conversation's, so wait for it before typing.
  if (options.newSession) {
    await page.locator('button', { hasText: 'New Session' }).click();
    await page.getByPlaceholder('Describe what you want to build').waitFor({ state: 'visible' });
  }
  const composer = page.locator('textarea:enabled').first();
  await composer.fill(prompt);
  await waitFor(() => page.getByRole('button', { name: 'Send message' }).isEnabled(), 'the Send button');
  await page.getByRole('button', { name: 'Send message' }).click();
  await dock(page).waitFor({ state: 'visible', timeout: 30_000 });
}

/** The element's own toggle (▸ Terminal): the dock's one control. */
export const toggle = (page: Page): Locator => terminal(page).locator('[part~="toggle"]').first();

/** Expand the panel with the element's own toggle (if collapsed). */
export async function expandTerminal(page: Page): Promise<void> {
  const button = toggle(page);
  await button.waitFor({ state: 'visible', timeout: 30_000 });
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
}

/** Open the panel and wait until this view is the Controller and connected. */
export async function openTerminal(page: Page): Promise<void> {
  await expandTerminal(page);
  let last = '';
  try {
    await waitFor(
      async () => {
        if (/^Controller\b.*\bconnected\b/.test((last = await statusText(page).catch(() => '')))) return true;
        // The dock that was expanded may have been another session's, shown while DSH switched to this one:
        // expand the one shown now, as a person would.
        const button = toggle(page);
        if ((await button.getAttribute('aria-expanded', { timeout: 1000 }).catch(() => null)) === 'false') {
          await button.click({ timeout: 1000 }).catch(() => undefined);
        }
        return false;
      },
      'the panel to connect as Controller',
      20_000,
    );
  } catch (error) {
    // Say what the panel showed instead (read only? still connecting? no element?), so a failure names its cause:
    // "not connected" is an element that never began to connect (still collapsed, or another session's).
    const elements = await terminal(page)
      .evaluateAll((all) =>
        all.map((el) => `${(el as HTMLElement).dataset['sessionId']}:${el.hasAttribute('collapsed') ? 'collapsed' : 'expanded'}`),
      )
      .catch(() => []);
    throw new Error(`${(error as Error).message}; the status line read ${JSON.stringify(last)}; panels ${elements.join(', ') || 'none'}`, {
      cause: error,
    });
  }
}

/** Type into the terminal as a person would (the first key asks for the input lease). */
export async function typeInTerminal(page: Page, text: string, enter = true): Promise<void> {
  await terminal(page).locator('[part~="terminal"]').first().click();
  await page.keyboard.type(text, { delay: 15 });
  if (enter) await page.keyboard.press('Enter');
}
