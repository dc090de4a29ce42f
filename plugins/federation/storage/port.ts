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

/** What Mastodon's admin API adds to a block (severity, …), kept as JSON beside it; a block
 * without them (the operator's CLI makes those) is a plain suspension. */
export interface DomainBlockSettings {
  severity: 'silence' | 'suspend' | 'noop';
  rejectMedia: boolean;
  rejectReports: boolean;
  publicComment: string | null;
  obfuscate: boolean;
}

export interface DomainBlockWithSettings extends DomainBlock {
  settings: DomainBlockSettings;
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

  /** Blocks the domain (and its subdomains); blocking it again replaces the reason, keeps the
   * first createdAt and makes a milder block (the admin API's silence or noop) a suspension.
   * A 422 RookeryError for a domain that is not one. */
  block(domain: string, options?: { reason?: string | null; now?: Millis }): Promise<DomainBlock>;
  /** false when it was not blocked (a 422 for a domain that is not one). */
  unblock(domain: string): Promise<boolean>;
  /** Every block, by domain. */
  listBlocks(): Promise<DomainBlock[]>;
  /** Every block with its settings, by domain. */
  listBlocksWithSettings(): Promise<DomainBlockWithSettings[]>;
  /** Blocks it (as `block`) with these settings; on a block already there, only the settings
   * (and the reason, when given) change. */
  blockWithSettings(domain: string, settings: DomainBlockSettings, options?: { reason?: string | null; now?: Millis }): Promise<DomainBlockWithSettings>;
  /** Whether a suspending block covers this host (itself, a parent domain, or the host without
   * its port). false for something that is not a domain; silence and noop do not count. */
  isBlocked(domain: string): Promise<boolean>;
}

/** What each engine provides: rows over encoded keys and values; the rules live in index.ts. */
export interface KvRow {
  key: string;
  value: string;
  expiresAt: Millis | null;
}

export interface DomainBlockRow extends DomainBlock {
  settings: string | null;
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
  /** Inserts or, for a domain there, replaces the reason; `settings` (JSON) is written when
   * given (a string or null) and kept when undefined. */
  blockUpsert(block: DomainBlock, settings?: string | null): Promise<DomainBlockRow>;
  blockRemove(domain: string): Promise<boolean>;
  blockList(): Promise<DomainBlockRow[]>;
  /** The blocks of these domains. */
  blockFind(domains: readonly string[]): Promise<DomainBlockRow[]>;
}
