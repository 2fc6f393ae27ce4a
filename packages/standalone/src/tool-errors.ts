/**
 * Engine failures as HTTP statuses and stable codes. The engine's codes pass through unchanged (they are
 * what the MCP error results and the DSH plugin report too); only the status is chosen here.
 */
import { CodedError } from '@shared-terminal/server';

export interface ToolFailure {
  status: number;
  code: string;
  message: string;
}

const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  // the caller's request is wrong
  'invalid-arguments': 400,
  'input-too-large': 413,
  // the terminal's state refuses it now; the message says what to do
  blocked: 409,
  exited: 409,
  busy: 409,
  'signal-refused': 409,
  // a line longer than the canonical-mode reader in front can take (the kernel would drop its tail)
  'line-too-long': 409,
  'takeover-unavailable': 409,
  'lease-closed': 409,
  cancelled: 409,
  // too much at once: wait and retry later
  'queue-full': 429,
  'too-many-tokens': 429,
  capacity: 503,
  // the terminal is gone
  disposed: 410,
  // the terminal cannot take input until it is reset (a program ignored SIGINT, the PTY refused a write):
  // the client's remedy is shared_terminal_reset, named in the message, not a retry
  'recovery-failed': 409,
  'grant-failed': 409,
};

export function describeToolFailure(error: unknown): ToolFailure {
  // Every engine failure (arguments, queue, grant refusal, terminal) carries a stable code.
  if (error instanceof CodedError) {
    return { status: STATUS_BY_CODE[error.code] ?? 500, code: error.code, message: error.message };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, code: 'internal', message: `the terminal failed: ${message}` };
}
