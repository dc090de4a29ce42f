// No queued job is lost when a worker dies: a worker process claims every job of a Redis queue,
// starts them and is killed with SIGKILL before finishing any. Its leases hold the jobs for no
// one else until they run out; then another worker gets every one of them, the ordering key's
// jobs in their order.

import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { createRedisQueue } from '../../../adapters/redis/index.ts';
import { silentLogger } from '../../../core/domain/ports/logger.ts';
import { JobRegistry } from '../../../core/domain/queue/registry.ts';
import { createWorker } from '../../../core/domain/queue/worker.ts';
import { TestClock } from '../../helpers/harness.ts';
import { childEnv, cleanCommand, endsWithTest } from '../../helpers/processes.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from '../../helpers/redis.ts';

const here = dirname(fileURLToPath(import.meta.url));
const LEASE = 60_000;
const JOBS = 12;

t.test('jobs a killed worker held run elsewhere once its leases run out', async (t) => {
  const prefix = testPrefix('worker-crash');
  const queue = await createRedisQueue({ url: SHARED_REDIS, prefix });
  t.teardown(async () => {
    await queue.close();
    await dropPrefix(prefix);
  });
  const now = Date.now();
  await queue.enqueue(
    Array.from({ length: JOBS }, (_, i) => ({ name: 'work', payload: i, orderingKey: i % 3 === 0 ? 'ordered' : null })),
    now,
  );
  // Jobs 0, 3, 6, 9 share a key: the worker can hold only the first of them.
  const startable = Array.from({ length: JOBS }, (_, i) => i).filter((i) => i % 3 !== 0 || i === 0);

  const child = endsWithTest(
    spawn(...cleanCommand(process.execPath, [join(here, '../../helpers/children/redis-worker.ts'), SHARED_REDIS, prefix, String(LEASE)]), {
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  t.teardown(() => void child.kill('SIGKILL'));
  const started = new Set<number>();
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const match of output.matchAll(/^started (\d+)$/gm)) started.add(Number(match[1]));
      if (started.size === startable.length) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the worker exited with ${code}: ${output}`)));
  });
  t.strictSame([...started].sort((a, b) => a - b), startable, 'the worker started every job it could');
  await new Promise<void>((gone) => {
    child.removeAllListeners('exit');
    child.once('exit', () => gone());
    child.kill('SIGKILL');
  });

  t.equal(await queue.size(), JOBS, 'all still queued after the kill');
  t.strictSame(await queue.claim(Date.now(), 100, LEASE), [], 'nobody else gets them while the leases hold');

  const clock = new TestClock();
  clock.advance(LEASE);
  const ran: number[] = [];
  const registry = new JobRegistry();
  registry.register('work', async (payload) => void ran.push(payload as number));
  const worker = createWorker({ queue, registry, clock, logger: silentLogger });
  await worker.drain();
  t.equal(ran.length, JOBS, 'every job ran once the leases ran out');
  t.strictSame([...ran].sort((a, b) => a - b), Array.from({ length: JOBS }, (_, i) => i), 'each of them, once');
  t.strictSame(ran.filter((n) => n % 3 === 0), [0, 3, 6, 9], 'the ordering key in order');
  t.equal(await queue.size(), 0, 'nothing left');
  t.strictSame(await queue.deadLetters(10), [], 'nothing died');
  await worker.stop();
});
