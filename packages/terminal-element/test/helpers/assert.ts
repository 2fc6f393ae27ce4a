/** Small assertions for browser tests (node:assert does not run in the page). */
export function ok(value: unknown, message = 'expected a truthy value'): asserts value {
  if (!value) throw new Error(message);
}
export function equal<T>(actual: T, expected: T, message = ''): void {
  if (!Object.is(actual, expected)) throw new Error(`${message ? message + ': ' : ''}expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
export function deepEqual(actual: unknown, expected: unknown, message = ''): void {
  const a = JSON.stringify(actual);
  const b = JSON.stringify(expected);
  if (a !== b) throw new Error(`${message ? message + ': ' : ''}expected ${b}, got ${a}`);
}
/** Wait until `check` returns a truthy value (or fail after `ms`). */
export async function until<T>(check: () => T | Promise<T>, message: string, ms = 5000): Promise<NonNullable<T>> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out: ${message}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
