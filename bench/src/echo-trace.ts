// Diagnostic: where a keystroke's echo spends its time under a flood (page keydown → socket → server output
// event → page arrival → parsed), for the product. `node --conditions=source bench/src/echo-trace.ts`.
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '@shared-terminal/test-support/chromium';
import { RpcChild } from '../src/rpc.ts';
import { writeContent, backgroundFloodCommand } from '../src/content.ts';
import { openProduct } from '../src/pages.ts';
/** What the product page's probe records (installed by pages.ts). */
interface EchoProbe {
  expect: string | null;
  keys: Array<{ key: string; t: number }>;
  sent: Record<string, number>;
  arrived: Record<string, number>;
  echoes: Array<{ ch: string; t: number }>;
}
const files = writeContent();
const product = await RpcChild.start<{ url: string }>(new URL('../src/product-server.ts', import.meta.url), [files.dir]);
const browser = await chromium.launch(chromiumLaunchOptions());
const page = await openProduct(browser, product.info.url, 'tr');
await product.call('traceEchoes', { owner: 'tr' });
await product.call('send', { owner: 'tr', text: backgroundFloodCommand(files, 30, files.dir + '/pid') });
await new Promise((r) => setTimeout(r, 1000));
await page.locator('shared-terminal .xterm-screen').click();
const rows = [];
for (const ch of 'abcdefghijkl') {
  await page.evaluate((c) => ((window as unknown as { __bench: EchoProbe }).__bench.expect = c), ch);
  await page.keyboard.press(ch);
  await page
    .waitForFunction((c) => (window as unknown as { __bench: EchoProbe }).__bench.echoes.some((e) => e.ch === c), ch, { timeout: 5000 })
    .catch(() => undefined);
  const r = await page.evaluate((c) => {
    const b = (window as unknown as { __bench: EchoProbe }).__bench;
    const o = performance.timeOrigin;
    return {
      key: o + (b.keys.filter((k) => k.key === c).at(-1)?.t ?? NaN),
      sent: o + (b.sent[c] ?? NaN),
      arrived: o + (b.arrived[c] ?? NaN),
      parsed: o + (b.echoes.find((e) => e.ch === c)?.t ?? NaN),
    };
  }, ch);
  rows.push({ ch, ...r });
  await new Promise((r) => setTimeout(r, 30));
}
const trace = await product.call<{ ch: string; t: number }[]>('echoTrace', { owner: 'tr' });
for (const r of rows) {
  const out = trace.find((t) => t.ch.includes(r.ch) && t.t >= r.sent - 5);
  console.log(
    r.ch,
    'sent',
    (r.sent - r.key).toFixed(0),
    'server-output',
    out ? (out.t - r.key).toFixed(0) : '?',
    'arrived',
    (r.arrived - r.key).toFixed(0),
    'parsed',
    (r.parsed - r.key).toFixed(0),
  );
}
console.log(JSON.stringify(await product.call('transportStats')));
try {
  process.kill(Number((await import('node:fs')).readFileSync(files.dir + '/pid', 'utf8')), 'SIGTERM');
} catch {
  // the flood already ended
}
await browser.close();
await product.stop();
(await import('node:fs')).rmSync(files.dir, { recursive: true, force: true });
