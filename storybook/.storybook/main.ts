import type { StorybookConfig } from '@storybook/web-components-vite';
import { defaultClientConditions, mergeConfig } from 'vite';

// Stories import the element from its TypeScript source (the `source` export condition), so a review
// never waits for a build.
const config: StorybookConfig = {
  stories: ['../stories/**/*.stories.ts'],
  addons: ['@storybook/addon-vitest'],
  framework: { name: '@storybook/web-components-vite', options: {} },
  core: { disableTelemetry: true, disableWhatsNewNotifications: true, enableCrashReports: false },
  viteFinal: (viteConfig) => mergeConfig(viteConfig, { resolve: { conditions: ['source', ...defaultClientConditions] } }),
};
export default config;
