// Rate-limit counters in Redis (under a key prefix of this test's own): the CounterStore's
// behaviour, two Rookery processes' worth of fronts counting against one limit, as the
// standalone instance's processes do with REDIS_URL, and limits failing open while Redis is away.

import t from 'tap';
import { createRedisCounters } from '../../../adapters/redis/index.ts';
import { windowedHarness } from '../../helpers/harness.ts';
import { dropPrefix, privateRedis, rawClient, SHARED_REDIS as REDIS_URL, testPrefix } from '../../helpers/redis.ts';

const prefix = testPrefix('rate-limits');
t.teardown(() => dropPrefix(prefix));
const admin = await rawClient();
t.teardown(() => admin.destroy());

t.test('the Redis counters', async (t) => {
  const counters = await createRedisCounters({ url: REDIS_URL, prefix });
  t.teardown(() => counters.close?.());
  const now = Date.now();
  const end = now + 60_000;
  t.same(await counters.add([{ key: 'a', amount: 1, expiresAt: end }, { key: 'a', amount: 1, expiresAt: end }, { key: 'b', amount: 0, expiresAt: end }], now), [1, 2, 0]);
  t.same(await counters.add([{ key: 'a', amount: 0, expiresAt: end }], now), [2], 'read without counting');
  t.same(await counters.add([], now), []);
  const ttl = await admin.pTTL(`${prefix}rate:a`);
  t.ok(ttl > 0 && ttl <= 60_000, `forgotten when the window ends (${ttl} ms left)`);
});

t.test('two Rookery instances share one limit through Redis', async (t) => {
  const one = await windowedHarness({ counters: await createRedisCounters({ url: REDIS_URL, prefix }) });
  const two = await windowedHarness({ counters: await createRedisCounters({ url: REDIS_URL, prefix }) });
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

t.test('while Redis is away, requests are served uncounted rather than refused', async (t) => {
  const redis = await privateRedis(t.teardown);
  const counters = await createRedisCounters({ url: redis.url, prefix });
  const h = await windowedHarness({ counters });
  t.teardown(() => h.close());
  const from = { 'x-forwarded-for': '203.0.113.7' };
  const counted = await h.request('GET', '/api/v1/instance', { headers: from });
  t.equal(counted.headers['x-ratelimit-remaining'], '299');
  await redis.kill();
  const away = await h.request('GET', '/api/v1/instance', { headers: from });
  t.equal(away.statusCode, 200, 'served');
  t.equal(away.headers['x-ratelimit-remaining'], '300', 'uncounted');
});
