// Follow, unfollow, follow requests, relationships, followers and following.

import t from 'tap';
import { harness, record } from '../../helpers/harness.ts';
import { follow, ids, links } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());

const RELATIONSHIP_KEYS = [
  'blocked_by', 'blocking', 'domain_blocking', 'endorsed', 'followed_by', 'following', 'id', 'languages', 'muting',
  'muting_expires_at', 'muting_notifications', 'note', 'notifying', 'requested', 'requested_by', 'showing_reblogs',
];

t.test('follow: a Relationship, idempotent, a follow notification, counters', async (t) => {
  const ann = await h.user('ann');
  const ben = await h.user('ben');
  const res = await h.request('POST', `/api/v1/accounts/${ben.account.id}/follow`, { token: ann.token });
  t.equal(res.statusCode, 200);
  t.same(Object.keys(res.json).sort(), RELATIONSHIP_KEYS);
  t.same(res.json, {
    id: ben.account.id,
    following: true,
    showing_reblogs: true,
    notifying: false,
    languages: null,
    followed_by: false,
    blocking: false,
    blocked_by: false,
    muting: false,
    muting_notifications: false,
    muting_expires_at: null,
    requested: false,
    requested_by: false,
    domain_blocking: false,
    endorsed: false,
    note: '',
  });
  const again = await h.request('POST', `/api/v1/accounts/${ben.account.id}/follow`, { token: ann.token });
  t.equal(again.statusCode, 200);
  t.equal(again.json.following, true);
  const notifications = await h.request('GET', '/api/v1/notifications', { token: ben.token });
  t.same(notifications.json.map((n: { type: string; account: { id: string } }) => [n.type, n.account.id]), [['follow', ann.account.id]], 'one notification, not two');
  t.equal((await h.request('GET', `/api/v1/accounts/${ben.account.id}`)).json.followers_count, 1);
  t.equal((await h.request('GET', `/api/v1/accounts/${ann.account.id}`)).json.following_count, 1);
  const back = await h.request('GET', `/api/v1/accounts/relationships?id[]=${ann.account.id}`, { token: ben.token });
  t.equal(back.json[0].followed_by, true);
  t.equal(back.json[0].following, false);
});

t.test('follow options: reblogs, notify, languages; kept when not sent again', async (t) => {
  const cat = await h.user('cat');
  const dan = await h.user('dan');
  const first = await follow(h, cat, dan, { reblogs: false, notify: true, languages: ['en', 'de'] });
  t.equal(first.showing_reblogs, false);
  t.equal(first.notifying, true);
  t.same(first.languages, ['en', 'de']);
  const again = await follow(h, cat, dan, { notify: 'false' });
  t.equal(again.showing_reblogs, false, 'reblogs kept');
  t.equal(again.notifying, false, 'notify changed');
  t.same(again.languages, ['en', 'de'], 'languages kept');
});

t.test('a locked account: a follow request, requested:true, a follow_request notification', async (t) => {
  const eli = await h.user('eli');
  const fay = await h.user('fay');
  await h.core.storage.accounts.update(fay.account.id, { locked: true });
  const res = await h.request('POST', `/api/v1/accounts/${fay.account.id}/follow`, { token: eli.token });
  t.equal(res.statusCode, 200);
  t.equal(res.json.following, false);
  t.equal(res.json.requested, true);
  const notifications = await h.request('GET', '/api/v1/notifications', { token: fay.token });
  t.same(notifications.json.map((n: { type: string }) => n.type), ['follow_request']);
  const requests = await h.request('GET', '/api/v1/follow_requests', { token: fay.token });
  t.equal(requests.statusCode, 200);
  t.same(ids(requests.json), [eli.account.id]);
  const seenByFay = await h.request('GET', `/api/v1/accounts/relationships?id[]=${eli.account.id}`, { token: fay.token });
  t.equal(seenByFay.json[0].requested_by, true);

  const authorized = await h.request('POST', `/api/v1/follow_requests/${eli.account.id}/authorize`, { token: fay.token });
  t.equal(authorized.statusCode, 200);
  t.equal(authorized.json.id, eli.account.id);
  t.equal(authorized.json.followed_by, true);
  t.equal(authorized.json.requested_by, false);
  t.same((await h.request('GET', '/api/v1/follow_requests', { token: fay.token })).json, []);
  const nowFollowing = await h.request('GET', `/api/v1/accounts/relationships?id[]=${fay.account.id}`, { token: eli.token });
  t.equal(nowFollowing.json[0].following, true);
  t.equal(nowFollowing.json[0].requested, false);
  const twice = await h.request('POST', `/api/v1/follow_requests/${eli.account.id}/authorize`, { token: fay.token });
  t.equal(twice.statusCode, 404, 'no pending request any more');
});

t.test('rejecting a request, and unfollow withdrawing one', async (t) => {
  const gus = await h.user('gus');
  const hal = await h.user('hal');
  const ivy = await h.user('ivy');
  await h.core.storage.accounts.update(hal.account.id, { locked: true });
  await follow(h, gus, hal);
  await follow(h, ivy, hal);
  const rejected = await h.request('POST', `/api/v1/follow_requests/${gus.account.id}/reject`, { token: hal.token });
  t.equal(rejected.statusCode, 200);
  t.equal(rejected.json.requested_by, false);
  t.equal(rejected.json.followed_by, false);
  const withdrawn = await h.request('POST', `/api/v1/accounts/${hal.account.id}/unfollow`, { token: ivy.token });
  t.equal(withdrawn.statusCode, 200);
  t.equal(withdrawn.json.requested, false);
  t.same((await h.request('GET', '/api/v1/follow_requests', { token: hal.token })).json, []);
  t.equal((await h.request('POST', `/api/v1/follow_requests/${gus.account.id}/reject`, { token: hal.token })).statusCode, 404);
});

t.test('unfollow', async (t) => {
  const jon = await h.user('jon');
  const kim = await h.user('kim');
  await follow(h, jon, kim);
  const res = await h.request('POST', `/api/v1/accounts/${kim.account.id}/unfollow`, { token: jon.token });
  t.equal(res.statusCode, 200);
  t.equal(res.json.following, false);
  t.equal(res.json.showing_reblogs, false);
  const again = await h.request('POST', `/api/v1/accounts/${kim.account.id}/unfollow`, { token: jon.token });
  t.equal(again.statusCode, 200, 'idempotent');
  t.equal((await h.request('GET', `/api/v1/accounts/${kim.account.id}`)).json.followers_count, 0);
});

t.test('refusals: oneself 403, unknown 404, blocked 403, no token 401, wrong scope 403', async (t) => {
  const lea = await h.user('lea');
  const max = await h.user('max');
  const self = await h.request('POST', `/api/v1/accounts/${lea.account.id}/follow`, { token: lea.token });
  t.equal(self.statusCode, 403);
  t.same(self.json, { error: 'This action is not allowed' });
  const unknown = await h.request('POST', '/api/v1/accounts/424242/follow', { token: lea.token });
  t.equal(unknown.statusCode, 404);
  t.same(unknown.json, { error: 'Record not found' });
  await h.request('POST', `/api/v1/accounts/${lea.account.id}/block`, { token: max.token });
  const blocked = await h.request('POST', `/api/v1/accounts/${max.account.id}/follow`, { token: lea.token });
  t.equal(blocked.statusCode, 403);
  const anonymous = await h.request('POST', `/api/v1/accounts/${max.account.id}/follow`);
  t.equal(anonymous.statusCode, 401);
  t.same(anonymous.json, { error: 'The access token is invalid' });
  const reader = await h.user('reader', { scopes: ['read'] });
  const outOfScope = await h.request('POST', `/api/v1/accounts/${lea.account.id}/follow`, { token: reader.token });
  t.equal(outOfScope.statusCode, 403);
  t.same(outOfScope.json, { error: 'This action is outside the authorized scopes' });
  for (const scopes of [['write:follows'], ['follow']]) {
    const narrow = await h.user(`narrow${scopes[0]?.length}`, { scopes });
    t.equal((await h.request('POST', `/api/v1/accounts/${lea.account.id}/follow`, { token: narrow.token })).statusCode, 200, scopes.join());
  }
  const relationshipsAnonymous = await h.request('GET', `/api/v1/accounts/relationships?id[]=${lea.account.id}`);
  t.equal(relationshipsAnonymous.statusCode, 401);
});

t.test('relationships: request order, unknown and malformed ids skipped, a lone id', async (t) => {
  const ned = await h.user('ned');
  const oli = await h.user('oli');
  const pam = await h.user('pam');
  await follow(h, ned, pam);
  const res = await h.request('GET', `/api/v1/accounts/relationships?id[]=${pam.account.id}&id[]=77777&id[]=x&id[]=${oli.account.id}`, { token: ned.token });
  t.equal(res.statusCode, 200);
  t.same(ids(res.json), [pam.account.id, oli.account.id]);
  t.same(res.json.map((r: { following: boolean }) => r.following), [true, false]);
  const lone = await h.request('GET', `/api/v1/accounts/relationships?id=${pam.account.id}`, { token: ned.token });
  t.same(ids(lone.json), [pam.account.id]);
  t.same((await h.request('GET', '/api/v1/accounts/relationships', { token: ned.token })).json, []);
});

t.test('followers and following: newest follow first, Link paging by follow', async (t) => {
  const star = await h.user('star');
  const fans = [];
  for (const name of ['fan1', 'fan2', 'fan3']) {
    const fan = await h.user(name);
    await follow(h, fan, star);
    fans.push(fan);
  }
  const path = `/api/v1/accounts/${star.account.id}/followers`;
  const all = await h.request('GET', path);
  t.equal(all.statusCode, 200);
  t.same(ids(all.json), fans.map((f) => f.account.id).reverse());
  const page = await h.request('GET', `${path}?limit=2`);
  t.same(ids(page.json), [fans[2]?.account.id, fans[1]?.account.id]);
  const link = links(page.headers);
  t.match(link['next'], new RegExp(`^https://rookery\\.test${path}\\?limit=2&max_id=\\d+$`));
  t.match(link['prev'], new RegExp(`^https://rookery\\.test${path}\\?limit=2&since_id=\\d+$`));
  const next = await h.request('GET', (link['next'] ?? '').replace('https://rookery.test', ''));
  t.same(ids(next.json), [fans[0]?.account.id]);
  t.same(Object.keys(links(next.headers)), ['prev']);
  const following = await h.request('GET', `/api/v1/accounts/${fans[0]?.account.id}/following`);
  t.same(ids(following.json), [star.account.id]);
  t.equal((await h.request('GET', '/api/v1/accounts/99999/followers')).statusCode, 404);
});

t.test('a new follow is announced on the bus as a notification for the target', async (t) => {
  const quin = await h.user('quin');
  const rex = await h.user('rex');
  const recorder = await record(h.bus, [`timeline:${rex.account.id}`]);
  await follow(h, quin, rex);
  await recorder.stop();
  t.equal(recorder.messages.length, 1);
  t.equal(recorder.messages[0]?.message.event, 'notification');
  t.equal(JSON.parse(recorder.messages[0]?.message.payload ?? '{}').type, 'follow');
});

t.test('remove_from_followers: the follower no longer follows; counts; errors', async (t) => {
  const star = await h.user('celeb');
  const fan = await h.user('fanling');
  const other = await h.user('otherling');
  await follow(h, fan, star);
  const removed = await h.request('POST', `/api/v1/accounts/${fan.account.id}/remove_from_followers`, { token: star.token });
  t.equal(removed.statusCode, 200);
  t.same([removed.json.id, removed.json.followed_by, removed.json.following], [fan.account.id, false, false], 'the Relationship to the removed follower');
  const seenByFan = (await h.request('GET', `/api/v1/accounts/relationships?id[]=${star.account.id}`, { token: fan.token })).json[0];
  t.same([seenByFan.following, seenByFan.requested], [false, false], 'the fan follows no more');
  t.same([(await h.request('GET', `/api/v1/accounts/${star.account.id}`)).json.followers_count, (await h.request('GET', `/api/v1/accounts/${fan.account.id}`)).json.following_count], [0, 0], 'counts follow');
  const again = await h.request('POST', `/api/v1/accounts/${other.account.id}/remove_from_followers`, { token: star.token });
  t.same([again.statusCode, again.json.followed_by], [200, false], 'someone who does not follow: nothing to do');
  const missing = await h.request('POST', '/api/v1/accounts/999999/remove_from_followers', { token: star.token });
  t.same([missing.statusCode, missing.json], [404, { error: 'Record not found' }]);
  const reader = await h.user('fanreader', { scopes: ['read'] });
  t.equal((await h.request('POST', `/api/v1/accounts/${fan.account.id}/remove_from_followers`, { token: reader.token })).statusCode, 403);
  t.equal((await h.request('POST', `/api/v1/accounts/${fan.account.id}/remove_from_followers`)).statusCode, 401);
});
