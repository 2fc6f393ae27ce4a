/**
 * The plugin's configuration: the product description's 15 keys (plus `term`, `heartbeatIntervalMs` and
 * `maxOperationTimeoutMs`, our own), each with its default, as a schemastery schema — the library DSH
 * itself uses, bundled here so the server half needs no `@deepseek-ai/*` package at run time.
 *
 * DSH replaces a row's whole `config` with the user's patch row; the Loader then runs this schema, which
 * fills every key the user left out. A patch of some keys therefore behaves as "defaults plus mine".
 * Rules that schemastery cannot say (bash only, maxToolOutputBytes <= scrollbackMaxBytes, whole numbers)
 * are checked by the engine's `resolveConfig`, whose errors name the key and what to write instead.
 */
import z from '@deepseek-ai/schemastery';
import { DEFAULT_CONFIG, resolveConfig, type TerminalConfig } from '@shared-terminal/server';

/** The keys a DSH user may set, in the order of the README's table. */
export const CONFIG_KEYS = [
  'shellPath',
  'shellArgs',
  'rows',
  'cols',
  'scrollbackLines',
  'scrollbackMaxBytes',
  'maxToolOutputBytes',
  'maxInputBytes',
  'maxQueuedOperations',
  'maxSessions',
  'pollIntervalMs',
  'operationTimeoutMs',
  'maxOperationTimeoutMs',
  'interruptTimeoutMs',
  'disconnectGraceMs',
  'disposeGraceMs',
  'term',
  'heartbeatIntervalMs',
] as const satisfies readonly (keyof TerminalConfig)[];

/** Keys of the plugin alone (not the engine's): how notices to the Agent are gathered. */
export interface NoticeConfig {
  /** Quiet time after a person's last command at the idle prompt before the Agent gets one notice for all. */
  idleNoticeQuietMs: number;
}

export const DEFAULT_IDLE_NOTICE_QUIET_MS = 3000;

export type PluginConfig = Pick<TerminalConfig, (typeof CONFIG_KEYS)[number]> & NoticeConfig;

const d = DEFAULT_CONFIG;

export const Config: z<PluginConfig> = z.object({
  shellPath: z.string().default(d.shellPath).description('Bash executable; other shells are not supported.'),
  shellArgs: z
    .array(z.string())
    .default([...d.shellArgs])
    .description('Interactive shell arguments; no empty entry.'),
  rows: z.natural().min(2).max(1000).default(d.rows).description('Fixed PTY rows of each new terminal generation.'),
  cols: z.natural().min(10).max(2000).default(d.cols).description('Fixed PTY columns of each new terminal generation.'),
  scrollbackLines: z.natural().min(1).default(d.scrollbackLines).description('History lines kept, not counting the viewport.'),
  scrollbackMaxBytes: z
    .natural()
    .min(1024)
    .default(d.scrollbackMaxBytes)
    .description('UTF-8 byte cap of serialized history, not counting the viewport.'),
  maxToolOutputBytes: z
    .natural()
    .min(1024)
    .default(d.maxToolOutputBytes)
    .description('Byte cap of a whole tool result JSON; at most scrollbackMaxBytes.'),
  maxInputBytes: z.natural().min(1).default(d.maxInputBytes).description('Byte cap of one model send, and of one human input grant.'),
  maxQueuedOperations: z
    .natural()
    .min(1)
    .default(d.maxQueuedOperations)
    .description('Mutations accepted per Agent, counting the active one.'),
  maxSessions: z.natural().min(1).default(d.maxSessions).description('Live Agent terminals at once.'),
  pollIntervalMs: z.natural().min(1).default(d.pollIntervalMs).description('Wait between two foreground inspections.'),
  operationTimeoutMs: z.natural().min(1).default(d.operationTimeoutMs).description('Deadline of a model mutation before SIGINT recovery.'),
  maxOperationTimeoutMs: z
    .natural()
    .min(1)
    .default(d.maxOperationTimeoutMs)
    .description('Largest deadline a send may ask for with timeoutMs (our key); at least operationTimeoutMs.'),
  interruptTimeoutMs: z.natural().min(1).default(d.interruptTimeoutMs).description('Wait for the controlled prompt after SIGINT.'),
  disconnectGraceMs: z
    .natural()
    .default(d.disconnectGraceMs)
    .description('How long a disconnected Controller keeps control before its input lease is released.'),
  disposeGraceMs: z
    .natural()
    .min(1)
    .default(d.disposeGraceMs)
    .description('Grace between polite signals and SIGKILL when a process tree is ended.'),
  term: z.string().default(d.term).description('TERM of the shell (our key). "dumb" keeps DSH\'s own choice.'),
  heartbeatIntervalMs: z.natural().min(100).default(d.heartbeatIntervalMs).description('Browser socket ping interval (our key).'),
  idleNoticeQuietMs: z
    .natural()
    .max(600_000)
    .default(DEFAULT_IDLE_NOTICE_QUIET_MS)
    .description(
      "Quiet time after a person's commands at the idle prompt before the Agent gets one notice for all of them; 0 sends one per command (our key).",
    ),
});

/** The notice settings of a Loader-resolved config (defaults for what is missing). */
export function toNoticeConfig(config: Partial<PluginConfig> | undefined): NoticeConfig {
  const quiet = config?.idleNoticeQuietMs;
  return {
    idleNoticeQuietMs: typeof quiet === 'number' && Number.isSafeInteger(quiet) && quiet >= 0 ? quiet : DEFAULT_IDLE_NOTICE_QUIET_MS,
  };
}

/** The complete engine configuration for a Loader-resolved plugin config (throws ConfigError on a rule). */
export function toTerminalConfig(config: Partial<PluginConfig> | undefined): TerminalConfig {
  const picked: Record<string, unknown> = {};
  for (const key of CONFIG_KEYS) if (config?.[key] !== undefined) picked[key] = config[key];
  return resolveConfig(picked);
}
