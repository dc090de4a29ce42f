// The server side of the fan-out benchmark, driven by bench/fanout.ts over IPC (seeding
// accounts, reading memory and CPU). Started with --expose-gc; not a test. Arguments:
//   <httpPort> <streamingPort> <role> [<sqlite file> <redis namespace>]
// - role `all`: one process, a Rookery on SQLite with its node:http front, its worker and its
//   uWebSockets.js streaming server, on the in-process bus;
// - role `web`: the node:http front and the worker, on the Redis bus and queue;
// - role `streaming`: the streaming server alone, on the Redis bus (the same SQLite file).

import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeHandler } from '../adapters/node/handler.ts';
import { createNodeRookery } from '../adapters/node/index.ts';
import { createRedisBus, createRedisQueue, reserveIdNode } from '../adapters/redis/index.ts';
import { openSqliteStorage } from '../adapters/sqlite/index.ts';
import { startStreamingServer } from '../adapters/uws/index.ts';
import type { Id } from '../core/domain/model.ts';
import { watchCollections } from './gc-watch.ts';

const collections = watchCollections();

const [httpPort, streamingPort] = process.argv.slice(2, 4).map(Number) as [number, number];
const role = process.argv[4] ?? 'all';
const path = process.argv[5] ?? join(mkdtempSync(join(tmpdir(), 'rookery-fanout-')), 'rookery.sqlite3');
const namespace = process.argv[6];
const redis = namespace === undefined ? null : { url: 'redis://127.0.0.1:6379', prefix: `${namespace}:` };
const idNode = redis === null ? null : await reserveIdNode(redis);
const rookery = await createNodeRookery({
  config: { domain: `localhost:${httpPort}`, baseUrl: `http://localhost:${httpPort}`, streamingUrl: `ws://127.0.0.1:${streamingPort}` },
  storage: openSqliteStorage({ path }),
  // Thousands of accounts are seeded: a cheap password hash, for the benchmark only.
  secrets: { scryptN: 1024 },
  worker: role !== 'streaming',
  ...(redis === null || idNode === null ? {} : { bus: await createRedisBus(redis), queue: await createRedisQueue(redis), idNode: idNode.node }),
});
let http: Server | null = null;
if (role !== 'streaming') {
  const listening = createServer(createNodeHandler(rookery, { streaming: false }));
  await new Promise<void>((ready) => listening.listen(httpPort, '127.0.0.1', () => ready()));
  http = listening;
}
const streaming = role === 'web' ? null : await startStreamingServer(rookery, { port: streamingPort, host: '127.0.0.1' });

type Command =
  | { cmd: 'seed'; readers: number; hidden: boolean }
  | { cmd: 'stats'; gc?: boolean }
  | { cmd: 'drain' };

let seeded = 0;
async function seed(readers: number, hidden: boolean): Promise<{ author: string; readers: string[] }> {
  const core = rookery.core;
  const author = await rookery.accounts.create({ username: `author${seeded}`, email: `author${seeded}@bench.example`, password: 'bench password' });
  const others: Id[] = [];
  for (let i = 0; i < 10; i++) others.push((await rookery.accounts.create({ username: `other${seeded}_${i}`, email: `other${seeded}_${i}@bench.example`, password: 'bench password' })).id);
  const tokens: string[] = [];
  for (let i = 0; i < readers; i++) {
    const account = await rookery.accounts.create({ username: `reader${seeded}_${i}`, email: `reader${seeded}_${i}@bench.example`, password: 'bench password' });
    tokens.push(await rookery.tokens.issue(account.id, ['read']));
    if (!hidden) continue;
    // Each reader hides things of its own: two blocks, three mutes and ten keywords, none of
    // which matches what the author posts, so every status is screened and then delivered.
    const now = core.clock.now();
    for (const [n, target] of others.slice(i % 5, (i % 5) + 5).entries()) {
      if (n < 2) await core.storage.relationships.block({ id: core.ids.next(), accountId: account.id, targetAccountId: target, createdAt: now });
      else await core.storage.relationships.mute({ id: core.ids.next(), accountId: account.id, targetAccountId: target, notifications: true, expiresAt: null, createdAt: now });
    }
    await core.storage.filters.create({
      id: core.ids.next(),
      accountId: account.id,
      title: `filter ${i}`,
      context: ['public', 'home'],
      action: i % 2 === 0 ? 'hide' : 'warn',
      expiresAt: null,
      keywords: Array.from({ length: 10 }, (_, k) => ({ id: core.ids.next(), keyword: `secretword${i}x${k}`, wholeWord: true })),
      statuses: [],
      createdAt: now,
    });
  }
  seeded += 1;
  return { author: await rookery.tokens.issue(author.id, ['read', 'write']), readers: tokens };
}

process.on('message', (message: Command) => {
  void (async () => {
    if (message.cmd === 'seed') {
      process.send?.({ seeded: await seed(message.readers, message.hidden) });
    } else if (message.cmd === 'stats') {
      if (message.gc) (globalThis as { gc?: () => void }).gc?.();
      const cpu = process.cpuUsage();
      process.send?.({ stats: { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, cpu: cpu.user + cpu.system, ...collections(), streams: streaming?.stats(), hub: rookery.streaming.stats() } });
    } else if (message.cmd === 'drain') {
      await rookery.drain();
      process.send?.({ drained: true });
    }
  })();
});
process.on('SIGTERM', () => {
  void (async () => {
    await streaming?.close();
    http?.close();
    await rookery.close();
    await idNode?.release();
    process.exit(0);
  })();
});
process.send?.({ ready: true });
