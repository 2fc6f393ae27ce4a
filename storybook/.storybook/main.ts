import type { StorybookConfig } from '@storybook/web-components-vite';
import { defaultClientConditions, mergeConfig } from 'vite';

// Stories import the element from its TypeScript source (the `source` export condition), so a review
// never waits for a build. Addons: the story tests (vitest), axe checks in them (a11y), and docs pages made
// from the element's Custom Elements Manifest (docs).
const config: StorybookConfig = {
  stories: ['../stories/**/*.stories.ts'],
  addons: ['@storybook/addon-vitest', '@storybook/addon-a11y', '@storybook/addon-docs'],
  framework: { name: '@storybook/web-components-vite', options: {} },
  core: { disableTelemetry: true, disableWhatsNewNotifications: true, enableCrashReports: false },
  viteFinal: (viteConfig) => mergeConfig(viteConfig, { resolve: { conditions: ['source', ...defaultClientConditions] } }),
};
export default config;
