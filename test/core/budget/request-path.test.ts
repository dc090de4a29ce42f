// What a write costs inside its request: the storage calls made before the response, counted
// through a proxy on the storage port, with no worker running. Side effects (notifications,
// stream fan-out, reading the audience) belong to the jobs the write records, not to the
// request: this test fails if favourite or publish go back to reading followers or lists, or
// publishing on the bus, before they answer.

import t from 'tap';
import { createInProcessBus } from '../../../core/domain/bus.ts';
import { createMemoryStorage } from '../../../adapters/memory/index.ts';
import type { EventBus } from '../../../core/domain/ports/bus.ts';
import { harness } from '../../helpers/harness.ts';
import { counted } from '../../helpers/stores.ts';

const AUDIENCE_READS = ['relationships.localFollowers', 'relationships.notifiedFollowers', 'lists.listsContaining', 'relationships.followersOf'];

t.test('favourite and publish: their own reads and one write, nothing of the audience, no bus', async (t) => {
  const calls: string[] = [];
  const published: string[] = [];
  const inner = createInProcessBus();
  const bus: EventBus = {
    ...inner,
    publish: async (channel, message) => {
      published.push(channel);
      await inner.publish(channel, message);
    },
  };
  const h = await harness({ storage: counted(createMemoryStorage(), calls), bus, worker: false });
  const alice = await h.user('alice');
  const fans = await Promise.all(['f1', 'f2', 'f3'].map((name) => h.user(name)));
  for (const fan of fans) await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: fan.token, drain: false });
  await inner.subscribe(`timeline:${alice.account.id}`, () => {});
  await inner.subscribe('timeline:public', () => {});

  const queuedBefore = await h.core.queue.size();
  calls.length = 0;
  const res = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'hello @f1 #tag' }, drain: false });
  t.equal(res.statusCode, 200);
  t.strictSame(calls.filter((c) => AUDIENCE_READS.includes(c)), [], 'publish reads no audience');
  // 11, and one more since quote posts: the rendered status's quotes, policy and count in one read.
  t.ok(calls.length <= 12, `publish: ${calls.length} storage calls (budget 12): ${calls.join(', ')}`);
  t.equal(calls.filter((c) => c === 'statuses.create').length, 1, 'one write');
  t.strictSame(published, [], 'and publishes nothing itself');
  const statusId = res.json.id;

  calls.length = 0;
  const fav = await h.request('POST', `/api/v1/statuses/${statusId}/favourite`, { token: fans[0]?.token ?? '', drain: false });
  t.equal(fav.statusCode, 200);
  t.strictSame(calls.filter((c) => AUDIENCE_READS.includes(c) || c.startsWith('notifications.')), [], 'favourite reads no audience and notifies nobody itself');
  t.ok(calls.length <= 14, `favourite: ${calls.length} storage calls (budget 14, quotes' read included): ${calls.join(', ')}`);
  t.strictSame(published, []);

  t.equal((await h.core.queue.size()) - queuedBefore, 3, 'what they caused waits in the queue: notifications and streams for the status, notifications for the favourite');
  await h.close();
});
