/**
 * Configuration: the 15 keys of the product description with their defaults and rules, plus our own keys.
 * `resolveConfig` turns a partial object (a DSH patch row, a standalone JSON file) into a complete config,
 * or throws a `ConfigError` that names the key, the rule, and what to write instead.
 */

export interface TerminalConfig {
  /** Bash executable; other shells are not supported. */
  shellPath: string;
  /** Interactive shell arguments, no empty entry. */
  shellArgs: string[];
  /** Fixed PTY rows for each new generation. */
  rows: number;
  /** Fixed PTY columns for each new generation. */
  cols: number;
  /** History lines kept, not counting the viewport. */
  scrollbackLines: number;
  /** UTF-8 byte cap of serialized history in a snapshot, not counting the viewport. */
  scrollbackMaxBytes: number;
  /** Byte cap of a whole tool result JSON (>= 1024, <= scrollbackMaxBytes). */
  maxToolOutputBytes: number;
  /** Byte cap of one model send, and of one human input grant. */
  maxInputBytes: number;
  /** Mutations accepted per owner, counting the active one. */
  maxQueuedOperations: number;
  /** Live owner terminals at once. */
  maxSessions: number;
  /** Wait between two foreground inspections while an operation runs. */
  pollIntervalMs: number;
  /** Deadline of a model mutation before SIGINT recovery. */
  operationTimeoutMs: number;
  /** Largest deadline a send may ask for (`timeoutMs`), for installs, builds and test suites (our key). */
  maxOperationTimeoutMs: number;
  /** Wait for the controlled prompt after recovery's SIGINT. */
  interruptTimeoutMs: number;
  /** How long a disconnected controller keeps control and its lease (0: released at once). */
  disconnectGraceMs: number;
  /** Grace between SIGTERM/SIGHUP and SIGKILL when a process tree is ended. */
  disposeGraceMs: number;
  // ---- keys of our own ----
  /** TERM of the shell. `xterm-256color`: the server's emulator answers xterm queries, so colour and
   *  full-screen programs work for the human, while tool results stay plain rendered text. */
  term: string;
  /** Server ping interval for browser sockets; a socket silent for two intervals is dropped. */
  heartbeatIntervalMs: number;
  /** Extra environment for the shell (after scrubbing credentials from the host's environment). */
  env: Record<string, string>;
}

export const DEFAULT_CONFIG: Readonly<TerminalConfig> = Object.freeze({
  shellPath: '/bin/bash',
  shellArgs: ['--noprofile', '--norc', '-i'],
  rows: 40,
  cols: 160,
  scrollbackLines: 10000,
  scrollbackMaxBytes: 4194304,
  maxToolOutputBytes: 262144,
  maxInputBytes: 65536,
  maxQueuedOperations: 128,
  maxSessions: 32,
  pollIntervalMs: 50,
  operationTimeoutMs: 30000,
  maxOperationTimeoutMs: 600000,
  interruptTimeoutMs: 5000,
  disconnectGraceMs: 15000,
  disposeGraceMs: 3000,
  term: 'xterm-256color',
  heartbeatIntervalMs: 10000,
  env: {},
});

export class ConfigError extends Error {
  readonly key: string;
  constructor(key: string, message: string) {
    super(`config ${key}: ${message}`);
    this.name = 'ConfigError';
    this.key = key;
  }
}

type NumberKey = {
  [K in keyof TerminalConfig]: TerminalConfig[K] extends number ? K : never;
}[keyof TerminalConfig];

/** Numeric keys with their smallest and largest accepted value. */
const NUMBER_RULES: Record<NumberKey, readonly [min: number, max: number]> = {
  rows: [2, 1000],
  cols: [10, 2000],
  scrollbackLines: [1, 1_000_000],
  scrollbackMaxBytes: [1024, 1 << 30],
  maxToolOutputBytes: [1024, 1 << 30],
  maxInputBytes: [1, 1 << 26],
  maxQueuedOperations: [1, 100_000],
  maxSessions: [1, 10_000],
  pollIntervalMs: [1, 60_000],
  operationTimeoutMs: [1, 24 * 3600_000],
  maxOperationTimeoutMs: [1, 24 * 3600_000],
  interruptTimeoutMs: [1, 3600_000],
  disconnectGraceMs: [0, 24 * 3600_000],
  disposeGraceMs: [1, 600_000],
  heartbeatIntervalMs: [100, 3600_000],
};

const KNOWN_KEYS = new Set(Object.keys(DEFAULT_CONFIG));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Complete `input` with defaults and check every rule. Unknown keys are refused (a typo must not silently
 * fall back to a default).
 */
export function resolveConfig(input: unknown = {}, platform: NodeJS.Platform = process.platform): TerminalConfig {
  if (input === undefined || input === null) input = {};
  if (!isRecord(input)) throw new ConfigError('(root)', 'expected an object of settings, for example {"rows": 40}');
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYS.has(key)) {
      throw new ConfigError(key, `unknown setting; known settings are ${[...KNOWN_KEYS].join(', ')}`);
    }
  }
  const merged = { ...DEFAULT_CONFIG, ...input } as Record<string, unknown>;
  for (const [key, [min, max]] of Object.entries(NUMBER_RULES)) {
    const value = merged[key];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new ConfigError(key, `must be a whole number from ${min} to ${max}; got ${JSON.stringify(value)}`);
    }
  }
  const shellPath = merged['shellPath'];
  if (typeof shellPath !== 'string' || shellPath.trim() === '') {
    throw new ConfigError('shellPath', 'must be the path of a bash executable, for example "/bin/bash"');
  }
  if (!/(^|\/)bash$/.test(shellPath)) {
    throw new ConfigError('shellPath', `only bash is supported: the path must end in "bash"; got ${JSON.stringify(shellPath)}`);
  }
  const shellArgs = merged['shellArgs'];
  if (!Array.isArray(shellArgs) || shellArgs.some((arg) => typeof arg !== 'string' || arg === '')) {
    throw new ConfigError('shellArgs', 'must be a list of non-empty strings, for example ["--noprofile", "--norc", "-i"]');
  }
  const term = merged['term'];
  if (typeof term !== 'string' || !/^[A-Za-z0-9._+-]{1,64}$/.test(term)) {
    throw new ConfigError('term', 'must be a terminal type name such as "xterm-256color" or "dumb"');
  }
  const env = merged['env'];
  if (!isRecord(env) || Object.entries(env).some(([k, v]) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) || typeof v !== 'string')) {
    throw new ConfigError('env', 'must map variable names ([A-Za-z_][A-Za-z0-9_]*) to string values');
  }
  const config = merged as unknown as TerminalConfig;
  if (config.maxToolOutputBytes > config.scrollbackMaxBytes) {
    throw new ConfigError(
      'maxToolOutputBytes',
      `must not exceed scrollbackMaxBytes (${config.scrollbackMaxBytes}); got ${config.maxToolOutputBytes}`,
    );
  }
  if (config.maxOperationTimeoutMs < config.operationTimeoutMs) {
    throw new ConfigError(
      'maxOperationTimeoutMs',
      `must be at least operationTimeoutMs (${config.operationTimeoutMs}), the deadline of a send that asks for none; got ${config.maxOperationTimeoutMs}`,
    );
  }
  if (platform !== 'linux' && platform !== 'darwin') {
    throw new ConfigError('(platform)', `the shared terminal runs on Linux and macOS, not ${platform}`);
  }
  return {
    ...config,
    shellArgs: [...config.shellArgs],
    env: { ...config.env },
  };
}
