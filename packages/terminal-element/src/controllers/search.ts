/**
 * Scrollback search (Ctrl+Shift+F, ⌘F on macOS) as a controller (state of its own; the host re-renders when
 * it changes): whether the bar is open, where the search stands, and each renderer's search addon. The bar
 * searches the renderer on screen.
 */
import type { ReactiveControllerHost, TemplateResult } from 'lit';
import { SearchAddon } from '@xterm/addon-search';
import type { Terminal } from '@xterm/xterm';
import type { Messages } from '../i18n.ts';
import { SEARCH_LIMIT, searchBar, searchOptions, type SearchResult } from '../views/search-bar.ts';

export interface SearchContext {
  /** The renderer on screen. */
  term(): Terminal | null;
  root(): ParentNode;
  dark(): boolean;
}

export class SearchController {
  open = false;
  result: SearchResult | null = null;
  private readonly host: ReactiveControllerHost;
  private readonly context: SearchContext;
  private readonly addons = new WeakMap<Terminal, SearchAddon>();

  constructor(host: ReactiveControllerHost, context: SearchContext) {
    this.host = host;
    this.context = context;
  }

  /** Give a new renderer its search addon. */
  attach(term: Terminal): void {
    const addon = new SearchAddon({ highlightLimit: SEARCH_LIMIT });
    term.loadAddon(addon);
    this.addons.set(term, addon);
    addon.onDidChangeResults(({ resultIndex, resultCount }) => {
      if (term !== this.context.term()) return;
      this.result = { index: resultIndex, count: resultCount };
      this.host.requestUpdate();
    });
  }

  async show(): Promise<void> {
    this.open = true;
    this.host.requestUpdate();
    await this.host.updateComplete;
    const input = this.input();
    input?.focus();
    input?.select();
  }

  close(): void {
    this.open = false;
    this.result = null;
    this.host.requestUpdate();
    const term = this.context.term();
    if (term) this.addons.get(term)?.clearDecorations();
    term?.clearSelection();
    term?.focus();
  }

  /** Find the next (or previous) match of the search box's text in the shown renderer's scrollback. */
  find(direction: 'next' | 'previous', incremental = false): void {
    const term = this.context.term();
    const addon = term ? this.addons.get(term) : undefined;
    const query = this.input()?.value ?? '';
    if (!addon) return;
    if (!query) {
      addon.clearDecorations();
      this.result = null;
      this.host.requestUpdate();
      return;
    }
    if (direction === 'next') addon.findNext(query, searchOptions(incremental, this.context.dark()));
    else addon.findPrevious(query, searchOptions(false, this.context.dark()));
  }

  render(t: Messages): TemplateResult {
    return searchBar(this.result, t, { find: (direction, incremental) => this.find(direction, incremental), close: () => this.close() });
  }

  private input(): HTMLInputElement | null {
    return this.context.root().querySelector<HTMLInputElement>('.search input');
  }
}
