// An outbox relay process for test/adapters/redis/relay.test.ts: relays a SQLite store's outbox
// into a Redis queue, but once its first batch is enqueued it says so and stops before marking
// the batch done in the store, so the parent can kill it (SIGKILL) at the worst moment.
// Arguments: the SQLite file, the Redis url, the key prefix.

import { createRedisQueue } from '../../../adapters/redis/index.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import type { JobQueue } from '../../../core/domain/ports/queue.ts';
import { createRelay } from '../../../core/domain/queue/relay.ts';

const [path, url, prefix] = process.argv.slice(2);
if (path === undefined || url === undefined || prefix === undefined) {
  process.stderr.write('usage: relay.ts <sqlite file> <redis url> <prefix>\n');
  process.exit(2);
}
const storage = openSqliteStorage({ path });
const redis = await createRedisQueue({ url, prefix });
const to: JobQueue = {
  ...redis,
  async enqueue(jobs, now) {
    await redis.enqueue(jobs, now);
    process.stdout.write(`enqueued ${jobs.length}\n`);
    await new Promise(() => {});
  },
};
await createRelay({ from: storage.jobs, to, clock: { now: () => Date.now() } }).pass();
