// Notifications v1 and v2: lists, filters, single ones, dismiss, clear, unread count.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { boost, follow, ids, links, post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const fan = await h.user('fan');
const pal = await h.user('pal');

const mine = await post(h, me, 'my post');
await follow(h, fan, me);
await h.request('POST', `/api/v1/statuses/${mine.id}/favourite`, { token: fan.token });
const mention = await post(h, pal, '@me hi');
await boost(h, pal, mine.id);
await follow(h, pal, me);

type N = { id: string; type: string; account: { id: string }; status?: { id: string }; group_key: string; created_at: string };

async function list(query = '', token = me.token) {
  const res = await h.request('GET', `/api/v1/notifications${query}`, { token });
  if (res.statusCode !== 200) throw new Error(res.body);
  return res;
}

t.test('v1 list: newest first, with accounts and statuses', async (t) => {
  const res = await list();
  const body: N[] = res.json;
  t.same(body.map((n) => n.type), ['follow', 'reblog', 'mention', 'favourite', 'follow']);
  t.same(body.map((n) => n.account.id), [pal, pal, pal, fan, fan].map((u) => u.account.id));
  t.equal(body[1]?.status?.id, mine.id);
  t.equal(body[2]?.status?.id, mention.id);
  t.equal(body[0]?.status, undefined, 'a follow carries no status');
  const hour = Math.floor(h.clock.now() / 3_600_000);
  t.same(
    body.map((n) => n.group_key),
    [`follow-${hour}`, `reblog-${mine.id}-${hour}`, `ungrouped-${body[2]?.id}`, `favourite-${mine.id}-${hour}`, `follow-${hour}`],
    'favourites, boosts and follows carry their group key; a mention is a group of its own',
  );
  t.match(body[0]?.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

t.test('types[], exclude_types[], account_id', async (t) => {
  t.same((await list('?types[]=follow')).json.map((n: N) => n.type), ['follow', 'follow']);
  t.same((await list('?types[]=mention&types[]=favourite')).json.map((n: N) => n.type), ['mention', 'favourite']);
  t.same((await list('?exclude_types[]=follow&exclude_types[]=reblog')).json.map((n: N) => n.type), ['mention', 'favourite']);
  t.same((await list('?types[]=unknown')).json, [], 'unknown types match nothing');
  t.same((await list('?types[]=follow&exclude_types[]=follow')).json, []);
  t.same((await list(`?account_id=${fan.account.id}`)).json.map((n: N) => n.type), ['favourite', 'follow']);
  t.same((await list('?account_id=nope')).json, []);
});

t.test('paging: Link next/prev by notification id', async (t) => {
  const all = ids((await list()).json);
  const page = await list('?limit=2');
  t.same(ids(page.json), all.slice(0, 2));
  t.same(links(page.headers), {
    next: `https://rookery.test/api/v1/notifications?limit=2&max_id=${all[1]}`,
    prev: `https://rookery.test/api/v1/notifications?limit=2&min_id=${all[0]}`,
  });
  t.same(ids((await list(`?limit=2&min_id=${all[4]}`)).json), all.slice(2, 4));
  const empty = await list(`?min_id=${all[0]}`);
  t.same(empty.json, []);
  t.equal(empty.headers['link'], undefined);
});

t.test('one notification; someone else cannot read it', async (t) => {
  const [first] = (await list()).json as N[];
  const one = await h.request('GET', `/api/v1/notifications/${first?.id}`, { token: me.token });
  t.equal(one.statusCode, 200);
  t.same(one.json, first);
  const theirs = await h.request('GET', `/api/v1/notifications/${first?.id}`, { token: fan.token });
  t.equal(theirs.statusCode, 404);
  t.same(theirs.json, { error: 'Record not found' });
});

t.test('a notification whose status was deleted is left out', async (t) => {
  const other = await h.user('other');
  const doomed = await post(h, other, '@me soon gone');
  t.equal((await list()).json[0].status.id, doomed.id);
  await h.request('DELETE', `/api/v1/statuses/${doomed.id}`, { token: other.token });
  t.notOk((await list()).json.some((n: N) => n.status?.id === doomed.id));
});

t.test('v2 grouped: the two follows are one group; accounts and statuses listed once', async (t) => {
  const v1: N[] = (await list()).json;
  const res = await h.request('GET', '/api/v2/notifications', { token: me.token });
  t.equal(res.statusCode, 200);
  t.same(Object.keys(res.json).sort(), ['accounts', 'notification_groups', 'statuses']);
  t.same(
    res.json.notification_groups.map((g: { group_key: string }) => g.group_key),
    [v1[0], v1[1], v1[2], v1[3]].map((n) => n?.group_key),
    'one group per key, in the order of its newest notification',
  );
  t.same(res.json.notification_groups[0], {
    group_key: v1[0]?.group_key,
    notifications_count: 2,
    type: 'follow',
    most_recent_notification_id: v1[0]?.id,
    page_min_id: v1[4]?.id,
    page_max_id: v1[0]?.id,
    latest_page_notification_at: v1[0]?.created_at,
    sample_account_ids: [pal.account.id, fan.account.id],
  });
  t.same(res.json.notification_groups[2], {
    group_key: `ungrouped-${v1[2]?.id}`,
    notifications_count: 1,
    type: 'mention',
    most_recent_notification_id: v1[2]?.id,
    page_min_id: v1[2]?.id,
    page_max_id: v1[2]?.id,
    latest_page_notification_at: v1[2]?.created_at,
    sample_account_ids: [pal.account.id],
    status_id: mention.id,
  });
  t.equal(res.json.notification_groups[1].status_id, mine.id);
  t.same(ids(res.json.accounts), [pal.account.id, fan.account.id]);
  t.same(ids(res.json.statuses), [mine.id, mention.id]);
  const page = await h.request('GET', '/api/v2/notifications?limit=1&types[]=follow', { token: me.token });
  t.equal(page.json.notification_groups.length, 1);
  t.match(links(page.headers)['next'], /^https:\/\/rookery\.test\/api\/v2\/notifications\?limit=1&types%5B%5D=follow&max_id=\d+$/);
  const single = await h.request('GET', `/api/v2/notifications/${v1[1]?.group_key}`, { token: me.token });
  t.equal(single.statusCode, 200);
  t.equal(single.json.notification_groups[0].type, 'reblog');
  t.equal(single.json.notification_groups[0].page_min_id, undefined, 'no page fields outside a listing');
  const accounts = await h.request('GET', `/api/v2/notifications/${v1[0]?.group_key}/accounts`, { token: me.token });
  t.same(ids(accounts.json), [pal.account.id, fan.account.id]);
  t.equal((await h.request('GET', '/api/v2/notifications/grouped-1', { token: me.token })).statusCode, 404);
});

t.test('unread_count follows the notifications marker', async (t) => {
  const all = ids((await list()).json);
  const count = async (query = '') => (await h.request('GET', `/api/v1/notifications/unread_count${query}`, { token: me.token })).json;
  t.same(await count(), { count: all.length });
  t.same(await count('?limit=2'), { count: 2 });
  await h.request('POST', '/api/v1/markers', { token: me.token, payload: { notifications: { last_read_id: all[2] } } });
  t.same(await count(), { count: 2 });
  // v2 counts groups: above the marker, pal's follow (its group) and the boost.
  t.same((await h.request('GET', '/api/v2/notifications/unread_count', { token: me.token })).json, { count: 2 });
});

t.test('dismiss one, then clear all', async (t) => {
  const [first, second] = ids((await list()).json);
  const dismissed = await h.request('POST', `/api/v1/notifications/${first}/dismiss`, { token: me.token });
  t.equal(dismissed.statusCode, 200);
  t.same(dismissed.json, {});
  t.notOk(ids((await list()).json).includes(first ?? ''));
  t.equal((await h.request('POST', `/api/v1/notifications/${first}/dismiss`, { token: me.token })).statusCode, 404);
  t.equal((await h.request('POST', `/api/v2/notifications/ungrouped-${second}/dismiss`, { token: me.token })).statusCode, 200);
  t.notOk(ids((await list()).json).includes(second ?? ''));
  const cleared = await h.request('POST', '/api/v1/notifications/clear', { token: me.token });
  t.equal(cleared.statusCode, 200);
  t.same(cleared.json, {});
  t.same((await list()).json, []);
  t.same((await h.request('GET', '/api/v1/notifications/unread_count', { token: me.token })).json, { count: 0 });
});

t.test('auth and scopes', async (t) => {
  t.equal((await h.request('GET', '/api/v1/notifications')).statusCode, 401);
  const reader = await h.user('nreader', { scopes: ['read:notifications'] });
  t.equal((await h.request('GET', '/api/v1/notifications', { token: reader.token })).statusCode, 200);
  const clear = await h.request('POST', '/api/v1/notifications/clear', { token: reader.token });
  t.equal(clear.statusCode, 403);
  t.same(clear.json, { error: 'This action is outside the authorized scopes' });
  const statusReader = await h.user('sreader', { scopes: ['read:statuses'] });
  t.equal((await h.request('GET', '/api/v2/notifications', { token: statusReader.token })).statusCode, 403);
});
