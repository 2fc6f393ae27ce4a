/**
 * Polling for tests, DOM-free (Node and the browser). A timeout here guards against a hang; it is never a
 * speed assertion, so callers pick generous ones.
 */
export const sleep = (ms: number): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Poll `check` until it returns a truthy value, and return it; fail after `timeoutMs` naming `what`. */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000, intervalMs = 25): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}
