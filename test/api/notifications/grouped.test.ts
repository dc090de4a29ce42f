// Grouped notifications as Mastodon 4.3 groups them: favourites and boosts of one status and
// follows within a span of hours are one group; the page fields, grouped_types,
// expand_accounts=partial_avatars, the v2 unread count, one group by key and dismissing it.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow, post } from '../../helpers/api.ts';

const HOUR = 3_600_000;
const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const [ann, ben, cat] = [await h.user('ann'), await h.user('ben'), await h.user('cat')];
const mine = await post(h, me, 'a post to like');

const v1 = async () => (await h.request('GET', '/api/v1/notifications', { token: me.token })).json as { id: string; type: string; group_key: string; created_at: string }[];
const v2 = async (query = '') => {
  const res = await h.request('GET', `/api/v2/notifications${query}`, { token: me.token });
  if (res.statusCode !== 200) throw new Error(res.body);
  return res.json;
};
const favourite = (user: typeof ann) => h.request('POST', `/api/v1/statuses/${mine.id}/favourite`, { token: user.token });

t.test('two favourites of one status are one group; a third after the span starts another', async (t) => {
  const hour = Math.floor(h.clock.now() / HOUR);
  await favourite(ann);
  h.clock.advance(11 * HOUR);
  await favourite(ben);
  const [second, first] = await v1();
  t.same([first?.group_key, second?.group_key], [`favourite-${mine.id}-${hour}`, `favourite-${mine.id}-${hour}`], 'v1 shows the group key');
  const body = await v2();
  t.same(body.notification_groups, [
    {
      group_key: `favourite-${mine.id}-${hour}`,
      notifications_count: 2,
      type: 'favourite',
      most_recent_notification_id: second?.id,
      page_min_id: first?.id,
      page_max_id: second?.id,
      latest_page_notification_at: second?.created_at,
      sample_account_ids: [ben.account.id, ann.account.id],
      status_id: mine.id,
    },
  ]);
  t.same(body.accounts.map((a: { id: string }) => a.id), [ben.account.id, ann.account.id], 'both senders, full');
  t.same(body.statuses.map((s: { id: string }) => s.id), [mine.id]);

  h.clock.advance(2 * HOUR);
  await favourite(cat);
  const groups = (await v2()).notification_groups;
  t.same(
    groups.map((g: { group_key: string; notifications_count: number }) => [g.group_key, g.notifications_count]),
    [[`favourite-${mine.id}-${hour + 13}`, 1], [`favourite-${mine.id}-${hour}`, 2]],
    'past twelve hours from the group’s first hour, a new group',
  );
});

t.test('grouped_types, expand_accounts, the v2 unread count', async (t) => {
  const ungrouped = await v2('?grouped_types[]=follow');
  t.same(ungrouped.notification_groups.map((g: { group_key: string }) => g.group_key.startsWith('ungrouped-')), [true, true, true], 'favourites not grouped when not asked for');
  const partial = await v2('?expand_accounts=partial_avatars');
  t.same(partial.accounts.map((a: { id: string }) => a.id), [cat.account.id, ben.account.id], 'the newest sender of each group in full');
  t.same(partial.partial_accounts.map((a: { id: string }) => Object.keys(a).sort()), [['acct', 'avatar', 'avatar_static', 'bot', 'id', 'locked', 'url']]);
  t.same(partial.partial_accounts.map((a: { id: string }) => a.id), [ann.account.id], 'the others partial');
  const bad = await h.request('GET', '/api/v2/notifications?expand_accounts=some', { token: me.token });
  t.same([bad.statusCode, bad.json], [400, { error: "Invalid value for 'expand_accounts': 'some', allowed values are 'full' and 'partial_avatars'" }]);
  t.same((await h.request('GET', '/api/v2/notifications/unread_count', { token: me.token })).json, { count: 2 }, 'groups, not notifications');
  t.same((await h.request('GET', '/api/v1/notifications/unread_count', { token: me.token })).json, { count: 3 });
});

t.test('paging keeps a group whole on its page; one group by key; its accounts; dismiss', async (t) => {
  await follow(h, ann, me);
  const all = await v1();
  const first = await v2('?limit=2');
  t.same(first.notification_groups.map((g: { type: string }) => g.type), ['follow', 'favourite']);
  const key = first.notification_groups[1].group_key;
  const one = await h.request('GET', `/api/v2/notifications/${key}`, { token: me.token });
  t.same(one.json.notification_groups, [
    { group_key: key, notifications_count: 1, type: 'favourite', most_recent_notification_id: all[1]?.id, sample_account_ids: [cat.account.id], status_id: mine.id },
  ], 'outside a listing: no page fields');
  const older = (await v1()).find((n) => n.group_key !== key && n.type === 'favourite');
  const oldKey = older?.group_key ?? '';
  const accounts = await h.request('GET', `/api/v2/notifications/${oldKey}/accounts`, { token: me.token });
  t.same(accounts.json.map((a: { id: string }) => a.id), [ben.account.id, ann.account.id]);
  const dismissed = await h.request('POST', `/api/v2/notifications/${oldKey}/dismiss`, { token: me.token });
  t.same([dismissed.statusCode, dismissed.json], [200, {}]);
  t.notOk((await v1()).some((n) => n.group_key === oldKey), 'the whole group is gone');
  t.equal((await h.request('POST', `/api/v2/notifications/${oldKey}/dismiss`, { token: me.token })).statusCode, 404, 'nothing left to dismiss');
  t.equal((await h.request('GET', `/api/v2/notifications/${oldKey}`, { token: me.token })).statusCode, 404);
});
