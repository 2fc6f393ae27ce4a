/**
 * Page helpers for `<shared-terminal>` on the standalone pages: locators that pierce its shadow root, and
 * typing the way a person does (focus the terminal, press keys).
 */
import { expect, type Locator, type Page } from '@playwright/test';

export interface TerminalView {
  page: Page;
  element: Locator;
  /** The rendered rows (what the person sees). */
  screen: Locator;
  /** The status line ("Controller | connected | …" or "Read only …"). */
  status: Locator;
  role: Locator;
  notices: Locator;
  takeOver: Locator;
  interrupt: Locator;
  settings: Locator;
}

export function terminalView(page: Page): TerminalView {
  const element = page.locator('shared-terminal');
  return {
    page,
    element,
    // The renderer on screen (a staged one may parse a snapshot off screen beside it for a moment).
    screen: element.locator('.renderer:not(.staged) .xterm-rows'),
    status: element.locator('[part~="status"]'),
    role: element.locator('[part~="role"]'),
    notices: element.locator('[part~="notices"]'),
    takeOver: element.getByRole('button', { name: 'Take over input' }),
    interrupt: element.getByRole('button', { name: 'Interrupt input' }),
    settings: element.getByRole('button', { name: 'Settings' }),
  };
}

/** Open an agent's page with the token link (the server trades it for the cookie) and wait for the view. */
export async function openAgentPage(page: Page, link: string, role: 'Controller' | 'Read only' = 'Controller'): Promise<TerminalView> {
  await page.goto(link);
  const view = terminalView(page);
  await expect(view.role).toHaveText(role);
  await expect(view.element.locator('[part~="connection"]')).toHaveText(/^connected/);
  return view;
}

/** Click into the terminal and type `text` as key presses, then Enter unless `enter` is false. */
export async function typeInTerminal(view: TerminalView, text: string, enter = true): Promise<void> {
  await view.element.locator('[part~="terminal"]').click();
  await view.page.keyboard.type(text);
  if (enter) await view.page.keyboard.press('Enter');
}

/** Open the settings menu and choose an item. */
export async function chooseSetting(view: TerminalView, item: 'Reconnect' | 'Reset Terminal' | 'Clear view'): Promise<void> {
  await view.settings.click();
  await view.element.getByRole('menuitem', { name: item }).click();
}
