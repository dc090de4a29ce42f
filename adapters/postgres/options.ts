// The options of openPostgresStorage, checked once before anything connects: an unknown key, a
// wrong type or a value out of range is refused with an error that names the option (and never
// repeats the connection string, which may hold a password).

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

export class PostgresOptionsError extends Error {
  constructor(message: string) {
    super(`invalid PostgreSQL storage options: ${message}`);
    this.name = 'PostgresOptionsError';
  }
}

const KNOWN = new Set(['url', 'pool', 'statementTimeoutMs', 'applicationName']);
const MAX_POOL = 1000;
const MAX_TIMEOUT_MS = 2_147_483_647;

export function resolvePostgresOptions(input: unknown): ResolvedPostgresOptions {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new PostgresOptionsError('expected an object with at least "url"');
  const options = input as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!KNOWN.has(key)) throw new PostgresOptionsError(`unknown option "${key}" (known: ${[...KNOWN].join(', ')})`);
  }

  const url = options['url'];
  if (typeof url !== 'string') throw new PostgresOptionsError(`"url" must be a string, got ${describe(url)}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PostgresOptionsError('"url" is not a URL (expected postgres://user@host:port/database)');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new PostgresOptionsError(`"url" must start with postgres:// or postgresql://, not ${parsed.protocol}//`);
  }

  const pool = options['pool'] === undefined ? 10 : options['pool'];
  if (typeof pool !== 'number' || !Number.isInteger(pool)) throw new PostgresOptionsError(`"pool" must be an integer, got ${describe(pool)}`);
  if (pool < 1 || pool > MAX_POOL) throw new PostgresOptionsError(`"pool" must be from 1 to ${MAX_POOL}, got ${pool}`);

  const statementTimeoutMs = options['statementTimeoutMs'] === undefined ? 10_000 : options['statementTimeoutMs'];
  if (typeof statementTimeoutMs !== 'number' || !Number.isInteger(statementTimeoutMs)) {
    throw new PostgresOptionsError(`"statementTimeoutMs" must be an integer, got ${describe(statementTimeoutMs)}`);
  }
  if (statementTimeoutMs < 0 || statementTimeoutMs > MAX_TIMEOUT_MS) {
    throw new PostgresOptionsError(`"statementTimeoutMs" must be from 0 (no limit) to ${MAX_TIMEOUT_MS}, got ${statementTimeoutMs}`);
  }

  const applicationName = options['applicationName'] === undefined ? 'rookery' : options['applicationName'];
  if (typeof applicationName !== 'string') throw new PostgresOptionsError(`"applicationName" must be a string, got ${describe(applicationName)}`);
  // The server keeps 63 bytes of it and takes printable ASCII only.
  if (applicationName.length > 63 || !/^[\x20-\x7e]*$/.test(applicationName)) {
    throw new PostgresOptionsError('"applicationName" must be at most 63 printable ASCII characters');
  }

  return { url, pool, statementTimeoutMs, applicationName };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'number' ? String(value) : typeof value;
}
