// TEMPORARY, for the merge: `rookery/redis` is being built on another branch (adapters/redis).
// Until it lands, this declares the API it announced, so examples/embed-mongodb-redis type-checks
// here. Delete this file when adapters/redis is merged; the real module then types the example.
declare module 'rookery/redis' {
  import type { EventBus, JobQueue } from 'rookery';
  export function createRedisBus(options: { url: string; prefix?: string }): EventBus | Promise<EventBus>;
  export function createRedisQueue(options: { url: string; prefix?: string }): JobQueue | Promise<JobQueue>;
}
