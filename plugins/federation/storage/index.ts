// The federation plugin's storage extension: one set of rows per engine, with the rules (key
// encoding, expiry, deep-equal compare-and-set, domain canonical form) here, once.

import type { MongoExtensionContext } from 'rookery/mongodb';
import type { PostgresExtensionContext } from 'rookery/postgres';
import { type Millis, type StorageExtension, unprocessable } from 'rookery/plugin-kit';
import type { SqliteExtensionContext } from 'rookery/sqlite';
import { coveringDomains, canonicalDomain, domainTexts, MAX_REASON_LENGTH, normalizeDomain } from '../domain-blocks.ts';
import { mongoFederationRows } from './mongodb.ts';
import { postgresFederationRows } from './postgres.ts';
import type { DomainBlock, DomainBlockRow, DomainBlockSettings, FederationRepository, FederationRows, KvKeyParts, KvRow } from './port.ts';
import { sqliteFederationRows } from './sqlite.ts';

export type { DomainBlock, DomainBlockSettings, DomainBlockWithSettings, FederationRepository, KvEntry, KvKeyParts } from './port.ts';

/** Bounds on what is stored (encoded lengths). */
export const MAX_KEY_LENGTH = 8192;
export const MAX_VALUE_LENGTH = 4 * 1024 * 1024;
const MAX_LIST = 10_000;

function encodeKey(key: KvKeyParts, allowEmpty = false): string {
  if (!Array.isArray(key) || (!allowEmpty && key.length === 0) || !key.every((part) => typeof part === 'string')) {
    throw new TypeError('a key is a non-empty array of strings');
  }
  const encoded = JSON.stringify(key);
  if (encoded.length > MAX_KEY_LENGTH) throw new RangeError(`a key longer than ${MAX_KEY_LENGTH} characters encoded`);
  return encoded;
}

function encodeValue(value: unknown): string {
  const encoded = JSON.stringify(value) ?? 'null';
  if (encoded.length > MAX_VALUE_LENGTH) throw new RangeError(`a value longer than ${MAX_VALUE_LENGTH} characters encoded`);
  return encoded;
}

/** JSON with object keys sorted: equal for deep-equal values. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  ) ?? 'undefined';
}

const live = (row: KvRow | null, now: number): row is KvRow => row !== null && (row.expiresAt === null || row.expiresAt > now);

/** The key range of the entries under `prefix`: its encoding without the closing bracket, then
 * a comma ("[\"a\"," …); the range ends where the comma would become the next character. */
function prefixRange(prefix: KvKeyParts): { exact: string; from: string; to: string } {
  const exact = encodeKey(prefix, true);
  const from = prefix.length === 0 ? '["' : `${exact.slice(0, -1)},`;
  const to = from.slice(0, -1) + String.fromCharCode(from.charCodeAt(from.length - 1) + 1);
  return { exact, from, to };
}

export function federationRepository(rows: FederationRows): FederationRepository {
  return {
    async kvGet(key, now) {
      const k = encodeKey(key);
      const row = await rows.kvRead(k);
      if (row === null) return undefined;
      if (!live(row, now)) {
        await rows.kvExpire(now, k);
        return undefined;
      }
      return JSON.parse(row.value) as unknown;
    },
    async kvGetMany(keys, now) {
      if (keys.length === 0) return [];
      const encoded = keys.map((key) => encodeKey(key));
      const found = new Map((await rows.kvReadMany([...new Set(encoded)])).map((row) => [row.key, row]));
      // Expired rows read as absent; the sweep removes them (a read does not write).
      return encoded.map((k) => {
        const row = found.get(k) ?? null;
        return live(row, now) ? (JSON.parse(row.value) as unknown) : undefined;
      });
    },
    async kvSet(key, value, expiresAt) {
      await rows.kvWrite({ key: encodeKey(key), value: encodeValue(value), expiresAt });
    },
    async kvDelete(key) {
      await rows.kvRemove(encodeKey(key));
    },
    async kvList(prefix, now, limit = 1000) {
      const { exact, from, to } = prefixRange(prefix);
      const found = await rows.kvRange(exact, from, to, now, Math.max(0, Math.min(MAX_LIST, Math.trunc(limit))));
      return found.map((row) => ({ key: JSON.parse(row.key) as string[], value: JSON.parse(row.value) as unknown }));
    },
    async kvCas(key, expected, value, expiresAt, now) {
      const k = encodeKey(key);
      const next: KvRow = { key: k, value: encodeValue(value), expiresAt };
      const seen = await rows.kvRead(k);
      const current = live(seen, now) ? (JSON.parse(seen.value) as unknown) : undefined;
      if (current === undefined ? expected !== undefined : expected === undefined || canonical(current) !== canonical(expected)) return false;
      return rows.kvSwap(seen, next);
    },
    kvSweep: (now) => rows.kvExpire(now),

    async block(domain, options = {}) {
      const block = blockOf(domain, options);
      const row = await rows.blockUpsert(block);
      // Blocking is suspending: a block the admin API made milder becomes a suspension again.
      const settings = settingsOf(row.settings);
      if (settings.severity !== 'suspend') await rows.blockUpsert(block, JSON.stringify({ ...settings, severity: 'suspend' }));
      return plain(row);
    },
    async blockWithSettings(domain, settings, options = {}) {
      const row = await rows.blockUpsert(blockOf(domain, options), JSON.stringify(settings));
      return { ...plain(row), settings: settingsOf(row.settings) };
    },
    async unblock(domain) {
      return rows.blockRemove(normalizeDomain(domain));
    },
    listBlocks: async () => (await rows.blockList()).map(plain),
    listBlocksWithSettings: async () => (await rows.blockList()).map((row) => ({ ...plain(row), settings: settingsOf(row.settings) })),
    async isBlocked(domain) {
      const canonicalForm = canonicalDomain(domain);
      if (canonicalForm === null) return false;
      return (await rows.blockFind(coveringDomains(canonicalForm))).some((row) => settingsOf(row.settings).severity === 'suspend');
    },
  };
}

const plain = (row: DomainBlockRow): DomainBlock => ({ domain: row.domain, reason: row.reason, createdAt: row.createdAt });

function blockOf(domain: string, options: { reason?: string | null; now?: Millis }): DomainBlock {
  const reason = options.reason ?? null;
  if (reason !== null && (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH)) throw unprocessable(domainTexts.reasonTooLong);
  return { domain: normalizeDomain(domain), reason: reason === null || reason.trim() === '' ? null : reason.trim(), createdAt: options.now ?? Date.now() };
}

/** A block's settings; none stored (the operator's CLI): a plain suspension. */
export function settingsOf(json: string | null): DomainBlockSettings {
  const parsed = json === null ? {} : (JSON.parse(json) as Partial<DomainBlockSettings>);
  return {
    severity: parsed.severity === 'silence' || parsed.severity === 'noop' ? parsed.severity : 'suspend',
    rejectMedia: parsed.rejectMedia === true,
    rejectReports: parsed.rejectReports === true,
    publicComment: typeof parsed.publicComment === 'string' ? parsed.publicComment : null,
    obfuscate: parsed.obfuscate === true,
  };
}

export const federationStorage: StorageExtension<FederationRepository> = {
  name: 'federation',
  engines: {
    sqlite: (context: SqliteExtensionContext) => federationRepository(sqliteFederationRows(context)),
    mongodb: (context: MongoExtensionContext) => federationRepository(mongoFederationRows(context)),
    postgres: (context: PostgresExtensionContext) => federationRepository(postgresFederationRows(context)),
  },
};
