import t from 'tap';
import type { StreamMessage } from '../../core/domain/ports/bus.ts';
import { createInProcessBus } from '../../adapters/memory/index.ts';

type Got = [string, StreamMessage];

t.test('publish delivers to every handler of the channel before it resolves', async (t) => {
  const bus = createInProcessBus();
  const a: Got[] = [];
  const b: Got[] = [];
  const other: Got[] = [];
  await bus.subscribe('timeline:public', (m, c) => a.push([c, m]));
  await bus.subscribe('timeline:public', (m, c) => b.push([c, m]));
  await bus.subscribe('timeline:public:local', (m, c) => other.push([c, m]));
  const message = { event: 'update', payload: '{"id":"1"}' };
  await bus.publish('timeline:public', message);
  t.strictSame(a, [['timeline:public', message]], 'first handler, with the channel');
  t.strictSame(b, [['timeline:public', message]], 'second handler');
  t.strictSame(other, [], 'other channels get nothing');
  await bus.publish('timeline:nobody', { event: 'delete', payload: '1' });
  t.pass('publishing to a channel without subscribers is fine');
  await bus.publish('timeline:public', { event: 'delete', payload: '2' });
  t.strictSame(a.map(([, m]) => m.event), ['update', 'delete'], 'in publish order');
  await bus.publish('timeline:public', { event: 'filters_changed' });
  t.strictSame(a[2], ['timeline:public', { event: 'filters_changed' }], 'a message without payload');
  await bus.close();
});

t.test('a throwing or rejecting handler cannot break publish', async (t) => {
  const bus = createInProcessBus();
  const got: string[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  await bus.subscribe('c', () => {
    throw new Error('boom');
  });
  await bus.subscribe('c', (async () => {
    throw new Error('async boom');
  }) as () => void);
  await bus.subscribe('c', (m) => got.push(m.event));
  await bus.publish('c', { event: 'update', payload: 'x' });
  t.strictSame(got, ['update'], 'the handlers after the throwing ones still got it');
  await new Promise((resolve) => setTimeout(resolve, 20));
  process.off('unhandledRejection', onUnhandled);
  t.strictSame(unhandled, [], 'no unhandled rejection from the async handler');
  await bus.close();
});

t.test('subscribe returns an async unsubscribe; hasSubscribers is exact', async (t) => {
  const bus = createInProcessBus();
  t.equal(await bus.hasSubscribers('c'), false, 'nobody yet');
  const got: string[] = [];
  const handler = (m: StreamMessage) => got.push(m.event);
  const off1 = await bus.subscribe('c', handler);
  const off2 = await bus.subscribe('c', handler);
  t.equal(await bus.hasSubscribers('c'), true, 'subscribed');
  t.equal(await bus.hasSubscribers('d'), false, 'other channel: no');
  await bus.publish('c', { event: 'one' });
  t.strictSame(got, ['one', 'one'], 'the same handler subscribed twice gets it twice');
  const r = off1();
  t.ok(r instanceof Promise, 'unsubscribe is async');
  await r;
  t.equal(await bus.hasSubscribers('c'), true, 'one subscription left');
  await bus.publish('c', { event: 'two' });
  t.strictSame(got, ['one', 'one', 'two'], 'only the remaining subscription gets it');
  await off1();
  t.equal(await bus.hasSubscribers('c'), true, 'unsubscribing twice does not remove the other one');
  await off2();
  t.equal(await bus.hasSubscribers('c'), false, 'none left');
  await bus.publish('c', { event: 'three' });
  t.strictSame(got, ['one', 'one', 'two'], 'nothing delivered after unsubscribe');
  await bus.close();
});

t.test('changes made by handlers during a delivery', async (t) => {
  const bus = createInProcessBus();
  const got: string[] = [];
  let offB: (() => Promise<void>) | undefined;
  await bus.subscribe('c', (m) => {
    got.push(`a:${m.event}`);
    void offB?.();
    void bus.subscribe('c', (m2) => got.push(`late:${m2.event}`));
  });
  offB = await bus.subscribe('c', (m) => got.push(`b:${m.event}`));
  await bus.publish('c', { event: '1' });
  t.strictSame(got, ['a:1'], 'a handler unsubscribed during delivery gets nothing more; one subscribed during it waits for the next message');
  await new Promise((resolve) => setImmediate(resolve));
  await bus.publish('c', { event: '2' });
  t.strictSame(got.slice(1, 3), ['a:2', 'late:2'], 'the late subscriber gets the next message');
  await bus.close();
});

t.test('close removes every subscription', async (t) => {
  const bus = createInProcessBus();
  const got: string[] = [];
  const off = await bus.subscribe('a', (m) => got.push(m.event));
  await bus.subscribe('b', (m) => got.push(m.event));
  await bus.close();
  t.strictSame([await bus.hasSubscribers('a'), await bus.hasSubscribers('b')], [false, false], 'no subscribers after close');
  await bus.publish('a', { event: 'x' });
  await bus.publish('b', { event: 'y' });
  t.strictSame(got, [], 'nothing delivered after close');
  await off();
  t.pass('unsubscribing after close is harmless');
});
