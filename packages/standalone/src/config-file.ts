/**
 * The `--config FILE.json` loader: the same keys and rules as the DSH plugin's config (`resolveConfig`),
 * with errors that name the file, the key and the rule.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, resolveConfig, type TerminalConfig } from '@shared-terminal/server';

export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

export function loadConfigFile(path: string | undefined): TerminalConfig {
  if (path === undefined) return resolveConfig({});
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ConfigFileError(`${path}: cannot read the config file (${code}); pass an existing JSON file to --config`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(`${path}: not valid JSON (${(error as Error).message}); write an object such as {"rows": 40}`);
  }
  try {
    return resolveConfig(value);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigFileError(`${path}: ${error.message}`);
    throw error;
  }
}
