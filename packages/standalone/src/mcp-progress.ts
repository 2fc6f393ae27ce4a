/**
 * Progress of a long send for an MCP client that asked for it (a `progressToken` in the call): every
 * interval, the time the send has run and the newest line on the screen, so a person watching the client
 * (and a client that extends its request timeout on progress) knows the command is alive.
 */
import type { ProgressToken, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { TerminalHub } from '@shared-terminal/server';

/** Four reports a minute at most: enough to show life, too few to cost the client anything. */
export const PROGRESS_INTERVAL_MS = 15_000;
/** A screen row is up to `cols` wide; the report needs only its start. */
const LINE_LIMIT = 200;

export interface ProgressReporter {
  stop(): void;
}

function newestLine(viewport: string): string {
  const rows = viewport.split('\n');
  for (let i = rows.length - 1; i >= 0; i -= 1) {
    const row = rows[i]!.trimEnd();
    if (row !== '') return row.length > LINE_LIMIT ? `${row.slice(0, LINE_LIMIT)}…` : row;
  }
  return '';
}

export function reportProgress(options: {
  hub: TerminalHub;
  agent: string;
  token: ProgressToken;
  send: (notification: ServerNotification) => Promise<void>;
  intervalMs?: number;
}): ProgressReporter {
  const started = performance.now();
  let looking = false;
  let stopped = false;
  const tick = async () => {
    // A slow screen read must not pile up behind the next tick.
    if (looking) return;
    looking = true;
    try {
      const owner = options.hub.get(options.agent);
      const view = owner?.generation ? await owner.view() : undefined;
      const seconds = Math.round((performance.now() - started) / 1000);
      const line = view ? newestLine(view.viewport) : '';
      // The send may have finished while the screen was read: a report after its result is noise to the client.
      if (stopped) return;
      await options.send({
        method: 'notifications/progress',
        params: {
          progressToken: options.token,
          progress: seconds,
          message: line ? `running for ${seconds} s; newest line: ${line}` : `running for ${seconds} s`,
        },
      });
    } catch {
      // The call may have ended (or the client gone) between two ticks: nothing to report to.
    } finally {
      looking = false;
    }
  };
  const timer = setInterval(() => void tick(), options.intervalMs ?? PROGRESS_INTERVAL_MS);
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}
