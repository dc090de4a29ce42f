// Visibility re-checked on every path that renders a status to someone: a status its reader can
// no longer see (a direct message whose mention of them was edited away, or a post whose author
// then blocked them) is never rendered to them, whichever way they come at it. The reproduced
// hole: it vanished from GET /api/v1/statuses/:id but stayed readable, edited text included,
// through the notifications.

import t from 'tap';
import { channels } from '../../../core/domain/routing/channels.ts';
import type { Notification } from '../../../core/domain/model.ts';
import { act, post, view } from '../../helpers/api.ts';
import { harness, record, type Harness, type TestUser } from '../../helpers/harness.ts';
import { openStream } from '../../helpers/streams.ts';
import { defaultPolicy } from '../../../core/domain/notifications/screening.ts';

const NOT_FOUND = { error: 'Record not found' };
const SECRET = 'now for nobody else';

let h: Harness;
let alice: TestUser;
let bob: TestUser;
t.beforeEach(async () => {
  h = await harness();
  alice = await h.user('alice');
  bob = await h.user('bob');
  // These tests are about private mentions reaching bob: he takes them from anyone (by default
  // Mastodon filters those from people one does not follow).
  await h.core.storage.notificationPolicies.setPolicy({ ...defaultPolicy(bob.account.id), forPrivateMentions: 'accept' });
});
t.afterEach(() => h.close());

function edit(user: TestUser, id: string, status: string) {
  return h.request('PUT', `/api/v1/statuses/${id}`, { token: user.token, payload: { status } });
}

type Scenario = { name: string; hide: (statusId: string) => Promise<void>; post: () => Promise<{ id: string }> };

/** The two ways a status leaves its reader's sight after they were told about it. */
const scenarios: Scenario[] = [
  {
    name: 'a direct status whose mention was edited away',
    post: () => post(h, alice, { status: '@bob our secret', visibility: 'direct' }),
    hide: async (id) => {
      const res = await edit(alice, id, SECRET);
      if (res.statusCode !== 200) throw new Error(res.body);
    },
  },
  {
    name: 'a public status whose author then blocked the reader',
    post: () => post(h, alice, { status: '@bob hello there', visibility: 'public' }),
    hide: async (id) => {
      await edit(alice, id, SECRET);
      const res = await h.request('POST', `/api/v1/accounts/${bob.account.id}/block`, { token: alice.token });
      if (res.statusCode !== 200) throw new Error(res.body);
    },
  },
];

for (const scenario of scenarios) {
  t.test(`${scenario.name}: gone from every notification read`, async (t) => {
    const s = await scenario.post();
    const before = await h.request('GET', '/api/v1/notifications', { token: bob.token });
    const told = before.json.find((n: { status?: { id: string } }) => n.status?.id === s.id);
    t.equal(told?.type, 'mention', 'bob was told');
    const groupKey = `ungrouped-${told.id}`;
    t.equal((await h.request('GET', `/api/v2/notifications/${groupKey}`, { token: bob.token })).statusCode, 200, 'the group reads before');

    await scenario.hide(s.id);
    const direct = await view(h, bob, s.id);
    t.equal(direct.statusCode, 404, 'the status itself is 404 for bob');

    const v1 = await h.request('GET', '/api/v1/notifications', { token: bob.token });
    t.equal(v1.statusCode, 200);
    t.strictSame(v1.json, [], 'v1 list: left out');
    t.notMatch(v1.body, SECRET);

    const one = await h.request('GET', `/api/v1/notifications/${told.id}`, { token: bob.token });
    t.equal(one.statusCode, 404, 'v1 single: 404');
    t.strictSame(one.json, NOT_FOUND);

    const v2 = await h.request('GET', '/api/v2/notifications', { token: bob.token });
    t.equal(v2.statusCode, 200);
    t.strictSame(v2.json, { accounts: [], statuses: [], notification_groups: [] }, 'v2 list: left out');

    for (const path of [`/api/v2/notifications/${groupKey}`, `/api/v2/notifications/${groupKey}/accounts`]) {
      const res = await h.request('GET', path, { token: bob.token });
      t.equal(res.statusCode, 404, `${path}: 404`);
      t.strictSame(res.json, NOT_FOUND);
    }
    for (const path of ['/api/v1/notifications/unread_count', '/api/v2/notifications/unread_count']) {
      t.strictSame((await h.request('GET', path, { token: bob.token })).json, { count: 0 }, `${path}: not counted`);
    }
    // Dismissing it is still bob's to do: it is his notification, even if its status is not.
    t.equal((await h.request('POST', `/api/v1/notifications/${told.id}/dismiss`, { token: bob.token })).statusCode, 200);
  });

  t.test(`${scenario.name}: gone from bookmarks and favourites, and undoing them shows nothing`, async (t) => {
    const s = await scenario.post();
    t.equal((await act(h, bob, s.id, 'bookmark')).statusCode, 200);
    t.equal((await act(h, bob, s.id, 'favourite')).statusCode, 200);
    t.equal((await h.request('GET', '/api/v1/bookmarks', { token: bob.token })).json[0]?.id, s.id, 'bookmarked');
    await scenario.hide(s.id);

    for (const path of ['/api/v1/bookmarks', '/api/v1/favourites']) {
      const res = await h.request('GET', path, { token: bob.token });
      t.equal(res.statusCode, 200);
      t.strictSame(res.json, [], `${path}: left out`);
    }
    for (const action of ['unfavourite', 'unbookmark']) {
      const res = await act(h, bob, s.id, action);
      t.equal(res.statusCode, 404, `${action}: 404, the status is not rendered`);
      t.strictSame(res.json, NOT_FOUND);
    }
    // The marks were bob's own to take back: they are gone (the author sees the count drop).
    t.equal((await view(h, alice, s.id)).json.favourites_count, 0, 'the favourite was removed');
    t.equal((await act(h, bob, s.id, 'unbookmark')).statusCode, 404, 'and the bookmark too');
  });
}

t.test('undoing a boost of a status whose author then blocked the booster: undone, not rendered', async (t) => {
  const s = await post(h, alice, 'boost me');
  t.equal((await act(h, bob, s.id, 'reblog')).statusCode, 200);
  await edit(alice, s.id, SECRET);
  t.equal((await h.request('POST', `/api/v1/accounts/${bob.account.id}/block`, { token: alice.token })).statusCode, 200);
  const res = await act(h, bob, s.id, 'unreblog');
  t.equal(res.statusCode, 404, 'unreblog: 404, the original is not rendered');
  t.strictSame(res.json, NOT_FOUND);
  t.equal((await view(h, alice, s.id)).json.reblogs_count, 0, 'the boost was undone');
});

t.test('a notification rendered at fan-out time after its status left the reader is not streamed', async (t) => {
  // The state a race leaves: the mention notification was created, then the mention was edited
  // away, and only then does the stream job render the notification for bob.
  const s = await post(h, alice, { status: '@bob psst', visibility: 'direct' });
  const stream = await openStream(h, bob, 'user');
  const bus = await record(h.bus, [channels.user(bob.account.id)]);
  t.teardown(() => bus.stop());
  await edit(alice, s.id, SECRET);
  const late: Notification = {
    id: h.core.ids.next(),
    accountId: bob.account.id,
    type: 'mention',
    fromAccountId: alice.account.id,
    statusId: s.id,
    createdAt: h.clock.now(),
    groupKey: null,
    filtered: false,
  };
  await h.core.storage.notifications.create(late, { key: `late:${late.id}`, outbox: () => h.core.record({ type: 'notification.created', notification: late }) });
  // A notification that may still be shown goes out on the same channel afterwards: the
  // marker that the fan-out ran.
  const visible = await post(h, alice, { status: '@bob visible', visibility: 'direct' });
  await h.rookery.drain();
  await h.rookery.streaming.settled();
  const notifications = bus.messages.filter((m) => m.message.event === 'notification').map((m) => JSON.parse(m.message.payload ?? '{}'));
  t.strictSame(notifications.map((n) => n.status?.id), [visible.id], 'only the visible one went out on the bus');
  const [conversation] = (await h.request('GET', '/api/v1/conversations', { token: bob.token })).json;
  t.strictSame(stream.sink.events(), ['notification mention', `conversation ${conversation.id}`], 'and to the stream, with the conversation it joined');
  t.notOk(bus.messages.some((m) => (m.message.payload ?? '').includes(SECRET)), 'the edited text never left');
});

t.test('the direct stream: an edit that drops the mention does not reach the dropped reader', async (t) => {
  const s = await post(h, alice, { status: '@bob first', visibility: 'direct' });
  const direct = await openStream(h, bob, 'direct');
  await edit(alice, s.id, SECRET);
  const later = await post(h, alice, { status: '@bob later', visibility: 'direct' });
  await h.rookery.streaming.settled();
  const conversations = (await h.request('GET', '/api/v1/conversations', { token: bob.token })).json;
  t.strictSame(
    conversations.map((c: { last_status: { id: string } }) => c.last_status.id),
    [later.id],
    'the conversation of the status bob can no longer see is not listed',
  );
  t.strictSame(direct.sink.events(), [`update ${later.id}`, `conversation ${conversations[0].id}`], 'the edit went to nobody but the author; the next message arrives');
});
