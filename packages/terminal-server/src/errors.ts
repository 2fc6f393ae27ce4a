/**
 * Errors with a stable machine-readable `code` (hosts map codes to HTTP statuses and tool errors) and a
 * message that says what to do next.
 */
export class CodedError<Code extends string = string> extends Error {
  readonly code: Code;
  constructor(name: string, code: Code, message: string) {
    super(message);
    this.name = name;
    this.code = code;
  }
}

/** An owner's terminal refused or failed an operation (disposed, capacity, input over its limit). */
export class TerminalError extends CodedError {
  constructor(code: string, message: string) {
    super('TerminalError', code, message);
  }
}
