// The Redis bus on the shared server, each test on its own prefix. Two bus instances stand for
// two processes of one instance: what one publishes reaches the other's handlers, and each sees
// the other's presence, so nothing is rendered for a channel nobody listens to in any process.

import t, { type Test } from 'tap';
import { createRedisBus, type RedisBus, type RedisBusOptions } from '../../../adapters/redis/index.ts';
import type { StreamMessage } from '../../../core/domain/ports/bus.ts';
import { dropPrefix, rawClient, SHARED_REDIS, testPrefix } from '../../helpers/redis.ts';

type Got = [string, StreamMessage];

/** Handlers' deliveries, and a way to wait for the n-th. */
function collector() {
  const got: Got[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    got,
    handler: (message: StreamMessage, channel: string) => {
      got.push([channel, message]);
      for (const waiter of [...waiters]) {
        if (got.length >= waiter.n) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    },
    /** Resolves once `n` messages in all arrived. */
    until(n: number): Promise<void> {
      if (got.length >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

/** Two "processes" on one prefix, closed and cleaned up after the test. */
async function pair(t: Test, options: RedisBusOptions = {}): Promise<{ a: RedisBus; b: RedisBus; prefix: string }> {
  const prefix = testPrefix('bus');
  const a = await createRedisBus({ url: SHARED_REDIS, prefix, ...options });
  const b = await createRedisBus({ url: SHARED_REDIS, prefix, ...options });
  t.teardown(async () => {
    await a.close();
    await b.close();
    await dropPrefix(prefix);
  });
  return { a, b, prefix };
}

t.test('what one process publishes reaches every handler of the channel in the others, in order', async (t) => {
  const { a, b } = await pair(t);
  const first = collector();
  const second = collector();
  const other = collector();
  await a.subscribe('timeline:public', first.handler);
  await a.subscribe('timeline:public', second.handler);
  await a.subscribe('timeline:public:local', other.handler);
  const update = { event: 'update', payload: '{"id":"1"}', status: { statusIds: ['1'], accountIds: ['2'], authorIds: ['2'], domains: [], language: 'en', text: 'hi' }, signedIn: false };
  await b.publish('timeline:public', update);
  await b.publish('timeline:nobody', { event: 'delete', payload: '9' });
  await b.publish('timeline:public', { event: 'delete', payload: '1' });
  await b.publish('timeline:public', { event: 'filters_changed' });
  await Promise.all([first.until(3), second.until(3)]);
  t.strictSame(first.got, [
    ['timeline:public', update],
    ['timeline:public', { event: 'delete', payload: '1' }],
    ['timeline:public', { event: 'filters_changed' }],
  ], 'every message, whole, with its channel, in publish order');
  t.strictSame(second.got, first.got, 'the second handler got the same');
  await a.publish('timeline:public:local', { event: 'update', payload: '{}' });
  await other.until(1);
  t.strictSame(other.got, [['timeline:public:local', { event: 'update', payload: '{}' }]], 'a process gets what it published itself, and other channels only their own');
});

t.test('one Redis subscription per channel per process, whatever the handlers', async (t) => {
  const { a, prefix } = await pair(t);
  const redis = await rawClient();
  t.teardown(() => redis.destroy());
  const numsub = async () => Number((await redis.pubSubNumSub(`${prefix}c`))[`${prefix}c`]);
  const offs = await Promise.all(Array.from({ length: 5 }, () => a.subscribe('c', () => {})));
  t.equal(await numsub(), 1, 'five handlers, one subscription');
  for (const off of offs.slice(1)) await off();
  t.equal(await numsub(), 1, 'still subscribed while a handler is left');
  await (offs[0] as () => Promise<void>)();
  t.equal(await numsub(), 0, 'unsubscribed with the last one');
});

t.test('presence: a key per channel while a process listens, seen by every process', async (t) => {
  const { a, b, prefix } = await pair(t);
  const redis = await rawClient();
  t.teardown(() => redis.destroy());
  const key = `${prefix}subscribed:timeline:1`;
  t.equal(await b.hasSubscribers('timeline:1'), false, 'nobody listens yet');
  const offA = await a.subscribe('timeline:1', () => {});
  t.equal(await redis.get(key), '1', 'the key is set once subscribed');
  const ttl = await redis.ttl(key);
  t.ok(ttl > 1000 && ttl <= 1080, `with Mastodon's TTL (${ttl} s)`);
  t.equal(await b.hasSubscribers('timeline:1'), true, 'another process sees it');
  t.equal(await a.hasSubscribers('timeline:1'), true, 'and so does this one');
  const offB = await b.subscribe('timeline:1', () => {});
  await offA();
  t.equal(await redis.get(key), '1', 'the key stays while another process still subscribes');
  t.equal(await a.hasSubscribers('timeline:1'), true);
  await offB();
  t.equal(await redis.exists(key), 0, 'gone with the last subscriber of any process');
  t.equal(await a.hasSubscribers('timeline:1'), false);
  t.equal(await b.hasSubscribers('timeline:1'), false);
});

t.test('listening: of many channels, those anyone listens to', async (t) => {
  const { a, b } = await pair(t);
  const names = Array.from({ length: 2500 }, (_, i) => `timeline:${i}`);
  await a.subscribe('timeline:7', () => {});
  await a.subscribe('timeline:2499', () => {});
  await b.subscribe('timeline:1500', () => {});
  t.strictSame([...(await b.listening(names))].sort(), ['timeline:1500', 'timeline:2499', 'timeline:7'], 'across processes and past one MGET of 1,000');
  t.strictSame([...(await a.listening(['timeline:7', 'timeline:7', 'timeline:8']))], ['timeline:7'], 'duplicates count once');
  t.strictSame([...(await a.listening([]))], [], 'nothing asked, nothing found');
});

t.test('a throwing handler, or a message that is not a stream message, harms nothing', async (t) => {
  const { a, b, prefix } = await pair(t);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => void process.off('unhandledRejection', onUnhandled));
  const good = collector();
  await a.subscribe('c', () => {
    throw new Error('boom');
  });
  await a.subscribe('c', (async () => {
    throw new Error('async boom');
  }) as () => void);
  await a.subscribe('c', good.handler);
  const redis = await rawClient();
  t.teardown(() => redis.destroy());
  await redis.publish(`${prefix}c`, 'not json');
  await redis.publish(`${prefix}c`, '{"payload":"no event"}');
  await redis.publish(`${prefix}c`, '{"event":"update","payload":{"not":"a string"}}');
  await b.publish('c', { event: 'update', payload: 'x' });
  await good.until(1);
  t.strictSame(good.got, [['c', { event: 'update', payload: 'x' }]], 'only the stream message, after the ones ignored');
  await b.publish('c', { event: 'delete', payload: 'y' });
  await good.until(2);
  t.equal(good.got.length, 2, 'the handlers after the throwing ones keep getting messages');
  t.strictSame(unhandled, [], 'no unhandled rejection');
});

t.test('subscribing again while the last unsubscribe is on its way', async (t) => {
  const { a, b, prefix } = await pair(t);
  const redis = await rawClient();
  t.teardown(() => redis.destroy());
  const off = await a.subscribe('c', () => {});
  const leaving = off();
  const again = collector();
  await a.subscribe('c', again.handler);
  await leaving;
  t.equal(await redis.get(`${prefix}subscribed:c`), '1', 'presence is back');
  await b.publish('c', { event: 'x' });
  await again.until(1);
  t.strictSame(again.got, [['c', { event: 'x' }]], 'and messages arrive');
  await off();
  t.equal(await redis.get(`${prefix}subscribed:c`), '1', 'an unsubscribe called twice removes nothing more');
});

t.test('close: presence goes at once, and the bus does nothing more', async (t) => {
  const prefix = testPrefix('bus-close');
  t.teardown(() => dropPrefix(prefix));
  const bus = await createRedisBus({ url: SHARED_REDIS, prefix });
  const redis = await rawClient();
  t.teardown(() => redis.destroy());
  const got = collector();
  const off = await bus.subscribe('a', got.handler);
  await bus.subscribe('b', got.handler);
  t.equal(await redis.exists([`${prefix}subscribed:a`, `${prefix}subscribed:b`]), 2);
  await bus.close();
  t.equal(await redis.exists([`${prefix}subscribed:a`, `${prefix}subscribed:b`]), 0, 'both presence keys removed');
  t.equal(Number((await redis.pubSubNumSub(`${prefix}a`))[`${prefix}a`]), 0, 'unsubscribed');
  t.equal(await bus.hasSubscribers('a'), false);
  t.strictSame([...(await bus.listening(['a', 'b']))], []);
  await bus.publish('a', { event: 'x' });
  await off();
  await (await bus.subscribe('a', got.handler))();
  await bus.close();
  t.strictSame(got.got, [], 'nothing delivered, nothing thrown');
});

t.test('presence options are checked', async (t) => {
  await t.rejects(createRedisBus({ url: SHARED_REDIS, presenceTtlSeconds: 0 }), { name: 'ConfigError', message: 'Invalid config: createRedisBus: "presenceTtlSeconds" must be a whole number from 1 to 86400, got 0' });
  await t.rejects(createRedisBus({ url: SHARED_REDIS, presenceTtlSeconds: 10, presenceRefreshMs: 10_000 }), { name: 'ConfigError', message: 'Invalid config: createRedisBus: "presenceRefreshMs" must be shorter than the presence TTL (10 s), got 10000' });
  await t.rejects(createRedisBus({ url: 'http://user:secret@127.0.0.1:6379' }), { name: 'ConfigError', message: 'Invalid config: createRedisBus: "url" must be a redis:// or rediss:// URL, got another string' });
  await t.rejects(createRedisBus({ url: SHARED_REDIS, namespace: 'x' } as never), { name: 'ConfigError', message: 'Invalid config: createRedisBus: unknown option "namespace"' });
});
