// What the jobs of a publish read: a publish says whether it quoted a status
// (status.created's quotedStatusId), so the notifications job reads a quote only for one that
// did, and that job reads only the followers who rang the bell. Counted through a proxy on the
// storage port while the queue drains.

import t from 'tap';
import { createMemoryStorage } from '../../../adapters/memory/index.ts';
import { harness } from '../../helpers/harness.ts';
import { counted } from '../../helpers/stores.ts';

t.test('the jobs of a publish read a quote only when it quoted one', async (t) => {
  const calls: string[] = [];
  const h = await harness({ storage: counted(createMemoryStorage(), calls) });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const original = await h.request('POST', '/api/v1/statuses', { token: bob.token, payload: { status: 'worth quoting' } });
  t.equal(original.statusCode, 200);

  calls.length = 0;
  const plain = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'nothing quoted' } });
  t.equal(plain.statusCode, 200);
  t.strictSame(calls.filter((c) => c === 'quotes.ofStatuses'), [], 'a plain status: its jobs read no quote');

  calls.length = 0;
  const quote = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'quoting', quoted_status_id: original.json.id } });
  t.equal(quote.statusCode, 200);
  t.ok(calls.includes('quotes.ofStatuses'), 'a quote: its quote is read');
  const notifications = await h.request('GET', '/api/v1/notifications?types[]=quote', { token: bob.token });
  t.strictSame(notifications.json.map((n: any) => [n.type, n.account.id, n.status.id]), [['quote', alice.account.id, quote.json.id]], 'and its author told');
});

t.test('the jobs of a publish nobody is told of and nobody listens to do not read the status again', async (t) => {
  const calls: string[] = [];
  const h = await harness({ storage: counted(createMemoryStorage(), calls) });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');

  calls.length = 0;
  const quiet = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'nobody hears this' } });
  t.equal(quiet.statusCode, 200);
  t.strictSame(calls.filter((c) => c === 'statuses.get'), [], 'no follower asking to hear, no mention, nobody streaming: no read');

  const follow = await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: bob.token, payload: { notify: true } });
  t.equal(follow.statusCode, 200);
  calls.length = 0;
  const heard = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'bob asked to hear this' } });
  t.equal(heard.statusCode, 200);
  t.ok(calls.includes('statuses.get'), 'a follower asked to hear of posts: the status is read, as it is now');
  const notifications = await h.request('GET', '/api/v1/notifications?types[]=status', { token: bob.token });
  t.strictSame(notifications.json.map((n: any) => [n.type, n.status.id]), [['status', heard.json.id]], 'and bob told');
});

t.test('the notifications job of a publish reads only the followers who asked to hear of posts', async (t) => {
  const calls: string[] = [];
  const h = await harness({ storage: counted(createMemoryStorage(), calls) });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const fans = await Promise.all(['bob', 'carol', 'dave'].map((name) => h.user(name)));
  for (const [n, fan] of fans.entries()) {
    const follow = await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: fan.token, payload: { notify: n === 0 } });
    t.equal(follow.statusCode, 200);
  }

  calls.length = 0;
  const post = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'one of three asked to hear this' } });
  t.equal(post.statusCode, 200);
  // Routing to home streams needs every follower; telling them, only the bell's.
  t.equal(calls.filter((c) => c === 'relationships.localFollowers').length, 1, 'every follower read once, for routing');
  t.equal(calls.filter((c) => c === 'relationships.notifiedFollowers').length, 1, 'the bell\'s read once, for notifications');
  for (const [n, fan] of fans.entries()) {
    const notifications = await h.request('GET', '/api/v1/notifications?types[]=status', { token: fan.token });
    t.strictSame(notifications.json.map((x: any) => x.status.id), n === 0 ? [post.json.id] : [], `${['bob', 'carol', 'dave'][n]} told only if asked`);
  }
});
