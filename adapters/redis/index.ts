// rookery/redis: what several processes of one instance share through Redis: the job queue
// (queue.ts).

export { createRedisQueue, type RedisQueue, type RedisQueueOptions } from './queue.ts';
export { DEFAULT_PREFIX, DEFAULT_URL, type RedisConnectionOptions } from './connection.ts';
