/**
 * The settings menu (gear) and the Reset Terminal confirmation as a controller (state of its own; the host
 * re-renders when it changes). One state, not two flags: the menu, the confirmation, or neither (asking to
 * reset closes the menu; the confirmation closes when the view becomes read only). Focus follows the
 * WAI-ARIA menu pattern: the first (ArrowDown) or last (ArrowUp) item on opening, back to the gear on
 * Escape or an action.
 */
import { nothing, type ReactiveControllerHost, type TemplateResult } from 'lit';
import type { Messages } from '../i18n.ts';
import { confirmDialog, menuKey, settingsMenu, type SettingsMenuActions, type SettingsMenuView } from '../views/menus.ts';

/** closed: neither shows. menu: the settings menu is open. confirm: the Reset Terminal confirmation shows. */
export type MenuState = 'closed' | 'menu' | 'confirm';

export interface SettingsMenuContext {
  root(): ParentNode;
  /** The person confirmed Reset Terminal. */
  reset(): void;
  actions: Pick<SettingsMenuActions, 'reconnect' | 'clearView' | 'font' | 'fitWidth' | 'toggleScreenReader'>;
}

const ITEMS = '.menu [role^="menuitem"]:not([disabled])';

export class SettingsMenuController {
  private current: MenuState = 'closed';
  private readonly host: ReactiveControllerHost;
  private readonly context: SettingsMenuContext;
  private readonly actions: SettingsMenuActions;

  constructor(host: ReactiveControllerHost, context: SettingsMenuContext) {
    this.host = host;
    this.context = context;
    this.actions = {
      ...context.actions,
      run: (action, close = true) => {
        action();
        if (close) this.close(true);
      },
      askReset: () => void this.askReset(),
      keydown: (event) => {
        const key = menuKey(event, this.items());
        if (key === 'escape' || key === 'tab') this.close(key === 'escape');
      },
    };
  }

  get state(): MenuState {
    return this.current;
  }

  async open(focus: 'first' | 'last' = 'first'): Promise<void> {
    this.set('menu');
    await this.host.updateComplete;
    const items = this.items();
    (focus === 'first' ? items[0] : items[items.length - 1])?.focus();
  }

  close(returnFocus: boolean): void {
    if (this.current === 'menu') this.set('closed');
    if (returnFocus) this.gear()?.focus();
  }

  /** Neither shows (the view was torn down, or became read only). */
  dismiss(): void {
    this.set('closed');
  }

  readonly onGearClick = (): void => {
    if (this.current === 'menu') this.close(false);
    else void this.open();
  };

  readonly onGearKey = (event: KeyboardEvent): void => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    void this.open(event.key === 'ArrowDown' ? 'first' : 'last');
  };

  /** Focus left the header's actions: the menu closes. */
  readonly onActionsFocusOut = (event: FocusEvent): void => {
    const next = event.relatedTarget as Node | null;
    const actions = this.context.root().querySelector('.actions');
    if (this.current === 'menu' && (!next || !actions?.contains(next))) this.set('closed');
  };

  renderMenu(view: Omit<SettingsMenuView, 'open'>, t: Messages): TemplateResult {
    return settingsMenu({ ...view, open: this.current === 'menu' }, t, this.actions);
  }

  renderConfirm(t: Messages): TemplateResult | typeof nothing {
    if (this.current !== 'confirm') return nothing;
    return confirmDialog(t, {
      reset: () => {
        this.set('closed');
        this.context.reset();
        this.gear()?.focus();
      },
      cancel: () => {
        this.set('closed');
        this.gear()?.focus();
      },
    });
  }

  private async askReset(): Promise<void> {
    this.set('confirm');
    await this.host.updateComplete;
    this.context.root().querySelector<HTMLElement>('.confirm .cancel')?.focus();
  }

  private items(): HTMLElement[] {
    return [...this.context.root().querySelectorAll<HTMLElement>(ITEMS)];
  }

  private gear(): HTMLElement | null {
    return this.context.root().querySelector<HTMLElement>('.settings');
  }

  private set(state: MenuState): void {
    if (state === this.current) return;
    this.current = state;
    this.host.requestUpdate();
  }
}
