/**
 * The scrollback search bar (Ctrl+Shift+F, ⌘F on macOS): its template, its match count and the match
 * colours. The search addon counts and highlights at most SEARCH_LIMIT matches (a bound on the work of
 * one keystroke); past them the count says "1000+".
 */
import { html, type TemplateResult } from 'lit';
import type { ISearchOptions } from '@xterm/addon-search';
import type { Messages } from '../i18n.ts';

export const SEARCH_LIMIT = 1000;

/** Where a search stands: the active match (0-based; negative while none is active) and the match count. */
export interface SearchResult {
  index: number;
  count: number;
}

/** Match colours (xterm.js takes #RRGGBB only), for light and dark screens. */
const SEARCH_COLOURS = {
  light: {
    matchBackground: '#fff8c5',
    activeMatchBackground: '#ffd33d',
    matchOverviewRuler: '#d4a72c',
    activeMatchColorOverviewRuler: '#9a6700',
  },
  dark: {
    matchBackground: '#4b3a00',
    activeMatchBackground: '#9e6a03',
    matchOverviewRuler: '#9e6a03',
    activeMatchColorOverviewRuler: '#d29922',
  },
};

export function searchOptions(incremental: boolean, dark: boolean): ISearchOptions {
  return { incremental, decorations: SEARCH_COLOURS[dark ? 'dark' : 'light'] };
}

export interface SearchBarActions {
  find(direction: 'next' | 'previous', incremental?: boolean): void;
  close(): void;
}

export function searchBar(result: SearchResult | null, t: Messages, a: SearchBarActions): TemplateResult {
  const more = !!result && result.count >= SEARCH_LIMIT;
  const count =
    result === null
      ? ''
      : result.count === 0
        ? t.searchNone
        : result.index < 0
          ? t.searchMany(result.count)
          : t.searchCount(result.index + 1, result.count, more);
  const onKey = (event: KeyboardEvent): void => {
    if (event.key === 'Enter') {
      event.preventDefault();
      a.find(event.shiftKey ? 'previous' : 'next');
    } else if (event.key === 'Escape') {
      event.preventDefault();
      a.close();
    }
  };
  return html`<div part="search" class="search" role="search" aria-label=${t.search}>
    <input type="search" aria-label=${t.searchPlaceholder} placeholder=${t.searchPlaceholder} @input=${() => a.find('next', true)} @keydown=${onKey} />
    <span class="search-count" role="status" aria-live="polite">${count}</span>
    <button class="search-previous" aria-label=${t.searchPrevious} title=${t.searchPrevious} @click=${() => a.find('previous')}>↑</button>
    <button class="search-next" aria-label=${t.searchNext} title=${t.searchNext} @click=${() => a.find('next')}>↓</button>
    <button class="search-close" aria-label=${t.searchClose} title=${t.searchClose} @click=${() => a.close()}>×</button>
  </div>`;
}
