// Driver errors as the port's errors. A duplicate key (E11000) becomes StorageConflict with the
// rule its unique index keeps ('username', 'email', 'id' …); everything else passes through
// unchanged. Which index broke is read from the server's message ("… collection: db.accounts
// index: accounts_acct dup key: …"), or, when a server leaves the name out, from the key pattern
// it reports, matched against the index definitions (schema.ts).

import { StorageConflict } from '../../core/domain/ports/storage.ts';

export const DUPLICATE_KEY = 11000;
export const WRITE_CONFLICT = 112;
export const NO_SUCH_TRANSACTION = 251;

export interface DuplicateKey {
  /** The collection, without the database name (null when the server did not say). */
  collection: string | null;
  /** The index name (null when neither the message nor the key pattern tell). */
  index: string | null;
  /** The key pattern the server reported, if any. */
  keyPattern: Record<string, unknown> | null;
  message: string;
}

interface ErrorLike {
  code?: unknown;
  errmsg?: unknown;
  message?: unknown;
  keyPattern?: unknown;
  writeErrors?: unknown;
  errorResponse?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The first duplicate-key report in a driver error: the error itself (a single write), or the
 * first of a bulk write's writeErrors (insertMany). */
function duplicateReport(error: unknown): ErrorLike | null {
  if (!isObject(error)) return null;
  const e = error as ErrorLike;
  if (e.code === DUPLICATE_KEY) return e;
  const writeErrors = Array.isArray(e.writeErrors) ? e.writeErrors : isObject(e.writeErrors) ? [e.writeErrors] : [];
  for (const w of writeErrors) {
    if (!isObject(w)) continue;
    if (w['code'] === DUPLICATE_KEY) return w as ErrorLike;
    // WriteError wraps the server's document in `err`.
    const inner = w['err'];
    if (isObject(inner) && inner['code'] === DUPLICATE_KEY) return inner as ErrorLike;
  }
  return null;
}

/** What a duplicate-key error says about itself, or null when the error is something else. */
export function duplicateKeyOf(error: unknown): DuplicateKey | null {
  const report = duplicateReport(error);
  if (report === null) return null;
  const text = typeof report.errmsg === 'string' ? report.errmsg : typeof report.message === 'string' ? report.message : '';
  // Current servers: "collection: db.coll index: name dup key"; old ones: "index: db.coll.$name dup key".
  const current = /collection: [^.\s]+\.(\S+) index: (\S+) dup key/.exec(text);
  const old = current === null ? /index: [^.\s]+\.([^$\s]+)\.\$(\S+)\s+dup key/.exec(text) : null;
  const match = current ?? old;
  const keyPattern = isObject(report.keyPattern) ? report.keyPattern : null;
  return { collection: match?.[1] ?? null, index: match?.[2] ?? null, keyPattern, message: text };
}

/** Turns a duplicate key into StorageConflict (the rule from `ruleFor`, else the index name);
 * anything else is returned unchanged. */
export function translateError(error: unknown, ruleFor: (duplicate: DuplicateKey) => string | null): unknown {
  if (error instanceof StorageConflict) return error;
  const duplicate = duplicateKeyOf(error);
  if (duplicate === null) return error;
  return new StorageConflict(ruleFor(duplicate) ?? duplicate.index ?? 'unknown', duplicate.message || undefined);
}

function hasLabel(error: unknown, label: string): boolean {
  if (!isObject(error)) return false;
  const has = error['hasErrorLabel'];
  if (typeof has === 'function') return Boolean((has as (l: string) => unknown).call(error, label));
  const labels = error['errorLabels'];
  return Array.isArray(labels) && labels.includes(label);
}

/** A transaction that failed this way may simply be run again (a write conflict with another
 * transaction, a primary that stepped down …). */
export function isTransientTransactionError(error: unknown): boolean {
  return hasLabel(error, 'TransientTransactionError') || (isObject(error) && error['code'] === WRITE_CONFLICT);
}

/** The commit may or may not have happened: committing again is safe and tells. */
export function isUnknownCommitResult(error: unknown): boolean {
  return hasLabel(error, 'UnknownTransactionCommitResult');
}
