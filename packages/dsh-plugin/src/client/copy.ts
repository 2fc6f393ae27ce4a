/** The dock's own words (the element brings its own, in the same language). Chinese is DSH's source set. */
export const NS = 'dsh-interactive-terminal';

export const COPY = {
  zh: {
    label: '共享终端',
  },
  en: {
    label: 'Shared terminal',
  },
} as const satisfies Record<'zh' | 'en', Record<string, string>>;

export type CopyKey = keyof (typeof COPY)['en'];

export function copyFor(lang: 'en' | 'zh-CN'): Record<CopyKey, string> {
  return lang === 'zh-CN' ? COPY.zh : COPY.en;
}
