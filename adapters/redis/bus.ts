// The event bus over Redis pub/sub, for an instance of several processes (or machines).
//
// - A message is the StreamMessage as JSON, published on `<prefix><channel>` (Mastodon's
//   channel names behind its REDIS_NAMESPACE-style prefix).
// - One dedicated subscriber connection per process, one Redis subscription per channel per
//   process however many local handlers it has; handlers get messages in publish order, and one
//   that throws cannot keep the others from theirs.
// - Presence, as Mastodon's streaming server keeps it: while this process is subscribed to a
//   channel, the key `<prefix>subscribed:<channel>` exists with a TTL (1080 s by default),
//   refreshed on an interval (360 s); when the last local handler leaves, the key goes too unless
//   another process still subscribes (checked atomically with PUBSUB NUMSUB). hasSubscribers and
//   listening read those keys, so no process renders for a channel nobody listens to anywhere.
// - After Redis restarts (or the connection drops), the client reconnects and subscribes again
//   by itself; this bus then sets its presence keys again (a restart may have emptied them) and
//   tells onReconnect listeners that messages may have been missed (core/mastodon/streaming reloads what
//   it caches per account: an invalidation published during the outage is lost).

import type { EventBus, StreamHandler, StreamMessage } from '../../core/domain/ports/bus.ts';
import { silentLogger } from '../../core/domain/ports/logger.ts';
import { CONNECTION_OPTIONS, closeConnection, DEFAULT_PREFIX, openConnection, runScript, script, within, type RedisClient, type RedisConnectionOptions } from './connection.ts';
import { ConfigError, checkOptions, option } from '../../core/domain/options.ts';

export interface RedisBusOptions extends RedisConnectionOptions {
  /** Lifetime of a presence key (default 1080 s, Mastodon's). */
  presenceTtlSeconds?: number;
  /** How often this process refreshes its presence keys (default 360 s, Mastodon's). */
  presenceRefreshMs?: number;
}

export interface RedisBus extends EventBus {
  onReconnect(listener: () => void): () => void;
  /** The key prefix in use. */
  readonly prefix: string;
}

interface LocalHandler {
  handler: StreamHandler;
  active: boolean;
}

interface ChannelState {
  handlers: Set<LocalHandler>;
  /** Settles once Redis confirmed the subscription and the presence key is set. */
  ready: Promise<void>;
  /** The function node-redis calls for this channel (needed to unsubscribe exactly it). */
  listener: (message: string) => void;
}

/** Channels per MGET when checking presence. */
const MGET_CHUNK = 1000;

/** Removes a presence key unless some connection (another process) still subscribes. */
const RELEASE_PRESENCE = script(`
local counts = redis.call('PUBSUB', 'NUMSUB', ARGV[1])
if tonumber(counts[2]) == 0 then
  return redis.call('DEL', KEYS[1])
end
return 0
`);

function isMessage(value: unknown): value is StreamMessage {
  if (value === null || typeof value !== 'object') return false;
  const m = value as Record<string, unknown>;
  return typeof m['event'] === 'string' && (m['payload'] === undefined || typeof m['payload'] === 'string');
}

export async function createRedisBus(options: RedisBusOptions = {}): Promise<RedisBus> {
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const logger = options.logger ?? silentLogger;
  checkOptions('createRedisBus', options, { ...CONNECTION_OPTIONS, presenceTtlSeconds: option.integer(1, 86_400), presenceRefreshMs: option.integer(1, 86_400_000) });
  const ttl = options.presenceTtlSeconds ?? 1080;
  const refreshMs = options.presenceRefreshMs ?? 360_000;
  if (refreshMs >= ttl * 1000) throw new ConfigError(`createRedisBus: "presenceRefreshMs" must be shorter than the presence TTL (${ttl} s), got ${refreshMs}`);

  const commands = await openConnection(options, 'bus');
  let subscriber: RedisClient;
  try {
    subscriber = await openConnection(options, 'bus subscriber');
  } catch (err) {
    await closeConnection(commands);
    throw err;
  }

  const channels = new Map<string, ChannelState>();
  /** The last Redis operation per channel: subscribe and unsubscribe of one channel never overlap. */
  const operations = new Map<string, Promise<void>>();
  const reconnectListeners = new Set<() => void>();
  let closed = false;

  const presenceKey = (channel: string) => `${prefix}subscribed:${channel}`;
  const setPresence = (channel: string) => commands.set(presenceKey(channel), '1', { EX: ttl });

  function serially(channel: string, operation: () => Promise<void>): Promise<void> {
    const previous = operations.get(channel) ?? Promise.resolve();
    const next = previous.then(operation);
    const settled = next.catch(() => undefined);
    operations.set(channel, settled);
    void settled.then(() => {
      if (operations.get(channel) === settled) operations.delete(channel);
    });
    return next;
  }

  function dispatch(channel: string, raw: string): void {
    const state = channels.get(channel);
    if (state === undefined) return;
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      message = undefined;
    }
    if (!isMessage(message)) {
      logger.warn({ channel }, 'ignored a bus message that is not a stream message');
      return;
    }
    // A snapshot, as in the in-process bus: a handler added meanwhile waits for the next one.
    for (const local of [...state.handlers]) {
      if (!local.active) continue;
      try {
        const result: unknown = local.handler(message, channel);
        if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
          (result as PromiseLike<unknown>).then(undefined, () => {});
        }
      } catch {
        // A handler must not break delivery to the others.
      }
    }
  }

  // Presence is advisory: when Redis cannot take it now (a command times out during an outage),
  // the subscription stands, and the refresh, the reconnect or the TTL puts the key right.
  async function claimPresence(channel: string): Promise<void> {
    try {
      await setPresence(channel);
    } catch (err) {
      logger.warn({ err, channel }, 'could not set stream presence in redis; the next refresh will');
    }
  }

  async function release(channel: string, listener: (message: string) => void): Promise<void> {
    await subscriber.unsubscribe(prefix + channel, listener);
    try {
      await runScript<number>(commands, RELEASE_PRESENCE, [presenceKey(channel)], [prefix + channel]);
    } catch (err) {
      logger.warn({ err, channel }, 'could not remove stream presence from redis; it will expire');
    }
  }

  const refresh = setInterval(() => {
    const names = [...channels.keys()];
    Promise.all(names.map(setPresence)).catch((err: unknown) => logger.warn({ err }, 'could not refresh stream presence in redis'));
  }, refreshMs);
  refresh.unref();

  // Attached after the first connection: every `ready` from here on is a reconnect.
  subscriber.on('ready', () => {
    if (closed) return;
    // node-redis has subscribed to every channel again before it says ready.
    const names = [...channels.keys()];
    Promise.all(names.map(setPresence))
      .catch((err: unknown) => logger.warn({ err }, 'could not restore stream presence in redis'))
      .finally(() => {
        logger.info({ channels: names.length }, 'redis bus resubscribed after a reconnect');
        for (const listener of [...reconnectListeners]) {
          try {
            listener();
          } catch (err) {
            logger.error({ err }, 'a reconnect listener failed');
          }
        }
      });
  });

  const bus: RedisBus = {
    prefix,
    async publish(channel, message) {
      if (closed) return;
      await commands.publish(prefix + channel, JSON.stringify(message));
    },
    async subscribe(channel, handler) {
      if (closed) return async () => {};
      let state = channels.get(channel);
      if (state === undefined) {
        const listener = (raw: string) => dispatch(channel, raw);
        const created: ChannelState = {
          handlers: new Set(),
          listener,
          ready: serially(channel, async () => {
            await subscriber.subscribe(prefix + channel, listener);
            await claimPresence(channel);
          }),
        };
        state = created;
        channels.set(channel, created);
        // A failed subscription leaves nothing behind; the next subscribe tries again.
        created.ready.catch(() => {
          if (channels.get(channel) === created) channels.delete(channel);
        });
      }
      const local: LocalHandler = { handler, active: true };
      state.handlers.add(local);
      const current = state;
      await current.ready;
      return async () => {
        if (!local.active) return;
        local.active = false;
        if (!current.handlers.delete(local) || current.handlers.size > 0) return;
        if (channels.get(channel) !== current) return;
        channels.delete(channel);
        if (closed) return;
        await serially(channel, () => release(channel, current.listener));
      };
    },
    async hasSubscribers(channel) {
      if ((channels.get(channel)?.handlers.size ?? 0) > 0) return true;
      if (closed) return false;
      return (await commands.exists(presenceKey(channel))) > 0;
    },
    async listening(names) {
      const found = new Set<string>();
      const remote: string[] = [];
      for (const channel of new Set(names)) {
        if ((channels.get(channel)?.handlers.size ?? 0) > 0) found.add(channel);
        else remote.push(channel);
      }
      if (remote.length === 0 || closed) return found;
      // Sent together, so pipelined: one round trip however many chunks.
      const chunks: string[][] = [];
      for (let i = 0; i < remote.length; i += MGET_CHUNK) chunks.push(remote.slice(i, i + MGET_CHUNK));
      const replies = await Promise.all(chunks.map((chunk) => commands.mGet(chunk.map(presenceKey))));
      chunks.forEach((chunk, i) => {
        const values = replies[i] ?? [];
        chunk.forEach((channel, j) => {
          if (values[j] !== null && values[j] !== undefined) found.add(channel);
        });
      });
      return found;
    },
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => void reconnectListeners.delete(listener);
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(refresh);
      reconnectListeners.clear();
      const remaining = [...channels.entries()];
      channels.clear();
      for (const [, state] of remaining) for (const local of state.handlers) local.active = false;
      // Presence of what was still subscribed goes now rather than at its TTL (unless Redis is
      // unreachable: then the TTL takes care of it).
      await within(
        Promise.all(remaining.map(([channel, state]) => serially(channel, () => release(channel, state.listener)).catch(() => undefined))),
        2000,
      );
      await Promise.all([closeConnection(subscriber), closeConnection(commands)]);
    },
  };
  return bus;
}
