// Rate-limit counters in Redis (127.0.0.1:6379, under a key prefix of this test's own): the
// CounterStore's behaviour, and two Rookery processes' worth of fronts counting against one
// limit, as the standalone instance's processes do with REDIS_URL.

import { randomUUID } from 'node:crypto';
import { createClient } from '@redis/client';
import t from 'tap';
import { createRedisCounters } from '../../adapters/redis/rate-limits.ts';
import { harness } from '../helpers/harness.ts';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const prefix = `rookery-test:harden:${randomUUID()}:`;
const admin = createClient({ url: REDIS_URL });
await admin.connect();
t.teardown(async () => {
  for await (const keys of admin.scanIterator({ MATCH: `${prefix}*`, COUNT: 100 })) if (keys.length > 0) await admin.del(keys);
  await admin.close();
});

t.test('the Redis counters', async (t) => {
  const counters = await createRedisCounters({ url: REDIS_URL, prefix });
  t.teardown(() => counters.close?.());
  const now = Date.now();
  const end = now + 60_000;
  t.same(await counters.add([{ key: 'a', amount: 1, expiresAt: end }, { key: 'a', amount: 1, expiresAt: end }, { key: 'b', amount: 0, expiresAt: end }], now), [1, 2, 0]);
  t.same(await counters.add([{ key: 'a', amount: 0, expiresAt: end }], now), [2], 'read without counting');
  t.same(await counters.add([], now), []);
  const ttl = await admin.pTTL(`${prefix}a`);
  t.ok(ttl > 0 && ttl <= 60_000, `forgotten when the window ends (${ttl} ms left)`);
});

t.test('two Rookery instances share one limit through Redis', async (t) => {
  const one = await harness({ counters: await createRedisCounters({ url: REDIS_URL, prefix }) });
  const two = await harness({ counters: await createRedisCounters({ url: REDIS_URL, prefix }) });
  t.teardown(async () => {
    await one.close();
    await two.close();
  });
  const from = { 'x-forwarded-for': '203.0.113.99' };
  for (let i = 0; i < 300; i++) {
    const res = await (i % 2 === 0 ? one : two).request('GET', '/api/v1/instance', { headers: from });
    if (res.statusCode !== 200) t.fail(`request ${i}: ${res.statusCode}`);
  }
  const last = await one.request('GET', '/api/v1/instance', { headers: from });
  t.same([last.statusCode, last.json], [429, { error: 'Too many requests' }], 'the 301st, counted across both');
  t.equal((await two.request('GET', '/api/v1/instance', { headers: from })).statusCode, 429, 'on either');
});
