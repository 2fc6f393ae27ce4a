/** Helpers for the suites that drive real programs nobody here wrote on a real PTY. */
import { execFileSync } from 'node:child_process';
import { after, before } from 'node:test';
import { type PtyProvider, runSend, type SendResult } from '../../src/index.ts';
import { makeHub, type TestHub } from './engine.ts';

/** Fails (never skips) when a program the test drives is missing. */
export function requirePrograms(...names: string[]): void {
  const missing = names.filter((name) => {
    try {
      execFileSync('bash', ['-c', `command -v ${name}`], { stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) throw new Error(`missing ${missing.join(', ')}: run npm test (it installs them) or apt-get install them`);
}

/** A hub for one describe (on `provider` when given, its shells started from `baseEnv` when given): `send`
 *  types into terminal `id` and waits, as the model's send tool does. */
export function useHub(
  id: string,
  config: Parameters<typeof makeHub>[0] = {},
  provider?: PtyProvider,
  baseEnv?: NodeJS.ProcessEnv,
): { send: (text: string, submit?: boolean, timeoutMs?: number) => Promise<SendResult>; hub: () => TestHub } {
  let t: TestHub;
  before(() => {
    t = makeHub(config, provider, baseEnv);
  });
  after(() => t.close());
  return {
    send: (text, submit = true, timeoutMs) => runSend(t.hub, id, { text, submit, ...(timeoutMs === undefined ? {} : { timeoutMs }) }),
    hub: () => t,
  };
}
