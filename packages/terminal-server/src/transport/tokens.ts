/**
 * Connection tokens: single use, valid for TOKEN_TTL_MS, bound to one owner object and to the epoch the
 * transport keeps for it (bumped by every reset, including the one that creates the first generation, and
 * by disposal). The store holds digests only; expired entries are pruned on a timer of the injected clock.
 */
import type { OwnerTerminal } from '../hub/owner.ts';
import type { Clock } from '../queue/clock.ts';
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

export class TokenStore {
  private readonly clock: Clock;
  private readonly records = new Map<string, TokenRecord>();
  private pruneTimer: unknown;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  get size(): number {
    return this.records.size;
  }

  issue(grant: TokenGrant): { token: string; expiresInMs: number } {
    if (this.records.size >= MAX_OUTSTANDING_TOKENS) this.prune(0);
    if (this.records.size >= MAX_OUTSTANDING_TOKENS) {
      throw new Error(`too many outstanding terminal tokens (${MAX_OUTSTANDING_TOKENS}): issue a token only when a view connects`);
    }
    const token = newSecret();
    this.records.set(digestOf(token), { ...grant, expiresAt: this.clock.now() + TOKEN_TTL_MS });
    this.schedulePrune();
    return { token, expiresInMs: TOKEN_TTL_MS };
  }

  /** Use a token: it is gone afterwards whatever the outcome. */
  consume(token: string): ConsumeResult {
    const digest = digestOf(token);
    const record = this.records.get(digest);
    if (!record) return { ok: false, reason: 'unknown' };
    this.records.delete(digest);
    if (this.clock.now() >= record.expiresAt) return { ok: false, reason: 'expired' };
    const { expiresAt: _expiresAt, ...grant } = record;
    return { ok: true, grant };
  }

  /** Drop every token of an owner (disposal; after a reset the epoch check refuses them, with its reason). */
  revokeOwner(owner: OwnerTerminal): void {
    for (const [digest, record] of this.records) if (record.owner === owner) this.records.delete(digest);
  }

  clear(): void {
    this.records.clear();
    if (this.pruneTimer !== undefined) this.clock.clearTimeout(this.pruneTimer);
    this.pruneTimer = undefined;
  }

  /** Expired tokens are kept one more TTL, so that a late connection hears "expired", not "unknown". */
  private prune(keepMs = TOKEN_TTL_MS): void {
    const now = this.clock.now();
    for (const [digest, record] of this.records) if (now >= record.expiresAt + keepMs) this.records.delete(digest);
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
