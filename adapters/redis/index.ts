// rookery/redis: what several processes of one instance share through Redis: the event bus
// (pub/sub, with presence: bus.ts) and the job queue (queue.ts).

export { createRedisBus, type RedisBus, type RedisBusOptions } from './bus.ts';
export { createRedisQueue, type RedisQueue, type RedisQueueOptions } from './queue.ts';
export { DEFAULT_PREFIX, DEFAULT_URL, type RedisConnectionOptions } from './connection.ts';
