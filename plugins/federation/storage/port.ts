// The federation plugin's repository: a key–value store with expiry (what Fedify caches and
// keeps: documents, keys, idempotence marks) and the operator's domain blocks.
//
// Keys are arrays of strings, stored JSON-encoded; values are plain JSON. An entry whose expiry
// has passed is never returned (get, list, cas all treat it as absent) and is removed by the
// next sweep. `list(prefix)` matches whole key parts: ['a'] lists ['a'] and ['a', …], never
// ['ab']. Domain blocks: see ../domain-blocks.ts. Contract: federation/storage/contract.ts.

import type { Millis } from 'rookery/plugin-kit';

export type KvKeyParts = readonly string[];

export interface KvEntry {
  key: string[];
  value: unknown;
}

export interface DomainBlock {
  /** Canonical: lower case, punycode, optionally with :port. */
  domain: string;
  reason: string | null;
  createdAt: Millis;
}

export interface FederationRepository {
  /** The value, or undefined when absent or expired at `now`. */
  kvGet(key: KvKeyParts, now: Millis): Promise<unknown>;
  /** The values of many keys in one read, in the order of `keys` (undefined where absent or
   * expired at `now`): what a render of many statuses or accounts reads. */
  kvGetMany(keys: readonly KvKeyParts[], now: Millis): Promise<unknown[]>;
  /** Sets it, expiring at `expiresAt` (null: never). */
  kvSet(key: KvKeyParts, value: unknown, expiresAt: Millis | null): Promise<void>;
  kvDelete(key: KvKeyParts): Promise<void>;
  /** Live entries whose key starts with the parts of `prefix` (all for []), in key order, at
   * most `limit` (default 1000). */
  kvList(prefix: KvKeyParts, now: Millis, limit?: number): Promise<KvEntry[]>;
  /** ATOMIC. Sets `value` only when the current value deep-equals `expected` (undefined:
   * absent or expired); true when it did. */
  kvCas(key: KvKeyParts, expected: unknown, value: unknown, expiresAt: Millis | null, now: Millis): Promise<boolean>;
  /** Removes entries expired at `now`; how many. */
  kvSweep(now: Millis): Promise<number>;

  /** Blocks the domain (and its subdomains); blocking it again replaces the reason and keeps
   * the first createdAt. A 422 RookeryError for a domain that is not one. */
  block(domain: string, options?: { reason?: string | null; now?: Millis }): Promise<DomainBlock>;
  /** false when it was not blocked (a 422 for a domain that is not one). */
  unblock(domain: string): Promise<boolean>;
  /** Every block, by domain. */
  listBlocks(): Promise<DomainBlock[]>;
  /** Whether a block covers this host (itself, a parent domain, or the host without its port).
   * false for something that is not a domain. */
  isBlocked(domain: string): Promise<boolean>;
}

/** What each engine provides: rows over encoded keys and values; the rules live in index.ts. */
export interface KvRow {
  key: string;
  value: string;
  expiresAt: Millis | null;
}

export interface FederationRows {
  kvRead(key: string): Promise<KvRow | null>;
  /** The rows of these keys that exist (expired ones included), in any order. */
  kvReadMany(keys: readonly string[]): Promise<KvRow[]>;
  kvWrite(row: KvRow): Promise<void>;
  kvRemove(key: string): Promise<void>;
  /** Live rows whose key is `exact` or in [from, to), in key order. */
  kvRange(exact: string, from: string, to: string, now: Millis, limit: number): Promise<KvRow[]>;
  /** ATOMIC. Writes `next` only when the stored row is exactly `seen` (null: no row). */
  kvSwap(seen: KvRow | null, next: KvRow): Promise<boolean>;
  /** Removes rows with expiresAt <= now (only `key`'s when given). */
  kvExpire(now: Millis, key?: string): Promise<number>;
  blockUpsert(block: DomainBlock): Promise<DomainBlock>;
  blockRemove(domain: string): Promise<boolean>;
  blockList(): Promise<DomainBlock[]>;
  blockAny(domains: readonly string[]): Promise<boolean>;
}
