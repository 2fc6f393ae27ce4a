/** Small assertions for browser tests (node:assert does not run in the page). */
import { waitFor } from '@shared-terminal/test-support/wait';

export function ok(value: unknown, message = 'expected a truthy value'): asserts value {
  if (!value) throw new Error(message);
}
export function equal<T>(actual: T, expected: T, message = ''): void {
  if (!Object.is(actual, expected))
    throw new Error(`${message ? message + ': ' : ''}expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}
export function deepEqual(actual: unknown, expected: unknown, message = ''): void {
  const a = JSON.stringify(actual);
  const b = JSON.stringify(expected);
  if (a !== b) throw new Error(`${message ? message + ': ' : ''}expected ${b}, got ${a}`);
}
/** Wait until `check` returns a truthy value (or fail after `ms`): test-support's waitFor at this suite's pace. */
export function until<T>(check: () => T | Promise<T>, message: string, ms = 5000): Promise<NonNullable<T>> {
  return waitFor(check, message, ms, 20);
}
