// The one place that says how tests launch the system Chromium (never a downloaded browser): its path
// (CHROMIUM_PATH, set by the bootstrap, else /usr/bin/chromium) and the flags that work on our machines.
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function chromiumPath() {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** Playwright launch options for the system Chromium. */
export function chromiumLaunchOptions() {
  return { executablePath: chromiumPath(), args: CHROMIUM_FLAGS, headless: true };
}
