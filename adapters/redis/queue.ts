// The job queue port (core/domain/ports/queue.ts) over Redis, with the contract's semantics: leases
// that run out when a worker dies, delays, retries that keep their place, ordering keys held
// through retries, dead letters. Every operation that changes the queue is one Lua script, so
// it is atomic however many workers claim at once.
//
// Keys, all under `<prefix>jobs:`:
//   seq            INCR counter: job ids, so id order is enqueue order
//   job:<id>       hash: name, payload (JSON), key (ordering key, absent when none), runAt,
//                  attempts, lastError, createdAt, lease (end of the lease, absent when free)
//   key:<k>        list of the queued job ids of ordering key k, in order; only its head may run
//   ready          sorted set of claimable jobs, scored by id
//   timed          sorted set of jobs waiting for a time (their runAt, or the end of their
//                  lease), scored by that time; claim moves the due ones to `ready`
//   count          how many jobs are queued (leased or not)
//   dead           sorted set of dead letters by when they died; dead:<id> hashes
//
// Only a job that may run next sits in `ready` or `timed`: one without a key, or the head of
// its key's list. A later job of a key enters `timed` when the one before it leaves the queue
// (completed or buried), so claim never looks at jobs that must wait, and costs the jobs that
// became due plus the ones it hands out, not the size of the queue.
//
// These scripts build key names from a prefix, so they suit one Redis server (or a primary with
// replicas), not Redis Cluster.

import type { Millis } from '../../core/domain/model.ts';
import type { DeadJob, Job, JobQueue, NewJob } from '../../core/domain/ports/queue.ts';
import { CONNECTION_OPTIONS, closeConnection, DEFAULT_PREFIX, openConnection, runScript, script, type RedisClient, type RedisConnectionOptions } from './connection.ts';
import { checkOptions } from '../../core/domain/options.ts';

export type RedisQueueOptions = RedisConnectionOptions;

export interface RedisQueue extends JobQueue {
  close(): Promise<void>;
  /** The key prefix in use. */
  readonly prefix: string;
}

/** Jobs per enqueue script (a larger batch is sent as several, in order). */
const ENQUEUE_CHUNK = 500;
/** Ids per complete script. */
const COMPLETE_CHUNK = 1000;
/** At most this many jobs become claimable per claim: a huge backlog whose leases all ran out
 * at once is moved over several claims rather than in one long script. */
const PROMOTE_LIMIT = 10_000;

// KEYS: 1 seq, 2 ready, 3 timed, 4 count, 5 dead. ARGV[1]: `<prefix>jobs:`.
const COMMON = `
local base = ARGV[1]
local function jobKey(id) return base .. 'job:' .. id end
local function listKey(k) return base .. 'key:' .. k end
local function padded(id) return string.rep('0', 16 - #id) .. id end
-- A job that may run next waits in ready (due at 'now') or in timed (due later).
local function place(id, at, now)
  if now ~= nil and tonumber(at) <= now then
    redis.call('ZADD', KEYS[2], id, id)
  else
    redis.call('ZADD', KEYS[3], at, id)
  end
end
-- Takes a job out of the order; the next job of its key may then run.
local function unlink(id, key)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  if key then
    local list = listKey(key)
    local head = redis.call('LINDEX', list, 0)
    redis.call('LREM', list, 1, id)
    if head == id then
      local nextId = redis.call('LINDEX', list, 0)
      if nextId then place(nextId, redis.call('HGET', jobKey(nextId), 'runAt'), nil) end
    end
  end
end
local function add(name, payload, key, runAt, createdAt, now)
  local id = tostring(redis.call('INCR', KEYS[1]))
  local h = jobKey(id)
  redis.call('HSET', h, 'name', name, 'payload', payload, 'runAt', runAt, 'attempts', '0', 'createdAt', createdAt)
  local first = true
  if key then
    redis.call('HSET', h, 'key', key)
    first = redis.call('RPUSH', listKey(key), id) == 1
  end
  if first then place(id, runAt, now) end
  redis.call('INCR', KEYS[4])
  return id
end
`;

/** ARGV: base, now, then (name, payload, hasKey, key, runAt) per job. */
const ENQUEUE = script(`${COMMON}
local now = tonumber(ARGV[2])
for i = 3, #ARGV, 5 do
  local key = false
  if ARGV[i + 2] == '1' then key = ARGV[i + 3] end
  add(ARGV[i], ARGV[i + 1], key, ARGV[i + 4], ARGV[2], now)
end
return 0
`);

/** ARGV: base, now, limit, leaseUntil, promoteLimit. */
const CLAIM = script(`${COMMON}
local due = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[2], 'LIMIT', 0, tonumber(ARGV[5]))
for _, id in ipairs(due) do
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZADD', KEYS[2], id, id)
end
local out = {}
local ids = redis.call('ZRANGE', KEYS[2], 0, tonumber(ARGV[3]) - 1)
for _, id in ipairs(ids) do
  local h = jobKey(id)
  redis.call('ZREM', KEYS[2], id)
  if redis.call('EXISTS', h) == 1 then
    redis.call('ZADD', KEYS[3], ARGV[4], id)
    redis.call('HSET', h, 'lease', ARGV[4])
    local f = redis.call('HMGET', h, 'name', 'payload', 'key', 'runAt', 'attempts', 'lastError', 'createdAt')
    out[#out + 1] = { id, f[1], f[2], f[3], f[4], f[5], f[6], f[7] }
  end
end
return out
`);

/** ARGV: base, ids... */
const COMPLETE = script(`${COMMON}
local removed = 0
for i = 2, #ARGV do
  local id = ARGV[i]
  local h = jobKey(id)
  if redis.call('EXISTS', h) == 1 then
    unlink(id, redis.call('HGET', h, 'key'))
    redis.call('DEL', h)
    removed = removed + 1
  end
end
if removed > 0 then redis.call('DECRBY', KEYS[4], removed) end
return removed
`);

/** ARGV: base, id, runAt, error, hasPayload, payload. */
const RETRY = script(`${COMMON}
local id = ARGV[2]
local h = jobKey(id)
if redis.call('EXISTS', h) == 0 then return 0 end
redis.call('HINCRBY', h, 'attempts', 1)
redis.call('HSET', h, 'runAt', ARGV[3], 'lastError', ARGV[4])
redis.call('HDEL', h, 'lease')
if ARGV[5] == '1' then redis.call('HSET', h, 'payload', ARGV[6]) end
local key = redis.call('HGET', h, 'key')
if (not key) or redis.call('LINDEX', listKey(key), 0) == id then
  redis.call('ZREM', KEYS[2], id)
  place(id, ARGV[3], nil)
end
return 1
`);

/** ARGV: base, id, error, now. */
const BURY = script(`${COMMON}
local id = ARGV[2]
local h = jobKey(id)
if redis.call('EXISTS', h) == 0 then return 0 end
unlink(id, redis.call('HGET', h, 'key'))
local d = base .. 'dead:' .. id
redis.call('RENAME', h, d)
redis.call('HINCRBY', d, 'attempts', 1)
redis.call('HSET', d, 'lastError', ARGV[3], 'diedAt', ARGV[4])
redis.call('HDEL', d, 'lease')
redis.call('ZADD', KEYS[5], ARGV[4], padded(id))
redis.call('DECR', KEYS[4])
return 1
`);

/** ARGV: base, limit. */
const DEAD_LETTERS = script(`${COMMON}
local out = {}
for _, member in ipairs(redis.call('ZREVRANGE', KEYS[5], 0, tonumber(ARGV[2]) - 1)) do
  local id = string.gsub(member, '^0+', '')
  local f = redis.call('HMGET', base .. 'dead:' .. id, 'name', 'payload', 'key', 'runAt', 'attempts', 'lastError', 'createdAt', 'diedAt')
  out[#out + 1] = { id, f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8] }
end
return out
`);

/** ARGV: base, id, now. */
const REVIVE = script(`${COMMON}
local d = base .. 'dead:' .. ARGV[2]
if redis.call('EXISTS', d) == 0 then return 0 end
local f = redis.call('HMGET', d, 'name', 'payload', 'key')
redis.call('ZREM', KEYS[5], padded(ARGV[2]))
redis.call('DEL', d)
add(f[1], f[2], f[3], ARGV[3], ARGV[3], tonumber(ARGV[3]))
return 1
`);

/** ARGV: base. The runAt of the first claimable job, else the earliest time in `timed`. */
const NEXT_DUE = script(`${COMMON}
local best = false
local first = redis.call('ZRANGE', KEYS[2], 0, 0)
if first[1] then best = tonumber(redis.call('HGET', jobKey(first[1]), 'runAt')) end
local timed = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
if timed[2] then
  local at = tonumber(timed[2])
  if (not best) or at < best then best = at end
end
return best
`);

type Field = string | null;

function jobFrom(row: Field[]): Job {
  const [id, name, payload, key, runAt, attempts, lastError, createdAt] = row;
  return {
    id: id ?? '',
    name: name ?? '',
    payload: payload === null || payload === undefined ? null : (JSON.parse(payload) as unknown),
    orderingKey: key ?? null,
    runAt: Number(runAt),
    attempts: Number(attempts),
    lastError: lastError ?? null,
    createdAt: Number(createdAt),
  };
}

/** A number Redis can store and give back exactly. */
function millis(value: number, what: string): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`${what} must be an integer number of milliseconds`);
  return String(value);
}

const ID = /^[1-9][0-9]{0,15}$/;

export async function createRedisQueue(options: RedisQueueOptions = {}): Promise<RedisQueue> {
  checkOptions('createRedisQueue', options, CONNECTION_OPTIONS);
  const prefix = options.prefix ?? DEFAULT_PREFIX;
  const base = `${prefix}jobs:`;
  const keys = [`${base}seq`, `${base}ready`, `${base}timed`, `${base}count`, `${base}dead`];
  const client: RedisClient = await openConnection(options, 'queue');
  const run = <T>(lua: Parameters<typeof runScript>[1], args: readonly string[]) => runScript<T>(client, lua, keys, [base, ...args]);

  return {
    prefix,
    async enqueue(jobs: readonly NewJob[], now: Millis) {
      for (let i = 0; i < jobs.length; i += ENQUEUE_CHUNK) {
        const args: string[] = [millis(now, 'now')];
        for (const job of jobs.slice(i, i + ENQUEUE_CHUNK)) {
          const key = job.orderingKey ?? null;
          args.push(job.name, JSON.stringify(job.payload ?? null), key === null ? '0' : '1', key ?? '', millis(job.runAt ?? now, 'runAt'));
        }
        await run(ENQUEUE, args);
      }
    },
    async claim(now, limit, leaseMs) {
      const count = Math.trunc(limit);
      if (!(count > 0)) return [];
      const rows = await run<Field[][]>(CLAIM, [millis(now, 'now'), String(count), millis(now + leaseMs, 'the lease'), String(PROMOTE_LIMIT)]);
      return rows.map(jobFrom);
    },
    async complete(ids) {
      const valid = ids.filter((id) => ID.test(id));
      for (let i = 0; i < valid.length; i += COMPLETE_CHUNK) await run(COMPLETE, valid.slice(i, i + COMPLETE_CHUNK));
    },
    async retry(id, runAt, error, payload) {
      if (!ID.test(id)) return;
      const args = [id, millis(runAt, 'runAt'), error];
      if (payload !== undefined) args.push('1', JSON.stringify(payload));
      else args.push('0', '');
      await run(RETRY, args);
    },
    async bury(id, error, now) {
      if (ID.test(id)) await run(BURY, [id, error, millis(now, 'now')]);
    },
    async deadLetters(limit) {
      const count = Math.trunc(limit);
      if (!(count > 0)) return [];
      const rows = await run<Field[][]>(DEAD_LETTERS, [String(count)]);
      return rows.map((row): DeadJob => ({ ...jobFrom(row), diedAt: Number(row[8]) }));
    },
    async revive(id, now) {
      if (!ID.test(id)) return false;
      return (await run<number>(REVIVE, [id, millis(now, 'now')])) === 1;
    },
    async nextDue() {
      const due = await run<number | null>(NEXT_DUE, []);
      return due === null ? null : Number(due);
    },
    async size() {
      return Number((await client.get(`${base}count`)) ?? 0);
    },
    async close() {
      await closeConnection(client);
    },
  };
}
