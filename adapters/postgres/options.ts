// The options of openPostgresStorage, checked before anything connects like every other
// adapter's (core/domain/options.ts): an unknown key, a wrong type or a value out of range is a
// ConfigError naming the option, and the connection string, which may hold a password, is never
// repeated in one.

import { checkOptions, option, type OptionSpec } from '../../core/domain/options.ts';

export interface PostgresStorageOptions {
  /** A connection string: postgres://user[:password]@host[:port]/database[?…]. */
  url: string;
  /** Most connections the store opens at once (default 10). */
  pool?: number;
  /** Longest a statement may run before the server cancels it (default 10 000 ms; 0: no limit). */
  statementTimeoutMs?: number;
  /** What the server shows for these connections (pg_stat_activity); default 'rookery'. */
  applicationName?: string;
}

export interface ResolvedPostgresOptions {
  url: string;
  pool: number;
  statementTimeoutMs: number;
  applicationName: string;
}

const OPTIONS: OptionSpec = {
  url: option.required(option.secret(option.url(['postgres:', 'postgresql:']))),
  pool: option.integer(1, 1000),
  statementTimeoutMs: option.integer(0, 2_147_483_647, 'a whole number of milliseconds from 0 (no limit) to 2147483647'),
  // The server keeps 63 bytes of it and takes printable ASCII only.
  applicationName: { what: 'at most 63 printable ASCII characters', test: (v) => typeof v === 'string' && v.length <= 63 && /^[\x20-\x7e]*$/.test(v) },
};

export function resolvePostgresOptions(input: PostgresStorageOptions): ResolvedPostgresOptions {
  checkOptions('openPostgresStorage', input, OPTIONS);
  return { url: input.url, pool: input.pool ?? 10, statementTimeoutMs: input.statementTimeoutMs ?? 10_000, applicationName: input.applicationName ?? 'rookery' };
}
