// A worker process for test/adapters/redis/worker-crash.test.ts: the real worker over the Redis
// queue, with a handler that says which job it started and then never finishes, so the parent
// can kill the process (SIGKILL) while it holds its jobs' leases. Arguments: url, prefix, lease.

import { createRedisQueue } from '../../../adapters/redis/index.ts';
import { JobRegistry } from '../../../core/domain/queue/registry.ts';
import { createWorker } from '../../../core/domain/queue/worker.ts';
import { silentLogger } from '../../../core/domain/ports/logger.ts';

const [url, prefix, lease] = process.argv.slice(2);
if (url === undefined || prefix === undefined || lease === undefined) {
  process.stderr.write('usage: redis-worker.ts <url> <prefix> <lease ms>\n');
  process.exit(2);
}
const queue = await createRedisQueue({ url, prefix });
const registry = new JobRegistry();
registry.register('work', async (payload) => {
  process.stdout.write(`started ${JSON.stringify(payload)}\n`);
  await new Promise(() => {});
});
createWorker({ queue, registry, clock: { now: () => Date.now() }, logger: silentLogger, leaseMs: Number(lease), batch: 100, pollMs: 20 }).start();
process.stdout.write('worker up\n');
