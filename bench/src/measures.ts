/**
 * The seven measurements. Each returns raw samples per system; main.ts summarizes and judges them.
 * Every wait has a bound, so a stuck run ends as missing samples, never as a hung bench.
 *
 * Past 500 lines because the seven share their page and session plumbing (focus, probes, bounded waits);
 * the floor and the many-terminals measures have rooms of their own.
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  DRAIN_DONE_TEXT,
  HISTORY_LINES,
  THROUGHPUT_BYTES,
  drainCommand,
  backgroundFloodCommand,
  foregroundFloodCommand,
  throughputCommand,
  type ContentFiles,
} from './content.ts';
import { focusTerminal, openBaseline, openProduct, type ElementLike, type System } from './pages.ts';
import type { MemoryFigures } from './proc.ts';
import type { ProbeFunctions } from './probe.ts';
import type { RpcChild } from './rpc.ts';
import { percentile } from './stats.ts';
import { sleep } from '@shared-terminal/test-support/wait';

export interface BenchContext {
  browser: Browser;
  product: RpcChild<{ url: string; rows: number; cols: number; scrollbackLines: number }>;
  baseline: RpcChild<{ url: string }>;
  files: ContentFiles;
  log(message: string): void;
}

let serial = 0;
const uniqueId = (prefix: string) => `${prefix}-${++serial}`;

interface Session {
  system: System;
  id: string;
  page: Page;
  close(): Promise<void>;
}

async function open(context: BenchContext, system: System, prefix: string): Promise<Session> {
  const id = uniqueId(`${prefix}-${system}`);
  const page =
    system === 'product'
      ? await openProduct(context.browser, context.product.info.url, id)
      : await openBaseline(context.browser, context.baseline.info.url, id);
  return {
    system,
    id,
    page,
    async close() {
      await page.close();
      if (system === 'product') await context.product.call('dispose', { owner: id });
      else await context.baseline.call('kill', { term: id });
    },
  };
}

/** Run `command` in the session's shell: a model send in the product, a plain write in the baseline. */
async function command(context: BenchContext, session: Session, text: string): Promise<{ start: number }> {
  if (session.system === 'product') return context.product.call('startSend', { owner: session.id, text });
  return context.baseline.call('write', { term: session.id, text });
}

// ------------------------------------------------------------------------------------------ 1. throughput

export async function throughputRun(
  context: BenchContext,
  system: System,
): Promise<{ mbPerSecond: number; seconds: number; parsedMB: number; historySeconds?: number }> {
  const session = await open(context, system, 'throughput');
  try {
    const before = await session.page.evaluate(() => (window as unknown as { __bench: { parsedChars: number } }).__bench.parsedChars);
    const { start } = await command(context, session, throughputCommand(context.files));
    await session.page.waitForFunction(() => (window as unknown as { __bench: { done: unknown[] } }).__bench.done.length > 0, undefined, {
      timeout: 120_000,
      polling: 100,
    });
    const { end, parsed } = await session.page.evaluate(() => {
      const b = (window as unknown as { __bench: { done: { t: number }[]; parsedChars: number } }).__bench;
      return { end: performance.timeOrigin + b.done[0]!.t, parsed: b.parsedChars };
    });
    if (system === 'product') await context.product.call('awaitSend', { owner: session.id });
    const seconds = (end - start) / 1000;
    // A page that skipped ahead gets the whole history in one snapshot once output is quiet: when it parsed.
    let historySeconds: number | undefined;
    if (system === 'product') {
      const history = await session.page
        .waitForFunction(
          (doneAt) => {
            const b = (window as unknown as { __bench: { bigWrites: { t: number }[] } }).__bench;
            const write = b.bigWrites.find((w) => performance.timeOrigin + w.t > doneAt);
            return write ? performance.timeOrigin + write.t : false;
          },
          end,
          { timeout: 20_000, polling: 50 },
        )
        .then((handle) => handle.jsonValue() as Promise<number>)
        .catch(() => undefined);
      if (history !== undefined) historySeconds = (history - start) / 1000;
    }
    return {
      seconds,
      mbPerSecond: THROUGHPUT_BYTES / 1e6 / seconds,
      parsedMB: (parsed - before) / 1e6,
      ...(historySeconds !== undefined ? { historySeconds } : {}),
    };
  } finally {
    await session.close();
  }
}

// ------------------------------------------------------------------------------------------ 2. echo

const LETTERS = 'abcdefghijklnopqrstuvwxyz'; // no `m`: SGR sequences in the flood end with it

export interface EchoRun {
  /** keydown → echo shown: its glyph parsed into xterm's buffer or, for a page that skipped ahead past
   *  it, a screen at least as new as the echo parsed (the goal's figure); and → the next frame. */
  latencies: number[];
  /** How many of the echoes were shown by their own glyph being parsed (the rest by a newer screen). */
  glyphs?: number;
  paints: number[];
  /** keydown → the key left on the WebSocket, and → the echo arrived on it (where the time goes). */
  sends: number[];
  arrivals: number[];
  /** Product: keydown → the server read the echo from the PTY (wall clocks of page and server). */
  reads?: number[];
  /** Product in a flood: catch-up snapshots the page took while the keys were typed, and over how long. */
  catchUps?: { count: number; seconds: number };
  /** Product in a flood: the catch-up cycle's two parts, seen from the page (see catchUpCycle). */
  cycle?: { page: { p50: number; p90: number }; server: { p50: number; p90: number } };
  missed: number;
}

/** `before` runs once the page is loaded and before the first key (the many-terminals measure times model
 *  sends there, with the page attached). */
export async function echoRun(
  context: BenchContext,
  system: System,
  options: { keys: number; flood: boolean; before?: (owner: string) => Promise<void> },
): Promise<EchoRun> {
  const session = await open(context, system, options.flood ? 'echo-flood' : 'echo');
  const pidFile = join(context.files.dir, `${session.id}.pid`);
  const latencies: number[] = [];
  const paints: number[] = [];
  const sends: number[] = [];
  const arrivals: number[] = [];
  const reads: number[] = [];
  let catchUps: EchoRun['catchUps'];
  let cycle: EchoRun['cycle'];
  let missed = 0;
  let glyphs = 0;
  let traced = 0;
  try {
    if (system === 'product') await context.product.call('traceEchoes', { owner: session.id });
    if (options.flood) {
      const flood = backgroundFloodCommand(context.files, 60, pidFile);
      if (system === 'product') await context.product.call('send', { owner: session.id, text: flood });
      else await context.baseline.call('write', { term: session.id, text: flood });
      await sleep(1000); // the flood is running
    } else {
      // An idle prompt in a page that has finished loading: a key pressed while the page is still busy with
      // its first render measures the page load (up to 130 ms in both systems), not the echo.
      await sleep(1000);
    }
    await options.before?.(session.id);
    await focusTerminal(session.page, system);
    const catchUpsNow = async () =>
      (await context.product.call<{ views: { ownerId: string; catchUps: number }[] }>('transportStats')).views
        .filter((v) => v.ownerId === session.id)
        .reduce((sum, v) => sum + v.catchUps, 0);
    const typingStarted = performance.now();
    const pageTypingStarted = await session.page.evaluate(() => performance.now());
    const catchUpsBefore = system === 'product' && options.flood ? await catchUpsNow() : 0;
    for (let i = 0; i < options.keys; i++) {
      const ch = LETTERS[i % LETTERS.length]!;
      // Echo events seen so far belong to earlier keys.
      if (system === 'product') traced += (await context.product.call<unknown[]>('echoTrace', { owner: session.id, from: traced })).length;
      await session.page.evaluate((c) => ((window as unknown as { __bench: { expect: string | null } }).__bench.expect = c), ch);
      await session.page.keyboard.press(ch);
      try {
        const shown = await waitForEcho(context, session, ch, traced);
        traced = shown.traced;
        latencies.push(shown.latency);
        paints.push(shown.paint);
        sends.push(shown.sent);
        arrivals.push(shown.arrived);
        if (shown.read !== undefined) reads.push(shown.read);
        if (shown.glyph) glyphs += 1;
      } catch {
        missed += 1;
        await session.page.evaluate(() => ((window as unknown as { __bench: { expect: string | null } }).__bench.expect = null));
        if (missed >= 5) break; // the view is hopelessly behind: stop this run, report what was seen
      }
      await sleep(10 + Math.random() * 20);
    }
    if (system === 'product' && options.flood) {
      catchUps = { count: (await catchUpsNow()) - catchUpsBefore, seconds: (performance.now() - typingStarted) / 1000 };
      cycle = await catchUpCycle(session.page, pageTypingStarted);
    }
  } finally {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
    } catch {
      // no flood in this run, or it ended by itself
    }
    rmSync(pidFile, { force: true });
    await session.close();
  }
  return {
    latencies,
    paints,
    sends,
    arrivals,
    missed,
    glyphs,
    ...(system === 'product' ? { reads } : {}),
    ...(catchUps ? { catchUps } : {}),
    ...(cycle ? { cycle } : {}),
  };
}

/**
 * The catch-up cycle seen from the page, from `since` (page clock): for each catch-up snapshot, its
 * arrival to the page's next ack (the page's part: parse, the frame that draws it), and that ack to the
 * next snapshot's arrival (the server's part and the two trips: the ack read, the screen serialized and
 * sent). Medians and p90s in ms.
 */
async function catchUpCycle(page: Page, since: number): Promise<EchoRun['cycle']> {
  const { pageMs, serverMs } = await page.evaluate((from) => {
    const b = (window as unknown as { __bench: { snapshots: { t: number }[]; acks: { t: number }[] } }).__bench;
    const arrivals = b.snapshots.map((s) => s.t).filter((t) => t >= from);
    const acks = b.acks.map((a) => a.t).filter((t) => t >= from);
    const pageParts: number[] = [];
    const serverParts: number[] = [];
    let k = 0;
    for (let i = 0; i < arrivals.length; i++) {
      while (k < acks.length && acks[k]! < arrivals[i]!) k++;
      if (k >= acks.length) break;
      pageParts.push(acks[k]! - arrivals[i]!);
      const next = arrivals[i + 1];
      if (next !== undefined && next >= acks[k]!) serverParts.push(next - acks[k]!);
    }
    return { pageMs: pageParts, serverMs: serverParts };
  }, since);
  return {
    page: { p50: percentile(pageMs, 50), p90: percentile(pageMs, 90) },
    server: { p50: percentile(serverMs, 50), p90: percentile(serverMs, 90) },
  };
}

/**
 * 2b's floor: the same background flood in a terminal no page is attached to, letters written straight to
 * its PTY in the product's process, each timed until the server's output event carries the echo. No
 * browser shares the cores, and nothing in the page or the transport is on the path.
 */
export async function echoReadFloorRun(context: BenchContext, keys: number): Promise<{ times: number[]; missed: number }> {
  const owner = uniqueId('echo-floor');
  const pidFile = join(context.files.dir, `${owner}.pid`);
  try {
    await context.product.call('ensure', { owner });
    await context.product.call('send', { owner, text: backgroundFloodCommand(context.files, 60, pidFile) });
    await sleep(1000); // the flood is running
    return await context.product.call<{ times: number[]; missed: number }>('echoReadTimes', { owner, keys });
  } finally {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGTERM');
    } catch {
      // the flood ended by itself
    }
    rmSync(pidFile, { force: true });
    await context.product.call('dispose', { owner });
  }
}

interface EchoShown {
  latency: number;
  paint: number;
  sent: number;
  arrived: number;
  glyph: boolean;
  traced: number;
  read?: number;
}

/**
 * Wait (at most 2 s) until the echo of `ch` is shown in the page. The baseline parses every byte, so that
 * is its glyph being parsed. The product's page may skip ahead of a flood it cannot keep up with: there the
 * echo also counts as shown once the page parsed a catch-up screen at least as new as the server's output
 * event that carried it, or acked such a sequence (xterm's buffer then holds a screen at least as new as
 * the echo; in a flood the glyph itself may have scrolled away by then, as it would in any terminal). The
 * page acks a catch-up only after the frame that draws it, so the ack is not the parse. `paint` is the
 * next frame after. Times are the page's.
 *
 * While the echo is in flight the harness only waits inside the page, for the glyph: anything else it does
 * then (a reply from the server, a CDP call into the page) takes the same 2 cores at the moment measured,
 * which the baseline never pays. The server's record of its read (and so which catch-up is new enough) is
 * fetched after; the page keeps every record, so "shown" is decided afterwards from the same events. Only
 * a key whose glyph did not show within GLYPH_FIRST_MS (a flood the page skipped) waits on with it.
 */
async function waitForEcho(context: BenchContext, session: Session, ch: string, traced: number): Promise<EchoShown> {
  const deadline = Date.now() + 2000;
  const inPage = (sequence: number | null, timeoutMs: number) =>
    session.page.evaluate(
      ({ c, sequence, timeoutMs }) => (window as unknown as { __bench: ProbeFunctions }).__bench.whenShown(c, sequence, timeoutMs),
      { c: ch, sequence, timeoutMs: Math.max(0, timeoutMs) },
    );
  const glyph = await inPage(null, session.system === 'product' ? GLYPH_FIRST_MS : deadline - Date.now());
  if (session.system !== 'product') {
    if (!glyph) throw new Error(`no echo of ${ch}`);
    const { keyWall: _keyWall, ...shown } = glyph;
    return { ...shown, traced };
  }
  const found = await context.product.call<{ entry: { sequence: number; t: number } | null; traced: number }>('waitEcho', {
    owner: session.id,
    ch,
    from: traced,
    timeoutMs: Math.max(0, deadline - Date.now()),
  });
  if (!found.entry) throw new Error(`no echo of ${ch}: the server never read it`);
  // The first of the glyph and a screen new enough, from the page's records (at once when the glyph showed).
  const state = await inPage(found.entry.sequence, glyph ? 0 : deadline - Date.now());
  if (!state) throw new Error(`no echo of ${ch}`);
  const { keyWall, ...shown } = state;
  return { ...shown, traced: found.traced, read: found.entry.t - keyWall };
}

/** How long the page waits for a glyph alone before the harness asks the server which screen is new enough. */
const GLYPH_FIRST_MS = 300;

// ------------------------------------------------------------------------------------------ 3. tool round trips

/**
 * Untimed sends before the timed ones, on both sides: the figure is a long-running server's, not its
 * compiler's first minutes. With one, a run alone (`--only tools`) timed the product's first sends
 * through code still being optimised, and read 1.0-1.6 ms where a full run, after the other measures,
 * read 0.9 ms.
 */
const WARM_UP_SENDS = 200;
/**
 * The timed sends of a run go in blocks that alternate between the product and the floors, so a change in
 * the machine's load falls on both sides alike: 30 sends timed in one stretch a side gave p50s that moved
 * by a third from run to run, more than the gap the ratio judges.
 */
const SEND_BLOCKS = 4;
const SENDS_PER_BLOCK = 50;
/** Untimed sends ahead of each block after the first: the code stays optimised, the caches went cold. */
const BLOCK_WARM_UP = 10;

/** `true` sent in alternating blocks: the product, the floor, the floor with a parser. */
async function sendBlocks(context: BenchContext, owner: string) {
  const send = { times: [] as number[], reasons: [] as string[] };
  const floorSend = { times: [] as number[] };
  const parsingFloorSend = { times: [] as number[] };
  for (let block = 0; block < SEND_BLOCKS; block++) {
    const warm = block === 0 ? WARM_UP_SENDS : BLOCK_WARM_UP;
    const ours = await context.product.call<{ times: number[]; reasons: string[] }>('sendTimes', {
      owner,
      text: 'true',
      n: SENDS_PER_BLOCK,
      warm,
    });
    send.times.push(...ours.times);
    send.reasons.push(...ours.reasons);
    // The floor (bench/baseline/floor.ts): the same bash on a bare PTY, in the same run...
    const floor = await context.baseline.call<{ times: number[] }>('floorPromptTimes', { text: 'true', n: SENDS_PER_BLOCK, warm });
    floorSend.times.push(...floor.times);
    // ...and with a headless xterm.js parsing what it reads, as any terminal that keeps a screen must.
    const parsing = await context.baseline.call<{ times: number[] }>('floorPromptTimes', {
      text: 'true',
      n: SENDS_PER_BLOCK,
      parse: true,
      warm,
    });
    parsingFloorSend.times.push(...parsing.times);
  }
  send.reasons = [...new Set(send.reasons)];
  return { send, floorSend, parsingFloorSend };
}

export async function toolRun(context: BenchContext, n: number) {
  const owner = uniqueId('tools');
  try {
    await context.product.call('ensure', { owner });
    const { send, floorSend, parsingFloorSend } = await sendBlocks(context, owner);
    const waits = Math.ceil(n / 3);
    const wait = await context.product.call<{ times: number[]; reasons: string[] }>('inputWaitTimes', { owner, text: 'read x', n: waits });
    const childWait = await context.product.call<{ times: number[]; reasons: string[] }>('inputWaitTimes', {
      owner,
      text: 'head -n 1',
      n: waits,
    });
    const floorReader = await context.baseline.call<{ times: number[]; missed: number }>('floorReaderTimes', { text: 'read x', n: waits });
    const pollingSend = await context.baseline.call<{ times: number[]; outcomes: string[] }>('pollingSendTimes', { text: 'true', n });
    // The original's rule never sees bash's own `read` (one try, bounded at 2 s instead of its 30 s deadline)...
    const pollingShellRead = await context.baseline.call<{ times: number[]; outcomes: string[] }>('pollingInputWaitTimes', {
      text: 'read x',
      n: 1,
      timeoutMs: 2000,
    });
    // ...and sees a child reader on its 50 ms inspection loop.
    const pollingChildWait = await context.baseline.call<{ times: number[]; outcomes: string[] }>('pollingInputWaitTimes', {
      text: 'head -n 1',
      n: waits,
      timeoutMs: 10_000,
    });
    return { send, wait, childWait, floorSend, parsingFloorSend, floorReader, pollingSend, pollingShellRead, pollingChildWait };
  } finally {
    await context.product.call('dispose', { owner });
  }
}

// ------------------------------------------------------------------------------------------ 3c. drain rate

/** The flood file `repeats` times in a terminal no page is attached to: the server's drain rate, a bare
 *  PTY's read rate of the same stream (the floor), and its rate when it also parses the stream with the
 *  product's emulator (an observation), one after the other. */
export async function drainRun(context: BenchContext, repeats: number) {
  const owner = uniqueId('drain');
  const bytes = statSync(context.files.flood).size * repeats;
  const job = { command: drainCommand(context.files, repeats), doneText: DRAIN_DONE_TEXT, bytes };
  try {
    const product = await context.product.call<{ mbPerSecond: number; seconds: number }>('drainRate', { owner, ...job });
    const floor = await context.baseline.call<{ mbPerSecond: number; seconds: number }>('floorReadRate', job);
    const parsingFloor = await context.baseline.call<{ mbPerSecond: number; seconds: number }>('floorReadRate', { ...job, parse: true });
    return { product, floor, parsingFloor, bytes };
  } finally {
    await context.product.call('dispose', { owner });
  }
}

// ------------------------------------------------------------------------------------------ 4. reconnect

/** Server time for a reconnect's snapshots (ms each call) and their sizes. */
export interface SnapshotTimes {
  first: { times: number[]; bytes: number; historyLines: number };
  full: { times: number[]; bytes: number; historyLines: number };
}

export interface ReconnectSample {
  /** reconnect() to the first screen parsed (view live: current screen, newest history, input and output). */
  live: number;
  /** ...to the first paint after it. */
  painted: number;
  /** ...to the first snapshot frame's arrival. */
  arrived: number;
  /** ...to the whole history parsed and swapped in. */
  history: number;
  firstChars: number;
  fullChars: number;
}

export async function reconnectRun(context: BenchContext, n: number) {
  const owner = uniqueId('reconnect');
  await context.product.call('ensure', { owner });
  await context.product.call('fillHistory', { owner, lines: HISTORY_LINES });
  const server = await context.product.call<SnapshotTimes>('snapshotTimes', { owner, n });
  const page = await openProduct(context.browser, context.product.info.url, owner);
  const samples: ReconnectSample[] = [];
  let missed = 0;
  try {
    for (let i = 0; i < n; i++) {
      const before = await page.evaluate(() => {
        const b = (window as unknown as { __bench: { screens: unknown[]; snapshots: unknown[] } }).__bench;
        const counts = { screens: b.screens.length, snapshots: b.snapshots.length };
        const t0 = performance.now();
        document.querySelector<ElementLike>('shared-terminal')!.reconnect();
        return { ...counts, t0 };
      });
      const handle = await page
        .waitForFunction(
          ({ screens, snapshots, t0 }) => {
            type Screen = { historyLines: number; t: number; paint: number };
            const b = (window as unknown as { __bench: { screens: Screen[]; snapshots: { length: number; t: number }[] } }).__bench;
            const shown = b.screens.slice(screens);
            const received = b.snapshots.slice(snapshots);
            const first = shown[0];
            // The whole history: the screen that came with more than the first one's newest rows.
            const full = shown.find((s) => first && s.historyLines > first.historyLines);
            if (!first || first.paint === 0 || !full || received.length < 2) return false;
            return {
              live: first.t - t0,
              painted: first.paint - t0,
              arrived: received[0]!.t - t0,
              history: full.t - t0,
              firstChars: received[0]!.length,
              fullChars: received.at(-1)!.length,
            };
          },
          before,
          { timeout: 15_000, polling: 5 },
        )
        // A reconnect that did not finish within the bound (a loaded machine) is counted, not fatal.
        .catch(() => undefined);
      if (handle) samples.push((await handle.jsonValue()) as ReconnectSample);
      else missed += 1;
      await sleep(300);
    }
  } finally {
    await page.close();
    await context.product.call('dispose', { owner });
  }
  return { server, samples, missed };
}

// ------------------------------------------------------------------------------------------ 5. memory

export interface MemoryStep extends MemoryFigures {
  shells: number[];
}

/** In a fresh child of each server: nothing, one terminal with a full history, 32 of them, all disposed. */
export async function memoryRun(product: RpcChild<unknown>, baseline: RpcChild<unknown>, count: number, log: (message: string) => void) {
  const owners = Array.from({ length: count }, (_, i) => `memory-${i}`);
  // A warm process: one terminal created, filled and disposed first, so the one-time costs of the process
  // (code loaded and compiled, the heap's working size) are reported apart, not charged to a terminal.
  const cold = await product.call<MemoryStep>('memory', { owners: [] });
  await product.call('ensure', { owner: 'memory-warm-up' });
  await product.call('fillHistory', { owner: 'memory-warm-up', lines: HISTORY_LINES });
  await product.call('dispose', { owner: 'memory-warm-up' });
  await sleep(500);
  const idle = await product.call<MemoryStep>('memory', { owners: [] });
  await product.call('ensure', { owner: owners[0] });
  await product.call('fillHistory', { owner: owners[0], lines: HISTORY_LINES });
  const one = await product.call<MemoryStep>('memory', { owners: owners.slice(0, 1) });
  // The next terminals one at a time: what one more idle terminal costs. What is left of the process's
  // one-time growth can land on any of the first few (where V8's old generation and the allocator happen
  // to grow), so the report takes the median of the single steps of the 2nd, 3rd and 4th.
  const steps: MemoryStep[] = [];
  for (let k = 1; k < Math.min(4, owners.length); k++) {
    await product.call('ensure', { owner: owners[k] });
    await product.call('fillHistory', { owner: owners[k], lines: HISTORY_LINES });
    steps.push(await product.call<MemoryStep>('memory', { owners: owners.slice(0, k + 1) }));
  }
  const [two, three, four] = steps;
  for (const owner of owners.slice(steps.length + 1)) {
    await product.call('ensure', { owner });
    await product.call('fillHistory', { owner, lines: HISTORY_LINES });
  }
  for (const owner of owners) await product.call('compact', { owner });
  const all = await product.call<MemoryStep>('memory', { owners });
  log(`  product: ${count} terminals filled`);
  await product.call('disposeAll');
  await sleep(500);
  const freed = await product.call<MemoryStep>('memory', { owners: [] });

  const baseIdle = await baseline.call<MemoryStep>('memory', { terms: [] });
  for (const term of owners) {
    await baseline.call('spawn', { term });
    await baseline.call('fillHistory', { term, lines: HISTORY_LINES });
  }
  const baseAll = await baseline.call<MemoryStep>('memory', { terms: owners });
  log(`  baseline: ${count} terminals filled`);
  return { product: { cold, idle, one, two, three, four, all, freed }, baseline: { idle: baseIdle, all: baseAll } };
}

// ------------------------------------------------------------------------------------------ 6. interrupt

export async function interruptRun(context: BenchContext, system: System): Promise<{ ms: number | null; paint: number | null }> {
  const session = await open(context, system, 'interrupt');
  try {
    await focusTerminal(session.page, system);
    await session.page.keyboard.type(foregroundFloodCommand(context.files));
    await session.page.keyboard.press('Enter');
    await sleep(1500);
    if (system === 'product') {
      await session.page.locator('shared-terminal [part="interrupt-button"]:not([disabled])').waitFor({ timeout: 10_000 });
    }
    await session.page.evaluate(() => {
      const b = (window as unknown as { __bench: { prompt: { since: number; t: number | null; paint: number | null } } }).__bench;
      b.prompt = { since: performance.now(), t: null, paint: null };
    });
    if (system === 'product') await session.page.locator('shared-terminal [part="interrupt-button"]').click();
    else await session.page.keyboard.press('Control+c');
    const handle = await session.page.waitForFunction(
      (product) => {
        const b = (
          window as unknown as {
            __bench: { prompt: { t: number | null; paint: number | null }; clicks: { t: number }[]; keys: { key: string; t: number }[] };
          }
        ).__bench;
        if (b.prompt.t === null || !b.prompt.paint) return false;
        const t0 = product ? b.clicks.at(-1)!.t : b.keys.filter((k) => k.key === 'c').at(-1)!.t;
        return { ms: b.prompt.t - t0, paint: b.prompt.paint - t0 };
      },
      system === 'product',
      { timeout: 60_000, polling: 10 },
    );
    return (await handle.jsonValue()) as { ms: number; paint: number };
  } catch (error) {
    context.log(`  interrupt (${system}): no prompt within the bound: ${(error as Error).message.split('\n')[0]}`);
    if (system === 'product') {
      // What the transport thought of this page at that point (diagnostics for the report's reader).
      const stats = await context.product.call<{ views: { ownerId: string }[] }>('transportStats').catch(() => ({ views: [] }));
      const screen = await session.page
        .evaluate(() => {
          const el = document.querySelector('shared-terminal') as unknown as {
            renderer: {
              buffer: {
                active: { baseY: number; cursorY: number; getLine(y: number): { translateToString(trim?: boolean): string } | undefined };
              };
            } | null;
            connectionState: string;
          };
          const buffer = el.renderer?.buffer.active;
          return {
            state: el.connectionState,
            cursorLine: buffer ? buffer.getLine(buffer.baseY + buffer.cursorY)?.translateToString(true) : null,
          };
        })
        .catch(() => null);
      context.log(
        `  interrupt (product) view: ${JSON.stringify(stats.views.filter((v) => v.ownerId === session.id))}; page: ${JSON.stringify(screen)}`,
      );
    }
    return { ms: null, paint: null };
  } finally {
    await session.close();
  }
}

// ------------------------------------------------------------------------------------------ 7. read and reset

export async function historyToolsRun(context: BenchContext, n: number) {
  const owner = uniqueId('history');
  try {
    await context.product.call('ensure', { owner });
    await context.product.call('fillHistory', { owner, lines: HISTORY_LINES });
    const readNewest = await context.product.call<{ times: number[]; bytes: number }>('toolTimes', {
      owner,
      tool: 'shared_terminal_read',
      args: {},
      n,
    });
    const readOldest = await context.product.call<{ times: number[]; bytes: number }>('toolTimes', {
      owner,
      tool: 'shared_terminal_read',
      args: { offset: 9_500, count: 500 },
      n,
    });
    const reset = await context.product.call<{ times: number[] }>('resetTimes', {
      owner,
      n: Math.max(2, Math.ceil(n / 4)),
      lines: HISTORY_LINES,
    });
    const pollingReset = await context.baseline.call<{ times: number[] }>('pollingResetTimes', {
      n: Math.max(2, Math.ceil(n / 4)),
      lines: HISTORY_LINES,
    });
    return { readNewest, readOldest, reset, pollingReset };
  } finally {
    await context.product.call('dispose', { owner });
  }
}
