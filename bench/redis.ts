// node bench/redis.ts (through npm run bench:redis): the Redis queue and bus on a private
// redis-server started here on a free port. Reports jobs per second through enqueue, claim and
// complete; Redis's own CPU per job (from INFO, steady on a shared machine); the time of one
// claim with a large backlog behind a few ordering keys against an empty queue (the key layout
// keeps it flat); messages per second from one process's publish to another's handler; and the
// time of one `listening` call over 1,000 channels. Benchmarks time things; tests never do.

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createClient } from '@redis/client';
import { createRedisBus, createRedisQueue } from '../adapters/redis/index.ts';

const JOBS = Number(process.env['BENCH_JOBS'] ?? 20_000);
const MESSAGES = Number(process.env['BENCH_MESSAGES'] ?? 20_000);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((ready, fail) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) ready();
    });
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}: ${output}`)));
  });
  return child;
}

const port = await freePort();
const server = await startRedis(port);
const url = `redis://127.0.0.1:${port}`;
const admin = createClient({ url });
await admin.connect();

async function redisCpuMs(): Promise<number> {
  const info = await admin.info('cpu');
  const read = (name: string) => Number(new RegExp(`${name}:([0-9.]+)`).exec(info)?.[1] ?? 0);
  return (read('used_cpu_sys') + read('used_cpu_user')) * 1000;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

try {
  // ---- queue -------------------------------------------------------------------------------
  const queue = await createRedisQueue({ url, prefix: 'bench:' });
  const now = Date.now();
  let cpu = await redisCpuMs();
  let started = performance.now();
  for (let i = 0; i < JOBS; i += 64) {
    await queue.enqueue(Array.from({ length: Math.min(64, JOBS - i) }, (_, j) => ({ name: 'job', payload: { n: i + j, text: 'x'.repeat(200) }, orderingKey: (i + j) % 2 === 0 ? `key:${(i + j) % 1000}` : null })), now);
  }
  const enqueueMs = performance.now() - started;
  const enqueueCpu = (await redisCpuMs()) - cpu;
  cpu = await redisCpuMs();
  started = performance.now();
  let done = 0;
  while (done < JOBS) {
    const jobs = await queue.claim(now, 64, 60_000);
    if (jobs.length === 0) throw new Error(`stuck after ${done} jobs`);
    await queue.complete(jobs.map((job) => job.id));
    done += jobs.length;
  }
  const drainMs = performance.now() - started;
  const drainCpu = (await redisCpuMs()) - cpu;
  console.log(`queue: ${fmt(JOBS)} jobs (half of them on 1,000 ordering keys), 200-byte payloads, batches of 64`);
  console.log(`  enqueue            ${fmt(JOBS / (enqueueMs / 1000))} jobs/s   redis CPU ${fmt((enqueueCpu * 1000) / JOBS, 1)} µs/job`);
  console.log(`  claim + complete   ${fmt(JOBS / (drainMs / 1000))} jobs/s   redis CPU ${fmt((drainCpu * 1000) / JOBS, 1)} µs/job`);

  const claimTime = async (): Promise<number> => {
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      const jobs = await queue.claim(now, 1, 60_000);
      times.push(performance.now() - t0);
      await queue.retry((jobs[0] as { id: string }).id, now, 'bench');
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)] as number;
  };
  await queue.enqueue([{ name: 'alone', payload: null }], now);
  const empty = await claimTime();
  const BACKLOG = 100_000;
  for (let i = 0; i < BACKLOG; i += 500) {
    await queue.enqueue(Array.from({ length: 500 }, (_, j) => ({ name: 'waiting', payload: i + j, orderingKey: `busy:${(i + j) % 10}` })), now);
  }
  const busy = await claimTime();
  console.log(`  one claim, median of 50: ${fmt(empty, 3)} ms with 1 job queued, ${fmt(busy, 3)} ms with ${fmt(BACKLOG + 1)} (behind 10 keys)`);
  await queue.close();

  // ---- bus ---------------------------------------------------------------------------------
  const publisher = await createRedisBus({ url, prefix: 'bench:' });
  const subscriber = await createRedisBus({ url, prefix: 'bench:' });
  let received = 0;
  let allIn: () => void = () => {};
  const finished = new Promise<void>((resolve) => (allIn = resolve));
  await subscriber.subscribe('timeline:public', () => {
    received += 1;
    if (received === MESSAGES) allIn();
  });
  const payload = JSON.stringify({ id: '1', content: 'x'.repeat(1500) });
  cpu = await redisCpuMs();
  started = performance.now();
  for (let i = 0; i < MESSAGES; i += 100) {
    await Promise.all(Array.from({ length: 100 }, () => publisher.publish('timeline:public', { event: 'update', payload })));
  }
  await finished;
  const busMs = performance.now() - started;
  const busCpu = (await redisCpuMs()) - cpu;
  console.log(`bus: ${fmt(MESSAGES)} messages of ${fmt(payload.length)} bytes, one process to another`);
  console.log(`  ${fmt(MESSAGES / (busMs / 1000))} messages/s   redis CPU ${fmt((busCpu * 1000) / MESSAGES, 1)} µs/message`);
  const names = Array.from({ length: 1000 }, (_, i) => `timeline:${i}`);
  for (let i = 0; i < 1000; i += 10) await subscriber.subscribe(`timeline:${i}`, () => {});
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    const found = await publisher.listening(names);
    times.push(performance.now() - t0);
    if (found.size !== 100) throw new Error(`listening found ${found.size}`);
  }
  times.sort((a, b) => a - b);
  console.log(`  listening over 1,000 channels (100 listened to): ${fmt(times[25] as number, 3)} ms, median of 50`);
  await publisher.close();
  await subscriber.close();
} finally {
  admin.destroy();
  server.kill('SIGKILL');
}
