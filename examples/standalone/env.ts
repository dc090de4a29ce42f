// The standalone instance's settings, read from the environment (Mastodon's names where
// Mastodon has one). Shared by the server and the operator CLI so both open the same store.

import { join, resolve } from 'node:path';
import { DEFAULT_MAX_BUFFERED_BYTES, DEFAULT_WRITE_TIMEOUT_MS } from '../../adapters/node/handler.ts';
import type { ConfigInput } from '../../core/config.ts';

export interface StandaloneSettings {
  port: number;
  bind: string;
  /** What one connection may hold (adapters/node: createNodeHandler's options). */
  connections: { maxBufferedBytes: number; writeTimeoutMs: number };
  /** Rate-limit counters shared through Redis when set. */
  redisUrl: string | null;
  streamingPort: number;
  dataDir: string;
  databasePath: string;
  config: ConfigInput;
}

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

function positive(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${value}"`);
  return n;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): StandaloneSettings {
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
    port: portNumber,
    bind,
    connections: {
      maxBufferedBytes: positive(env['MAX_BUFFERED_BYTES'], DEFAULT_MAX_BUFFERED_BYTES, 'MAX_BUFFERED_BYTES'),
      writeTimeoutMs: positive(env['WRITE_TIMEOUT_MS'], DEFAULT_WRITE_TIMEOUT_MS, 'WRITE_TIMEOUT_MS'),
    },
    redisUrl: env['REDIS_URL'] || null,
    streamingPort,
    dataDir,
    databasePath: join(dataDir, 'rookery.sqlite3'),
    config: {
      domain,
      baseUrl: `${https ? 'https' : 'http'}://${webHost}`,
      streamingUrl: env['STREAMING_API_BASE_URL'] || `${https ? 'wss' : 'ws'}://${streamingHost}:${streamingPort}`,
      title: env['INSTANCE_TITLE'] || 'Rookery',
      contactEmail: env['CONTACT_EMAIL'] || '',
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
