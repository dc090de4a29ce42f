// Streams resume after Redis restarts (Mastodon's bug #25157 is the anti-example: its
// streaming server stayed deaf after a Redis restart until it was restarted itself). A private
// redis-server on a free port is killed (SIGKILL) and started again on the same port, empty.

import t from 'tap';
import { createRedisBus, type RedisBus } from '../../../adapters/redis/index.ts';
import type { StreamMessage } from '../../../core/domain/ports/bus.ts';
import type { StreamEvent } from '../../../core/mastodon/streaming/hub.ts';
import { harness } from '../../helpers/harness.ts';
import { privateRedis, rawClient } from '../../helpers/redis.ts';
import { sink } from '../../helpers/streams.ts';

const PREFIX = 'rookery-restart:';

/** Resolves the next time the bus says it is back. */
function reconnected(bus: RedisBus): Promise<void> {
  return new Promise((resolve) => {
    const off = bus.onReconnect(() => {
      off();
      resolve();
    });
  });
}

t.test('after a restart: subscribed again, presence back, messages from any connection arrive', async (t) => {
  const redis = await privateRedis(t.teardown.bind(t));
  const bus = await createRedisBus({ url: redis.url, prefix: PREFIX });
  const other = await createRedisBus({ url: redis.url, prefix: PREFIX });
  t.teardown(async () => {
    await bus.close();
    await other.close();
  });
  const got: string[] = [];
  let arrived: () => void = () => {};
  await bus.subscribe('timeline:1', (message) => {
    got.push(message.event);
    arrived();
  });
  const next = () => new Promise<void>((resolve) => (arrived = resolve));

  let waiting = next();
  await other.publish('timeline:1', { event: 'before' });
  await waiting;

  const back = reconnected(bus);
  const pidBefore = redis.pid;
  await redis.restart();
  t.not(redis.pid, pidBefore, 'a new redis-server process');
  await back;

  const outside = await rawClient(redis.url);
  t.teardown(() => outside.destroy());
  t.equal(await outside.get(`${PREFIX}subscribed:timeline:1`), '1', 'the presence key is set again on the empty server');
  t.ok((await outside.ttl(`${PREFIX}subscribed:timeline:1`)) > 1000, 'with its TTL');
  t.equal(await other.hasSubscribers('timeline:1'), true, 'other processes see the listener again');

  waiting = next();
  await outside.publish(`${PREFIX}timeline:1`, JSON.stringify({ event: 'from a new connection' }));
  await waiting;
  waiting = next();
  await other.publish('timeline:1', { event: 'from a reconnected process' });
  await waiting;
  t.strictSame(got, ['before', 'from a new connection', 'from a reconnected process'], 'the subscription works again');

  // And a second outage is survived as well as the first.
  const again = reconnected(bus);
  await redis.restart();
  await again;
  waiting = next();
  await other.publish('timeline:1', { event: 'after the second restart' });
  await waiting;
  t.equal(got.at(-1), 'after the second restart');
});

t.test('presence is refreshed on its interval, recreated if it vanished', async (t) => {
  const redis = await privateRedis(t.teardown.bind(t));
  const outside = await rawClient(redis.url);
  t.teardown(() => outside.destroy());
  await outside.configSet('notify-keyspace-events', 'E$');
  const events = await rawClient(redis.url);
  t.teardown(() => events.destroy());
  const key = `${PREFIX}subscribed:timeline:2`;
  let recreated: () => void = () => {};
  await events.subscribe('__keyevent@0__:set', (setKey) => {
    if (setKey === key) recreated();
  });
  const bus = await createRedisBus({ url: redis.url, prefix: PREFIX, presenceTtlSeconds: 60, presenceRefreshMs: 50 });
  t.teardown(() => bus.close());
  await bus.subscribe('timeline:2', () => {});
  // DEL's own answer says it removed the key: a separate EXISTS could come after the next
  // refresh (every 50 ms) had already set it again.
  t.equal(await outside.del(key), 1, 'deleted from outside');
  await new Promise<void>((resolve) => (recreated = resolve));
  t.equal(await outside.get(key), '1', 'set again by the refresh');
  const ttl = await outside.ttl(key);
  t.ok(ttl > 0 && ttl <= 60, `with the configured TTL (${ttl} s)`);
});

t.test('a stream screens with fresh state after a restart: an invalidation lost in the outage does not stick', async (t) => {
  const redis = await privateRedis(t.teardown.bind(t));
  const bus = await createRedisBus({ url: redis.url, prefix: PREFIX });
  const h = await harness({ bus });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const carol = await h.user('carol');

  const identity = await h.rookery.streaming.authenticate({ authorization: `Bearer ${alice.token}` });
  if ('error' in identity) throw new Error(identity.error);
  const received = sink();
  let arrived: () => void = () => {};
  const deliver = received.output.deliver;
  received.output.deliver = (event: StreamEvent) => {
    deliver(event);
    arrived();
  };
  const connection = h.rookery.streaming.connect(identity, received.output);
  t.equal(await connection.subscribe('public', {}), null);
  const post = async (token: string, status: string): Promise<string> => {
    const res = await h.request('POST', '/api/v1/statuses', { token, payload: { status } });
    t.equal(res.statusCode, 200);
    return res.json.id as string;
  };
  const nextDelivery = () => new Promise<void>((resolve) => (arrived = resolve));

  let waiting = nextDelivery();
  const first = await post(bob.token, 'first from bob');
  await waiting;
  t.strictSame(received.events(), [`update ${first}`], 'bob reaches alice');

  // Alice mutes bob, but the message that would tell her streams never comes (as when it is
  // published during an outage): written to the store with no event.
  await h.core.storage.relationships.mute({ id: h.core.ids.next(), accountId: alice.account.id, targetAccountId: bob.account.id, notifications: true, expiresAt: null, createdAt: h.clock.now() });
  waiting = nextDelivery();
  const stale = await post(bob.token, 'bob, screened with the stale state');
  await waiting;
  t.strictSame(received.events().at(-1), `update ${stale}`, 'without the invalidation, the old state still lets bob through');

  const back = reconnected(bus);
  await redis.restart();
  await back;
  await h.rookery.streaming.settled();

  await post(bob.token, 'bob, after the restart');
  waiting = nextDelivery();
  const fromCarol = await post(carol.token, 'carol, after the restart');
  await waiting;
  t.strictSame(received.events(), [`update ${first}`, `update ${stale}`, `update ${fromCarol}`], 'the stream resumed, and screens bob out with the reloaded state');
  await connection.close();
});

t.test('published while the subscriber was away: lost, as on Mastodon, and the stream goes on', async (t) => {
  const redis = await privateRedis(t.teardown.bind(t));
  const bus = await createRedisBus({ url: redis.url, prefix: PREFIX });
  t.teardown(() => bus.close());
  const got: StreamMessage[] = [];
  let after: () => void = () => {};
  const afterArrived = new Promise<void>((resolve) => (after = resolve));
  await bus.subscribe('c', (message) => {
    got.push(message);
    if (message.event === 'after') after();
  });
  const back = reconnected(bus);
  await redis.kill();
  await redis.start();
  const outside = await rawClient(redis.url);
  t.teardown(() => outside.destroy());
  // Possibly before the bus is back: nobody may be subscribed yet.
  const receivers = Number(await outside.publish(`${PREFIX}c`, JSON.stringify({ event: 'maybe lost' })));
  await back;
  await outside.publish(`${PREFIX}c`, JSON.stringify({ event: 'after' }));
  await afterArrived;
  t.strictSame(got.map((m) => m.event), receivers === 1 ? ['maybe lost', 'after'] : ['after'], 'what was published to nobody is gone; the rest arrives');
});

t.test('a subscription asked for while Redis is down is made once it is back', async (t) => {
  const redis = await privateRedis(t.teardown.bind(t));
  const bus = await createRedisBus({ url: redis.url, prefix: PREFIX });
  t.teardown(() => bus.close());
  await bus.subscribe('before', () => {});
  const back = reconnected(bus);
  await redis.kill();
  const got: string[] = [];
  let arrived: () => void = () => {};
  const subscribing = bus.subscribe('during', (message) => {
    got.push(message.event);
    arrived();
  });
  await redis.start();
  await subscribing;
  await back;
  const outside = await rawClient(redis.url);
  t.teardown(() => outside.destroy());
  t.strictSame(await outside.mGet([`${PREFIX}subscribed:before`, `${PREFIX}subscribed:during`]), ['1', '1'], 'presence for both');
  const twice = new Promise<void>((resolve) => (arrived = () => got.length >= 2 && resolve()));
  await outside.publish(`${PREFIX}during`, JSON.stringify({ event: 'hello' }));
  await outside.publish(`${PREFIX}during`, JSON.stringify({ event: 'again' }));
  await twice;
  t.strictSame(got, ['hello', 'again'], 'delivered, each once');
  t.equal(Number((await outside.pubSubNumSub(`${PREFIX}during`))[`${PREFIX}during`]), 1, 'one subscription');
});
