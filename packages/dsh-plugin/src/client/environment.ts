/**
 * What the dock follows from its surroundings: DSH's language and colour scheme, and whether this is a
 * touch device (read only). Kept in the plugin's apply closure, outside React, so components that DSH
 * remounts read the current value at once; React subscribes through `useSyncExternalStore`.
 */
import type { ClientContext } from './dsh-client-api.ts';

export interface DockEnvironment {
  /** The element's `lang`: `en` or `zh-CN`. */
  lang: 'en' | 'zh-CN';
  colorScheme: 'light' | 'dark';
  /** A coarse pointer (phone, tablet): the view is read only. */
  touch: boolean;
}

export interface EnvironmentStore {
  get(): DockEnvironment;
  subscribe(listener: () => void): () => void;
}

const TOUCH_QUERY = '(pointer: coarse)';

function read(ctx: ClientContext): DockEnvironment {
  const locale = ctx.get('locale')?.getLocale().active;
  const scheme = ctx.get('theme')?.getTheme().active.colorScheme;
  const touch = typeof matchMedia === 'function' && matchMedia(TOUCH_QUERY).matches;
  return {
    lang: locale === 'zh' ? 'zh-CN' : 'en',
    colorScheme: scheme ?? (typeof document !== 'undefined' && document.body?.hasAttribute('data-ds-dark-theme') ? 'dark' : 'light'),
    touch,
  };
}

export function createEnvironmentStore(ctx: ClientContext): EnvironmentStore {
  let current = read(ctx);
  const listeners = new Set<() => void>();
  const refresh = () => {
    const next = read(ctx);
    if (next.lang === current.lang && next.colorScheme === current.colorScheme && next.touch === current.touch) return;
    current = next;
    for (const listener of listeners) listener();
  };
  ctx.effect(() => ctx.on('locale/change', refresh), 'dsh-interactive-terminal: follow language');
  ctx.effect(() => ctx.on('theme/change', refresh), 'dsh-interactive-terminal: follow theme');
  if (typeof matchMedia === 'function') {
    ctx.effect(() => {
      const query = matchMedia(TOUCH_QUERY);
      query.addEventListener('change', refresh);
      return () => query.removeEventListener('change', refresh);
    }, 'dsh-interactive-terminal: follow pointer');
  }
  return {
    get: () => current,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
