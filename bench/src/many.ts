/**
 * Many terminals in one server, as DSH runs them (every agent and subagent has its own): a product server
 * of its own (maxSessions raised) holds 1 to 128 live terminals, some of them flooding, and one page is
 * attached to a quiet terminal. Per cell: that terminal's model sends of `true` (with the page attached,
 * before any key) and the page's keystroke echo; the server's CPU time per MB of output while floods run.
 * Then the floor under the same floods (bare PTYs in the baseline's process, no page): what the machine
 * alone does to a quiet terminal's echo.
 * Apart from it, in a fresh server: RSS per idle terminal at 64 and 128 terminals.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { backgroundFloodCommand } from './content.ts';
import { echoRun, type BenchContext, type EchoRun } from './measures.ts';
import type { MemoryFigures } from './proc.ts';
import type { RpcChild } from './rpc.ts';
import { echoP99, median } from './stats.ts';

export interface ManyCell {
  /** Live terminals in the server, the page's own included. */
  terminals: number;
  /** How many of the others run a background flood. */
  floods: number;
  /** The 1-terminal case measured again after every other cell of its pass (the reference pools all). */
  closing?: true;
  /** 1 for the full grid; later passes repeat only the reference and the judged cells. Absent: 1. */
  pass?: number;
  /** Model sends of `true` in the page's (quiet) terminal, ms each. */
  send: number[];
  echo: EchoRun;
  /** The server's CPU time (user + system) and the output it read, over the cell. */
  cpuMs: number;
  outputChars: number;
  seconds: number;
}

/** The floor's echo with `floods` floods running in other bare PTYs of its process. */
export interface ManyFloorCell {
  floods: number;
  echo: { times: number[]; missed: number };
}

export interface ManyMemory {
  /** RSS after a warm-up terminal was created and disposed, before the idle terminals. */
  idle: MemoryFigures;
  at: { terminals: number; figures: MemoryFigures; shells: number[] }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Terminal counts judged against the 1-terminal case (larger counts are observations for the recommendation). */
export const MANY_JUDGED_UP_TO = 32;

/** A cell whose ratios are judged: 4 floods, up to MANY_JUDGED_UP_TO terminals. */
export function isJudgedManyCell(cell: { terminals: number; floods: number }): boolean {
  return cell.floods === 4 && cell.terminals <= MANY_JUDGED_UP_TO;
}

/** The cells: every count with 0, 1 and 4 floods among the other terminals (as many as there are). */
export function manyPlan(counts: readonly number[]): { terminals: number; floods: number }[] {
  return counts.flatMap((terminals) =>
    [0, 1, 4].filter((floods) => floods === 0 || floods < terminals).map((floods) => ({ terminals, floods })),
  );
}

type PlannedCell = { terminals: number; floods: number; closing?: true; pass: number };

/**
 * The cells in the order they are measured. The 1-terminal case is every ratio's reference: measured
 * first and again last in each pass, so that neither the machine's load at one moment nor the few slowest
 * keys of one cell decide it alone. Pass 1 is the whole grid; each later pass repeats only the reference
 * and the judged cells, which the report pools across passes (one pass flipped the verdict between runs).
 */
export function manyOrder(plan: { terminals: number; floods: number }[], passes: number): PlannedCell[] {
  const again = plan.length > 1 && plan.some((c) => c.terminals === 1 && c.floods === 0);
  if (!again) return plan.map((c) => ({ ...c, pass: 1 }));
  const reference = (pass: number, closing: boolean): PlannedCell => ({
    terminals: 1,
    floods: 0,
    pass,
    ...(closing ? { closing: true } : {}),
  });
  const order: PlannedCell[] = [...plan.map((c) => ({ ...c, pass: 1 })), reference(1, true)];
  const judged = plan.filter(isJudgedManyCell);
  for (let pass = 2; pass <= passes && judged.length > 0; pass++)
    order.push(reference(pass, false), ...judged.map((c) => ({ ...c, pass })), reference(pass, true));
  return order;
}

/** Grows the server's terminals cell by cell (counts ascending), floods the first `floods` of the others. */
export async function manyLatencyRun(
  context: BenchContext,
  plan: { terminals: number; floods: number }[],
  options: { keys: number; sends: number; passes: number },
): Promise<ManyCell[]> {
  const server = context.product;
  const background: string[] = [];
  const cells: ManyCell[] = [];
  try {
    for (const { terminals, floods, closing: last, pass } of manyOrder(plan, options.passes)) {
      while (background.length > terminals - 1) await server.call('dispose', { owner: background.pop()! });
      while (background.length < terminals - 1) {
        const owner = `many-${background.length}`;
        await server.call('ensure', { owner });
        background.push(owner);
      }
      await server.call('countOutput', { owners: background });
      const flooding = background.slice(0, floods);
      const pidFiles = flooding.map((owner) => join(context.files.dir, `${owner}.pid`));
      try {
        for (const [i, owner] of flooding.entries())
          await server.call('send', { owner, text: backgroundFloodCommand(context.files, 120, pidFiles[i]!) });
        if (floods > 0) await sleep(1000); // the floods are running
        const before = await server.call<{ cpuMs: number; outputChars: number }>('usage');
        const started = performance.now();
        let send: number[] = [];
        // A judged cell types twice the keys, as many as the pooled reference: its p99 is then the 3rd
        // slowest of 300, not the 2nd of 150, which alone flipped the verdict between runs.
        const echo = await echoRun(context, 'product', {
          keys: isJudgedManyCell({ terminals, floods }) ? options.keys * 2 : options.keys,
          flood: false,
          before: async (owner) => {
            send = (await server.call<{ times: number[] }>('sendTimes', { owner, text: 'true', n: options.sends })).times;
          },
        });
        const after = await server.call<{ cpuMs: number; outputChars: number }>('usage');
        cells.push({
          terminals,
          floods,
          ...(last ? { closing: last } : {}),
          ...(pass > 1 ? { pass } : {}),
          send,
          echo,
          cpuMs: after.cpuMs - before.cpuMs,
          outputChars: after.outputChars - before.outputChars,
          seconds: (performance.now() - started) / 1000,
        });
      } catch (error) {
        // One cell lost to a loaded machine (a page that did not load in time) is logged, not fatal.
        context.log(`many: ${terminals} terminals, ${floods} flooding: no figures (${(error as Error).message.split('\n')[0]})`);
      } finally {
        endFloods(pidFiles);
        if (floods > 0) await sleep(500); // the floods' last output is read
      }
      const cell = cells.at(-1);
      if (cell && cell.terminals === terminals && cell.floods === floods)
        context.log(
          `many: ${pass > 1 ? `pass ${pass}, ` : ''}${terminals} terminals${last ? ' (again, last)' : ''}, ${floods} flooding: send true p50 ${median(cell.send).toFixed(1)} ms, echo p99 ${echoP99(cell.echo.latencies, cell.echo.missed).toFixed(1)} ms (${cell.echo.latencies.length} keys, missed ${cell.echo.missed}), CPU ${(cell.cpuMs / cell.seconds / 10).toFixed(0)}% of a core, ${(cell.outputChars / 1e6 / cell.seconds).toFixed(1)} MB/s of output`,
        );
    }
  } finally {
    await server.call('disposeAll');
  }
  return cells;
}

/** The floor under 0, 1 and 4 floods (those the plan has), the same flood command as the product's cells. */
export async function manyFloorRun(
  context: BenchContext,
  plan: { terminals: number; floods: number }[],
  options: { keys: number },
): Promise<ManyFloorCell[]> {
  const cells: ManyFloorCell[] = [];
  for (const floods of [...new Set(plan.map((c) => c.floods))].sort((a, b) => a - b)) {
    const pidFiles = Array.from({ length: floods }, (_, i) => join(context.files.dir, `floor-flood-${i}.pid`));
    try {
      const floodCommands = pidFiles.map((file) => backgroundFloodCommand(context.files, 120, file));
      const echo = await context.baseline.call<ManyFloorCell['echo']>('floorEchoWithFloods', { floodCommands, keys: options.keys });
      cells.push({ floods, echo });
      context.log(
        `many: the floor with ${floods} flooding: echo p99 ${echoP99(echo.times, echo.missed).toFixed(1)} ms (${echo.times.length} keys, missed ${echo.missed})`,
      );
    } finally {
      endFloods(pidFiles);
    }
  }
  return cells;
}

/** End the background floods whose pids these files hold (a flood that ended by itself is fine). */
function endFloods(pidFiles: string[]): void {
  for (const file of pidFiles) {
    try {
      process.kill(Number(readFileSync(file, 'utf8').trim()), 'SIGTERM');
    } catch {
      // it ended by itself
    }
    rmSync(file, { force: true });
  }
}

/** In a fresh server: idle terminals (bash at its prompt, nothing printed) up to each count. */
export async function manyMemoryRun(server: RpcChild<unknown>, counts: readonly number[]): Promise<ManyMemory> {
  await server.call('ensure', { owner: 'many-warm-up' });
  await server.call('dispose', { owner: 'many-warm-up' });
  await sleep(500);
  const idle = await server.call<MemoryFigures>('memory', { owners: [] });
  const owners: string[] = [];
  const at: ManyMemory['at'] = [];
  for (const count of [...counts].sort((a, b) => a - b)) {
    while (owners.length < count) {
      const owner = `idle-${owners.length}`;
      await server.call('ensure', { owner });
      owners.push(owner);
    }
    await sleep(1000); // every prompt confirmed, nothing pending
    const { shells, ...figures } = await server.call<MemoryFigures & { shells: number[] }>('memory', { owners });
    at.push({ terminals: count, figures, shells });
  }
  await server.call('disposeAll');
  return { idle, at };
}
