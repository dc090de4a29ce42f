// Connections to Redis for the bus and the queue: the official node-redis client, reconnecting
// on its own (with a capped backoff) and queueing commands while it does, errors logged once
// per outage rather than once per reconnect attempt, and Lua scripts sent by SHA1 once loaded.

import { createHash } from 'node:crypto';
import { createClient, type RedisClientType } from '@redis/client';
import { silentLogger, type Logger } from '../../core/domain/ports/logger.ts';
import { option, type OptionSpec } from '../../core/domain/options.ts';

/** The options every Redis part takes (bus, queue, counters, id nodes). */
export const CONNECTION_OPTIONS: OptionSpec = {
  url: option.secret(option.url(['redis:', 'rediss:'])),
  prefix: option.string(),
  logger: option.implementing('a Logger', ['info', 'warn', 'error']),
  connectTimeoutMs: option.integer(1, 600_000),
};

export interface RedisConnectionOptions {
  /** `redis://[[user]:password@]host[:port][/db]` (default redis://127.0.0.1:6379). */
  url?: string;
  /** Namespace of every key and channel, like Mastodon's REDIS_NAMESPACE (default `rookery:`). */
  prefix?: string;
  logger?: Logger;
  /** How long the first connection may take before creation fails (default 10 s). */
  connectTimeoutMs?: number;
}

export type RedisClient = RedisClientType;

export const DEFAULT_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_PREFIX = 'rookery:';

/** Waits between reconnect attempts: 50 ms, doubling, at most 1 s. */
export function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** Math.min(retries, 10), 1000);
}

/** A connected client. Rejects when the first connection cannot be made in time (a wrong URL
 * fails at start-up, loudly); once connected, the client reconnects by itself forever. */
export async function openConnection(options: RedisConnectionOptions, role: string): Promise<RedisClient> {
  const logger = options.logger ?? silentLogger;
  const url = options.url ?? DEFAULT_URL;
  const client: RedisClient = createClient({ url, socket: { reconnectStrategy: reconnectDelay } });
  let healthy = true;
  client.on('error', (err: unknown) => {
    if (!healthy) return;
    healthy = false;
    logger.error({ err, role }, 'redis connection lost; reconnecting');
  });
  client.on('ready', () => {
    if (healthy) return;
    healthy = true;
    logger.warn({ role }, 'redis connection back');
  });
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`could not connect to redis at ${redact(url)} within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([client.connect(), timeout]);
  } catch (err) {
    client.destroy();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  healthy = true;
  return client;
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an invalid url)';
  }
}

/** Waits for `work`, or `ms` at most (for shutdowns that must not hang while Redis is gone). */
export async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    (timer as { unref?: () => void }).unref?.();
  });
  await Promise.race([work.then(() => undefined, () => undefined), late]);
  clearTimeout(timer);
}

/** Closes a client: waits for its pending replies, but not forever when Redis is gone. */
export async function closeConnection(client: RedisClient, waitMs = 2000): Promise<void> {
  if (!client.isOpen) return;
  await within(client.close(), waitMs);
  if (client.isOpen) client.destroy();
}

export interface Script {
  readonly source: string;
  readonly sha1: string;
}

export function script(source: string): Script {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

/** Runs a Lua script by its SHA1, sending the source only when Redis does not know it (first
 * use, or after a restart emptied its script cache). */
export async function runScript<T>(client: RedisClient, lua: Script, keys: readonly string[], args: readonly string[]): Promise<T> {
  const tail = [String(keys.length), ...keys, ...args];
  try {
    return (await client.sendCommand(['EVALSHA', lua.sha1, ...tail])) as T;
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return (await client.sendCommand(['EVAL', lua.source, ...tail])) as T;
  }
}
