/**
 * A measure, not a test (`npm run dsh-lag` in bench/ runs it and reports it; by hand:
 * `node --conditions=source test/lag.measure.ts [--out FILE]`): how far the panel in real DSH Web rc.8 lags
 * the model's tool calls, on a panel that is open and rendering.
 *
 * - output: a model send of `expr 1000 + i` (its output line is not in the command's echo); the time from
 *   DSH's next model call (made as soon as DSH appended the tool result) back to when the page's socket
 *   delivered the output frame carrying the answer. Negative means the page had it before the result.
 * - takeover: a model send of a program that sleeps (no input wait); the time from the model call that
 *   made the tool call to when the panel's "Take over input" button was enabled.
 * Prints medians and every sample as JSON. Wall clocks of DSH (Node) and the page (Chromium) are the same
 * machine's.
 */
import { writeFileSync } from 'node:fs';
import { addPlugin, createHome, packPlugin, removeRoot, startDshWeb, type ScriptStep } from './helpers/dsh-web.ts';
import { ensureDshHost } from './helpers/host.ts';
import { chooseWorkspace, launchChromium, openTerminal, startConversation } from './helpers/page.ts';
import { sleep, waitFor } from './helpers/util.ts';

const OUTPUT_SAMPLES = 12;
const TAKEOVER_SAMPLES = 6;

const outputSteps: ScriptStep[] = [];
for (let i = 1; i <= OUTPUT_SAMPLES; i++) outputSteps.push({ tool: 'shared_terminal_send', args: { text: `sleep 0.3; expr 1000 + ${i}` } });
outputSteps.push({ text: 'done' });
const takeoverSteps: ScriptStep[] = [];
for (let i = 1; i <= TAKEOVER_SAMPLES; i++) takeoverSteps.push({ tool: 'shared_terminal_send', args: { text: `sleep 1.${i}` } });
takeoverSteps.push({ text: 'done' });

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

ensureDshHost();
const made = createHome('dsh-it-lag', {});
packPlugin(made.root);
addPlugin(made.home, './dsh-interactive-terminal-0.1.0.tgz', made.root);
const web = await startDshWeb({ ...made, scenarios: { 'lag output': outputSteps, 'lag takeover': takeoverSteps } });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  // Stamp every frame the panel's socket delivers to the page (when the page's main thread handles it).
  await page.addInitScript(() => {
    const frames: { t: number; data: string }[] = [];
    (window as unknown as { __frames: typeof frames }).__frames = frames;
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        if (String(url).includes('dsh-interactive-terminal'))
          this.addEventListener('message', (event) => frames.push({ t: Date.now(), data: String(event.data) }));
      }
    } as typeof WebSocket;
  });
  await page.goto(web.url);
  await chooseWorkspace(page, web.workspace);

  // Output: open the panel first (rendering), then let the model run its sends.
  await startConversation(page, 'lag output', { newSession: false });
  await openTerminal(page);
  await waitFor(() => web.calls().filter((c) => c.scenario === 'lag output').length > OUTPUT_SAMPLES, 'every send', 120_000);
  const frames = await page.evaluate(() => (window as unknown as { __frames: { t: number; data: string }[] }).__frames);
  const calls = web.calls().filter((c) => c.scenario === 'lag output');
  const output: number[] = [];
  for (let i = 1; i <= OUTPUT_SAMPLES; i++) {
    const frame = frames.find((f) => f.data.includes(`${1000 + i}\\r\\n`) || f.data.includes(`${1000 + i}\\n`));
    const afterResult = calls[i]; // the model call that follows send i: DSH had appended its result
    if (frame && afterResult) output.push(frame.t - afterResult.at);
  }

  // Takeover: the button is enabled once the running send may be taken over.
  await startConversation(page, 'lag takeover', { newSession: true });
  await openTerminal(page);
  const takeover: number[] = [];
  for (let i = 1; i <= TAKEOVER_SAMPLES; i++) {
    const call = await waitFor(() => web.calls().filter((c) => c.scenario === 'lag takeover')[i - 1], `tool call ${i}`, 30_000);
    const enabledAt = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const check = () => {
            const host = document.querySelector('[data-testid="dsh-interactive-terminal-dock"] shared-terminal');
            const button = host?.shadowRoot?.querySelector<HTMLButtonElement>('[part~="takeover-button"]');
            if (button && !button.disabled) resolve(Date.now());
            else requestAnimationFrame(check);
          };
          check();
        }),
    );
    takeover.push(enabledAt - call.at);
    await waitFor(() => web.calls().filter((c) => c.scenario === 'lag takeover').length > i, `send ${i} to return`, 30_000);
    await sleep(100);
  }
  const results = {
    measuredAt: new Date().toISOString(),
    outputAfterResultMs: { median: median(output), samples: output },
    takeoverAfterCallMs: { median: median(takeover), samples: takeover },
  };
  console.log(JSON.stringify(results));
  const outAt = process.argv.indexOf('--out');
  if (outAt > 0 && process.argv[outAt + 1]) writeFileSync(process.argv[outAt + 1]!, `${JSON.stringify(results, null, 2)}\n`);
} finally {
  await browser.close().catch(() => undefined);
  await web.stop();
  removeRoot(made.root);
}
