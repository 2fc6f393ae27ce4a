/**
 * DSH's inline limit for tool results, read from where DSH keeps it.
 *
 * DSH's spill policy (`@deepseek-ai/dsh-spill-policy`, configured by `dsh-base` with `maxInlineBytes`)
 * replaces a plain-text tool result larger than that limit with a head/tail preview: for our JSON that
 * would be a document cut in the middle. The policy registers no service, so its limit is read from the
 * Loader's entry tree (the same tree DSH's plugin inventory lists): every enabled row of that module, its
 * validated config on a live fiber (else the row's raw config). Several rows (a preset realm) give their
 * smallest limit. No row, or no Loader (a profile without spill policy), means no limit.
 *
 * Read per call, not at load time: the policy may load after us, and a user's patch may change it.
 */
import type { DshContext } from './dsh-api.ts';

export const SPILL_POLICY_MODULE = '@deepseek-ai/dsh-spill-policy';

/** The members of a cordis Loader entry this module reads (cordis-plugin-loader 1.0). */
export interface LoaderEntryLike {
  readonly disabled?: boolean;
  readonly options?: { readonly name?: unknown; readonly config?: unknown };
  readonly fiber?: { readonly config?: unknown } | undefined;
}

export interface LoaderLike {
  entries(): Iterable<LoaderEntryLike>;
}

function limitOf(config: unknown): number | undefined {
  const value = (config as { maxInlineBytes?: unknown } | null | undefined)?.maxInlineBytes;
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The smallest `maxInlineBytes` of the enabled spill-policy rows of `loader`, or undefined. */
export function inlineLimitOf(loader: LoaderLike | undefined): number | undefined {
  if (!loader || typeof loader.entries !== 'function') return undefined;
  let smallest: number | undefined;
  for (const entry of loader.entries()) {
    if (entry.options?.name !== SPILL_POLICY_MODULE || entry.disabled === true) continue;
    const limit = limitOf(entry.fiber?.config) ?? limitOf(entry.options?.config);
    if (limit !== undefined && (smallest === undefined || limit < smallest)) smallest = limit;
  }
  return smallest;
}

/** DSH's inline limit as the running host has it (undefined when nothing limits results). */
export function dshInlineLimit(ctx: DshContext): number | undefined {
  try {
    return inlineLimitOf(ctx.get('loader') as LoaderLike | undefined);
  } catch {
    return undefined;
  }
}

/** The byte cap of a result's JSON: the plugin's own cap, or DSH's inline limit when that is smaller. */
export function effectiveResultCap(maxToolOutputBytes: number, inlineLimit: number | undefined): number {
  return inlineLimit === undefined ? maxToolOutputBytes : Math.min(maxToolOutputBytes, inlineLimit);
}
