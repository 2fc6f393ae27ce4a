/**
 * Playwright drives the system Chromium (never a downloaded one) against the real shared-terminal CLI.
 * One worker: the machine is small and the suites share it. How Chromium is launched (path and flags) is
 * said once for every test runner of the repository, in @shared-terminal/test-support/chromium.
 */
import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '@shared-terminal/test-support/chromium';

const { executablePath, args } = chromiumLaunchOptions();

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['./reporters/counts.ts']],
  outputDir: '../.artifacts/e2e',
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 860 },
    launchOptions: { executablePath, args },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
