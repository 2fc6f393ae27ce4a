/**
 * One-time secrets (connection tokens, resume proofs): 32 random bytes, base64url on the wire, and only
 * their SHA-256 digest kept on the server, so a memory dump or a log line of the store reveals no secret.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SECRET_PATTERN } from '../protocol/index.ts';

/** A fresh secret: 32 random bytes as 43 base64url characters. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** The digest the server keeps instead of the secret (hex, so it can key a Map). */
export function digestOf(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compare two digests in constant time. */
export function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

export function isSecret(text: string): boolean {
  return SECRET_PATTERN.test(text);
}
