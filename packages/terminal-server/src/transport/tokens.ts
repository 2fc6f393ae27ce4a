/**
 * Connection tokens: single use, valid for TOKEN_TTL_MS, bound to one owner object and to the epoch the
 * transport keeps for it (bumped by every reset, including the one that creates the first generation, and
 * by disposal). The store holds digests only; expired entries are pruned on a timer of the injected clock.
 */
import type { OwnerTerminal } from '../hub/owner.ts';
import type { Clock } from '../time.ts';
import { CodedError } from '../errors.ts';
import { TOKEN_TTL_MS } from '../protocol/index.ts';
import { digestOf, newSecret } from './secrets.ts';

export interface TokenGrant {
  owner: OwnerTerminal;
  ownerId: string;
  epoch: number;
  readonly: boolean;
}

interface TokenRecord extends TokenGrant {
  expiresAt: number;
}

export type ConsumeResult = { ok: true; grant: TokenGrant } | { ok: false; reason: 'unknown' | 'expired' };

/** Outstanding tokens above which issuing fails (a host that mints tokens in a loop must not grow memory). */
export const MAX_OUTSTANDING_TOKENS = 10_000;
/** Outstanding tokens of one owner above which issuing for it fails: a page needs one per connection, and
 *  one agent's client minting in a loop must not use up the store for every other agent's pages. */
export const MAX_TOKENS_PER_OWNER = 256;

/** Issuing refused because too many tokens are outstanding: retry after `retryAfterMs` (the oldest expire). */
export class TokenLimitError extends CodedError<'too-many-tokens'> {
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number) {
    super('TokenLimitError', 'too-many-tokens', message);
    this.retryAfterMs = retryAfterMs;
  }
}

export class TokenStore {
  private readonly clock: Clock;
  private readonly records = new Map<string, TokenRecord>();
  /** Records per owner (live or kept after expiry), so the per-owner bound costs no scan. */
  private readonly perOwner = new Map<OwnerTerminal, number>();
  private pruneTimer: unknown;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  get size(): number {
    return this.records.size;
  }

  /** @throws TokenLimitError when the store or this owner's share of it is full. */
  issue(grant: TokenGrant): { token: string; expiresInMs: number } {
    if (this.records.size >= MAX_OUTSTANDING_TOKENS || (this.perOwner.get(grant.owner) ?? 0) >= MAX_TOKENS_PER_OWNER) this.prune(0);
    if (this.records.size >= MAX_OUTSTANDING_TOKENS) {
      throw new TokenLimitError(
        `too many outstanding terminal tokens (${MAX_OUTSTANDING_TOKENS}): retry in ${TOKEN_TTL_MS / 1000} s, and request a token only when a view connects`,
        TOKEN_TTL_MS,
      );
    }
    if ((this.perOwner.get(grant.owner) ?? 0) >= MAX_TOKENS_PER_OWNER) {
      throw new TokenLimitError(
        `too many outstanding tokens for this terminal (${MAX_TOKENS_PER_OWNER}): retry in ${TOKEN_TTL_MS / 1000} s, and request a token only when a view connects`,
        TOKEN_TTL_MS,
      );
    }
    const token = newSecret();
    this.records.set(digestOf(token), { ...grant, expiresAt: this.clock.now() + TOKEN_TTL_MS });
    this.perOwner.set(grant.owner, (this.perOwner.get(grant.owner) ?? 0) + 1);
    this.schedulePrune();
    return { token, expiresInMs: TOKEN_TTL_MS };
  }

  private remove(digest: string, record: TokenRecord): void {
    this.records.delete(digest);
    const left = (this.perOwner.get(record.owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(record.owner, left);
    else this.perOwner.delete(record.owner);
  }

  /** Use a token: it is gone afterwards whatever the outcome. */
  consume(token: string): ConsumeResult {
    const digest = digestOf(token);
    const record = this.records.get(digest);
    if (!record) return { ok: false, reason: 'unknown' };
    this.remove(digest, record);
    if (this.clock.now() >= record.expiresAt) return { ok: false, reason: 'expired' };
    const { expiresAt: _expiresAt, ...grant } = record;
    return { ok: true, grant };
  }

  /** Drop every token of an owner (disposal; after a reset the epoch check refuses them, with its reason). */
  revokeOwner(owner: OwnerTerminal): void {
    for (const [digest, record] of this.records) if (record.owner === owner) this.remove(digest, record);
  }

  clear(): void {
    this.records.clear();
    this.perOwner.clear();
    if (this.pruneTimer !== undefined) this.clock.clearTimeout(this.pruneTimer);
    this.pruneTimer = undefined;
  }

  /** Expired tokens are kept one more TTL, so that a late connection hears "expired", not "unknown". */
  private prune(keepMs = TOKEN_TTL_MS): void {
    const now = this.clock.now();
    for (const [digest, record] of this.records) if (now >= record.expiresAt + keepMs) this.remove(digest, record);
  }

  private schedulePrune(): void {
    if (this.pruneTimer !== undefined) return;
    this.pruneTimer = this.clock.setTimeout(() => {
      this.pruneTimer = undefined;
      this.prune();
      if (this.records.size > 0) this.schedulePrune();
    }, TOKEN_TTL_MS);
  }
}
