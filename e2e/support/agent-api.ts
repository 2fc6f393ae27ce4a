/**
 * The model's side in the e2e tests: the HTTP tool API and the events stream of a running CLI, called from
 * Node with the bearer token, exactly as an agent would.
 */
import type { ReadResult, SendResult } from '@shared-terminal/server';
import type { HumanSettledEvent } from '@shared-terminal/standalone';
import type { RunningCli } from '../../packages/standalone/test/helpers/cli.ts';

export interface AgentSummary {
  id: string;
  live: boolean;
  generation: number;
  status: { kind: 'running' } | { kind: 'exited'; exitCode: number | null; signal: string | null };
  queueStatus: string;
  holder: string | null;
  pendingCount: number;
}

async function post<T>(cli: RunningCli, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${cli.base}${path}`, {
    method: 'POST',
    headers: { ...cli.auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as T & { error?: { code: string; message: string } };
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status} ${json.error?.code}: ${json.error?.message}`);
  return json;
}

export function agentApi(cli: RunningCli, agent: string) {
  return {
    send: (text: string, submit = true) => post<SendResult>(cli, `/api/agents/${agent}/tools/shared_terminal_send`, { text, submit }),
    read: (args: { offset?: number; count?: number } = {}) =>
      post<ReadResult>(cli, `/api/agents/${agent}/tools/shared_terminal_read`, args),
    async summary(): Promise<AgentSummary> {
      const response = await fetch(`${cli.base}/api/agents/${agent}`, { headers: cli.auth });
      return (await response.json()) as AgentSummary;
    },
  };
}

export interface EventStream {
  /** The next `human-settled` event not returned before. */
  nextSettled(timeoutMs?: number): Promise<HumanSettledEvent>;
  /** Every `human-settled` event so far. */
  settled(): HumanSettledEvent[];
  close(): void;
}

/** Subscribe to an agent's events stream; resolves once the server has accepted the subscription. */
export async function subscribeEvents(cli: RunningCli, agent: string): Promise<EventStream> {
  const abort = new AbortController();
  const response = await fetch(`${cli.base}/api/agents/${agent}/events`, { headers: cli.auth, signal: abort.signal });
  if (!response.ok || !response.body) throw new Error(`events of ${agent}: HTTP ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const received: HumanSettledEvent[] = [];
  let taken = 0;
  let buffer = '';
  let wake: (() => void) | undefined;
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const type = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (type === 'human-settled' && data) received.push(JSON.parse(data) as HumanSettledEvent);
        }
        wake?.();
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    async nextSettled(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length <= taken) {
        if (Date.now() > deadline) throw new Error(`no human-settled event for ${agent} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 100);
        });
      }
      return received[taken++]!;
    },
    settled: () => [...received],
    close: () => abort.abort(),
  };
}
