// A number of its own (0–63) for each process that writes to a shared store, so that the ids
// they make never collide (core/domain/ids.ts). Each number is a Redis key held with a lifetime and
// renewed while the process lives; a process that dies without releasing it frees it when the
// lifetime runs out. Processes start their search at a shared counter, so consecutive starts
// take different numbers without trying the taken ones first.

import { randomBytes } from 'node:crypto';
import { ID_NODES } from '../../core/domain/ids.ts';
import { CONNECTION_OPTIONS, closeConnection, DEFAULT_PREFIX, openConnection, runScript, script, type RedisConnectionOptions } from './connection.ts';
import { checkOptions, option } from '../../core/domain/options.ts';

export interface IdNodeOptions extends RedisConnectionOptions {
  /** How long a number stays held after its process stopped renewing it (default 600 s). */
  ttlSeconds?: number;
}

export interface IdNodeLease {
  readonly node: number;
  /** Gives the number back (at shutdown). */
  release(): Promise<void>;
}

/** Extends the lease only while this process still holds it. */
const RENEW = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('EXPIRE', KEYS[1], ARGV[2])
end
return 0`);

const RELEASE = script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`);

export async function reserveIdNode(options: IdNodeOptions = {}): Promise<IdNodeLease> {
  checkOptions('reserveIdNode', options, { ...CONNECTION_OPTIONS, ttlSeconds: option.integer(10, 86_400) });
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const ttl = options.ttlSeconds ?? 600;
  const client = await openConnection(options, 'id-node');
  const owner = randomBytes(12).toString('base64url');
  try {
    const start = Number(await client.incr(`${prefix}id-node:next`));
    for (let i = 0; i < ID_NODES; i++) {
      const node = (start + i) % ID_NODES;
      const key = `${prefix}id-node:${node}`;
      if ((await client.set(key, owner, { NX: true, EX: ttl })) !== 'OK') continue;
      // Renewed at a third of the lifetime: two renewals may fail (Redis away) before it lapses.
      const timer = setInterval(() => {
        runScript<number>(client, RENEW, [key], [owner, String(ttl)])
          .then((renewed) => {
            if (renewed === 0) options.logger?.error({ node }, 'this process lost its id node to another: restart it');
          })
          .catch(() => {});
      }, (ttl * 1000) / 3);
      timer.unref();
      return {
        node,
        async release() {
          clearInterval(timer);
          await runScript(client, RELEASE, [key], [owner]).catch(() => {});
          await closeConnection(client);
        },
      };
    }
  } catch (err) {
    await closeConnection(client);
    throw err;
  }
  await closeConnection(client);
  throw new Error(`all ${ID_NODES} id nodes under ${prefix} are held by other processes`);
}
