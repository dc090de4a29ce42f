// The standalone instance's settings, read from the environment (Mastodon's names where
// Mastodon has one). Shared by the server and the operator CLI so both open the same store.

import { join, resolve } from 'node:path';
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_WRITE_TIMEOUT_MS } from '../../adapters/node/handler.ts';
import type { ConfigInput } from '../../core/domain/config.ts';
import { DEFAULT_FIRST_KNOCK, SIGNATURE_SPECS, type SignatureSpec } from '../../plugins/federation/signatures.ts';

/** What one process of the instance does (ROOKERY_ROLE): `all` of it, or one part of a
 * deployment of many processes that share a store and Redis. */
export type Role = 'web' | 'streaming' | 'worker' | 'all';
export const ROLES: readonly Role[] = ['web', 'streaming', 'worker', 'all'];

export interface StandaloneSettings {
  role: Role;
  /** REDIS_URL: the bus, the queue, the rate-limit counters and the id nodes shared between
   * processes; null: all in this process. */
  redisUrl: string | null;
  /** REDIS_NAMESPACE, as Mastodon's: the prefix of every key and channel (default `rookery`). */
  redisPrefix: string;
  port: number;
  bind: string;
  /** What one connection may hold (adapters/node: createNodeHandler's options). */
  connections: { maxBufferedBytes: number; writeTimeoutMs: number };
  streamingPort: number;
  /** METRICS_PORT: where GET /metrics answers for Prometheus (on BIND); null: no metrics. */
  metricsPort: number | null;
  dataDir: string;
  /** The SQLite file, used unless postgres or mongodbUrl is set. */
  databasePath: string;
  /** DATABASE_URL: storage on PostgreSQL instead of SQLite in DATA_DIR, with DB_POOL and
   * DB_STATEMENT_TIMEOUT_MS. */
  postgres: PostgresSettings | null;
  /** MONGODB_URI: storage on MongoDB (a replica set) instead of SQLite in DATA_DIR. */
  mongodbUrl: string | null;
  config: ConfigInput;
  /** ROOKERY_TEST_CLOCK_OFFSET_MS: how far ahead of the system clock this instance's clock runs.
   * For tests only (a scheduled status or a poll's end reached without waiting); 0 otherwise. */
  clockOffsetMs: number;
  /** FEDERATION (default on): ActivityPub with other servers. ALLOW_PRIVATE_ADDRESS=true lets it
   * fetch from and deliver to private and loopback addresses, over plain http: tests only.
   * AUTHORIZED_FETCH=true: Mastodon's secure mode. FEDERATION_FIRST_KNOCK: how the first
   * delivery to a server is signed. */
  federation: { enabled: boolean; allowPrivateAddress: boolean; authorizedFetch?: boolean; firstKnock?: SignatureSpec };
  /** SMTP_SERVER and the other SMTP_* variables (Mastodon's); null: mail is logged, not sent. */
  smtp: SmtpSettings | null;
}

export interface SmtpSettings {
  host: string;
  port: number;
  login: string;
  password: string;
  from: string;
  starttls: 'auto' | 'always' | 'never';
  tls: boolean;
}

function smtpSettings(env: NodeJS.ProcessEnv, domain: string): SmtpSettings | null {
  const host = env['SMTP_SERVER'] || '';
  if (host === '') return null;
  const starttls = (env['SMTP_ENABLE_STARTTLS'] || 'auto').toLowerCase();
  if (starttls !== 'auto' && starttls !== 'always' && starttls !== 'never') throw new Error(`SMTP_ENABLE_STARTTLS must be auto, always or never, got "${starttls}"`);
  const tls = flag(env['SMTP_TLS'], false) || flag(env['SMTP_SSL'], false);
  return {
    host,
    port: port(env['SMTP_PORT'], tls ? 465 : 587, 'SMTP_PORT'),
    login: env['SMTP_LOGIN'] || '',
    password: env['SMTP_PASSWORD'] || '',
    // Mastodon's default sender.
    from: env['SMTP_FROM_ADDRESS'] || `notifications@${domain.replace(/:\d+$/, '')}`,
    starttls,
    tls,
  };
}

export interface PostgresSettings {
  url: string;
  /** DB_POOL (Mastodon's name): most connections this process opens. */
  pool: number;
  /** DB_STATEMENT_TIMEOUT_MS: longest a statement may run (0: no limit). */
  statementTimeoutMs: number;
}

export const DEFAULT_DB_POOL = 10;
export const DEFAULT_DB_STATEMENT_TIMEOUT_MS = 10_000;

function flag(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  return !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
}

function port(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number, got "${value}"`);
  return n;
}

function offset(value: string | undefined, name: string): number {
  if (value === undefined || value === '') return 0;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a whole number of milliseconds (0 or more), got "${value}"`);
  return n;
}

function role(value: string | undefined, redisUrl: string | null): Role {
  const chosen = (value || 'all').toLowerCase();
  if (!(ROLES as readonly string[]).includes(chosen)) throw new Error(`ROOKERY_ROLE must be web, streaming, worker or all, got "${value}"`);
  // A part needs the others: events and jobs cross processes only through Redis.
  if (chosen !== 'all' && redisUrl === null) throw new Error(`ROOKERY_ROLE=${chosen} needs REDIS_URL: the processes of one instance share events and jobs through Redis`);
  return chosen as Role;
}

function signatureSpec(value: string | undefined, name: string): SignatureSpec {
  if (value === undefined || value === '') return DEFAULT_FIRST_KNOCK;
  if (!(SIGNATURE_SPECS as readonly string[]).includes(value)) throw new Error(`${name} must be ${SIGNATURE_SPECS.join(' or ')}, got "${value}"`);
  return value as SignatureSpec;
}

function positive(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

function count(value: string | undefined, fallback: number, name: string, min: number, max: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new Error(`${name} must be a whole number from ${min} to ${max}, got "${value}"`);
  return n;
}

/** Throws unless `url` is a PostgreSQL connection string. The string is never repeated in the
 * message: it may hold a password. */
export function checkPostgresUrl(url: string, name: string): void {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  // A host, or a socket directory in ?host= (as libpq and node-postgres take it).
  const located = parsed !== null && (parsed.hostname !== '' || parsed.searchParams.has('host'));
  if (parsed === null || !['postgres:', 'postgresql:'].includes(parsed.protocol) || !located) {
    throw new Error(`${name} must be a PostgreSQL connection string: postgres://user[:password]@host[:port]/database`);
  }
}

function postgresSettings(env: NodeJS.ProcessEnv): PostgresSettings | null {
  const url = env['DATABASE_URL'] || null;
  if (url !== null && env['MONGODB_URI']) {
    throw new Error('DATABASE_URL and MONGODB_URI are both set: an instance keeps its data in one store; unset one of them');
  }
  // Checked even without DATABASE_URL: a typo is said at once, not when PostgreSQL is chosen.
  const pool = count(env['DB_POOL'], DEFAULT_DB_POOL, 'DB_POOL', 1, 1000);
  const statementTimeoutMs = count(env['DB_STATEMENT_TIMEOUT_MS'], DEFAULT_DB_STATEMENT_TIMEOUT_MS, 'DB_STATEMENT_TIMEOUT_MS', 0, 2_147_483_647);
  if (url === null) return null;
  checkPostgresUrl(url, 'DATABASE_URL');
  return { url, pool, statementTimeoutMs };
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): StandaloneSettings {
  const redisUrl = env['REDIS_URL'] || null;
  const portNumber = port(env['PORT'], 3000, 'PORT');
  const bind = env['BIND'] || '127.0.0.1';
  const streamingPort = port(env['STREAMING_PORT'], 4000, 'STREAMING_PORT');
  const dataDir = resolve(env['DATA_DIR'] || './data');
  const localDomain = env['LOCAL_DOMAIN'] || '';
  // Without LOCAL_DOMAIN the instance names itself after where it listens, over plain HTTP.
  const host = bind === '0.0.0.0' || bind === '::' || bind === '127.0.0.1' || bind === '::1' ? 'localhost' : bind;
  const https = localDomain !== '' && flag(env['LOCAL_HTTPS'], true);
  const domain = localDomain || `${host}:${portNumber}`;
  const webHost = localDomain || `${host}:${portNumber}`;
  const streamingHost = localDomain ? localDomain.replace(/:\d+$/, '') : host;
  const registrations = (env['REGISTRATIONS'] || 'open').toLowerCase();
  if (!['open', 'approval', 'closed'].includes(registrations)) throw new Error(`REGISTRATIONS must be open, approval or closed, got "${registrations}"`);
  return {
    role: role(env['ROOKERY_ROLE'], redisUrl),
    redisUrl,
    redisPrefix: `${env['REDIS_NAMESPACE'] || 'rookery'}:`,
    port: portNumber,
    bind,
    connections: {
      maxBufferedBytes: positive(env['MAX_BUFFERED_BYTES'], DEFAULT_MAX_BUFFERED_BYTES, 'MAX_BUFFERED_BYTES'),
      writeTimeoutMs: positive(env['WRITE_TIMEOUT_MS'], DEFAULT_WRITE_TIMEOUT_MS, 'WRITE_TIMEOUT_MS'),
    },
    streamingPort,
    metricsPort: env['METRICS_PORT'] ? port(env['METRICS_PORT'], 0, 'METRICS_PORT') : null,
    dataDir,
    databasePath: join(dataDir, 'rookery.sqlite3'),
    clockOffsetMs: offset(env['ROOKERY_TEST_CLOCK_OFFSET_MS'], 'ROOKERY_TEST_CLOCK_OFFSET_MS'),
    postgres: postgresSettings(env),
    mongodbUrl: env['MONGODB_URI'] || null,
    smtp: smtpSettings(env, domain),
    federation: {
      enabled: flag(env['FEDERATION'], true),
      allowPrivateAddress: flag(env['ALLOW_PRIVATE_ADDRESS'], false),
      authorizedFetch: flag(env['AUTHORIZED_FETCH'], false),
      firstKnock: signatureSpec(env['FEDERATION_FIRST_KNOCK'], 'FEDERATION_FIRST_KNOCK'),
    },
    config: {
      domain,
      baseUrl: `${https ? 'https' : 'http'}://${webHost}`,
      streamingUrl: env['STREAMING_API_BASE_URL'] || `${https ? 'wss' : 'ws'}://${streamingHost}:${streamingPort}`,
      title: env['INSTANCE_TITLE'] || 'Rookery',
      ...(env['INSTANCE_DESCRIPTION'] ? { description: env['INSTANCE_DESCRIPTION'] } : {}),
      contactEmail: env['CONTACT_EMAIL'] || '',
      // One rule per line.
      rules: (env['INSTANCE_RULES'] ?? '').split('\n').map((rule) => rule.trim()).filter((rule) => rule !== ''),
      limitedFederation: flag(env['LIMITED_FEDERATION_MODE'], false),
      rateLimits: flag(env['RATE_LIMITS'], true),
      // Mastodon's variable: the reverse proxies whose X-Forwarded-For names the client.
      ...(env['TRUSTED_PROXY_IP'] ? { trustedProxies: env['TRUSTED_PROXY_IP'].split(/[\s,]+/).filter((s) => s !== '') } : {}),
      registrations: {
        open: registrations !== 'closed',
        approvalRequired: registrations === 'approval',
        confirmationRequired: flag(env['REQUIRE_EMAIL_CONFIRMATION'], false),
      },
    },
  };
}
