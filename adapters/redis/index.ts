// rookery/redis: what several processes of one instance share through Redis: the event bus
// (pub/sub, with presence: bus.ts), the job queue (queue.ts), rate-limit counters
// (rate-limits.ts) and a number of its own for each process, so their ids never collide
// (id-node.ts).

export { createRedisBus, type RedisBus, type RedisBusOptions } from './bus.ts';
export { createRedisQueue, type RedisQueue, type RedisQueueOptions } from './queue.ts';
export { reserveIdNode, type IdNodeLease, type IdNodeOptions } from './id-node.ts';
export { createRedisCounters, type RedisCountersOptions } from './rate-limits.ts';
export { DEFAULT_PREFIX, DEFAULT_URL, type RedisConnectionOptions } from './connection.ts';
