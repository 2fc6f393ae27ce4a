/** The dock's own words (the element brings its own, in the same language). Chinese is DSH's source set. */
export const NS = 'dsh-interactive-terminal';

export const COPY = {
  zh: {
    open: '打开终端',
    close: '收起终端',
    label: '共享终端',
    readonly: '触屏设备上为只读',
  },
  en: {
    open: 'Open terminal',
    close: 'Hide terminal',
    label: 'Shared terminal',
    readonly: 'Read only on touch devices',
  },
} as const satisfies Record<'zh' | 'en', Record<string, string>>;

export type CopyKey = keyof (typeof COPY)['en'];

export function copyFor(lang: 'en' | 'zh-CN'): Record<CopyKey, string> {
  return lang === 'zh-CN' ? COPY.zh : COPY.en;
}
