// What is undone takes its notification with it, as on Mastodon (a notification belongs to the
// follow, favourite, boost or follow request it reports): unfavourite, unreblog, unfollow, a
// request withdrawn, authorized or rejected, a follower removed. Others' notifications stay.

import t from 'tap';
import { harness, type TestUser } from '../../helpers/harness.ts';
import { boost, follow, post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const fan = await h.user('fan');
const pal = await h.user('pal');

const kinds = async (user: TestUser = me) =>
  ((await h.request('GET', '/api/v1/notifications', { token: user.token })).json as { type: string; account: { username: string } }[]).map((n) => `${n.type}:${n.account.username}`);

t.test('unfavourite and unreblog', async (t) => {
  const mine = await post(h, me, 'mine');
  const other = await post(h, me, 'other');
  for (const user of [fan, pal]) await h.request('POST', `/api/v1/statuses/${mine.id}/favourite`, { token: user.token });
  await h.request('POST', `/api/v1/statuses/${other.id}/favourite`, { token: fan.token });
  await boost(h, fan, mine.id);
  t.same(await kinds(), ['reblog:fan', 'favourite:fan', 'favourite:pal', 'favourite:fan']);
  await h.request('POST', `/api/v1/statuses/${mine.id}/unfavourite`, { token: fan.token });
  t.same(await kinds(), ['reblog:fan', 'favourite:fan', 'favourite:pal'], 'only fan\'s favourite of that status goes');
  await h.request('POST', `/api/v1/statuses/${mine.id}/unreblog`, { token: fan.token });
  t.same(await kinds(), ['favourite:fan', 'favourite:pal']);
  await h.request('POST', `/api/v1/statuses/${mine.id}/favourite`, { token: fan.token });
  t.same(await kinds(), ['favourite:fan', 'favourite:fan', 'favourite:pal'], 'favourited again: notified again');
  await h.request('POST', '/api/v1/notifications/clear', { token: me.token });
});

t.test('unfollow, and a follower removed', async (t) => {
  await follow(h, fan, me);
  await follow(h, pal, me);
  t.same(await kinds(), ['follow:pal', 'follow:fan']);
  await h.request('POST', `/api/v1/accounts/${me.account.id}/unfollow`, { token: fan.token });
  t.same(await kinds(), ['follow:pal']);
  await h.request('POST', `/api/v1/accounts/${pal.account.id}/remove_from_followers`, { token: me.token });
  t.same(await kinds(), [], 'removing a follower takes its follow notification too');
});

t.test('follow requests: withdrawn, authorized, rejected', async (t) => {
  await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: me.token, payload: { locked: true } });
  const asker = await h.user('asker');
  for (const user of [fan, pal, asker]) await h.request('POST', `/api/v1/accounts/${me.account.id}/follow`, { token: user.token });
  t.same(await kinds(), ['follow_request:asker', 'follow_request:pal', 'follow_request:fan']);
  await h.request('POST', `/api/v1/accounts/${me.account.id}/unfollow`, { token: fan.token });
  t.same(await kinds(), ['follow_request:asker', 'follow_request:pal'], 'withdrawn');
  await h.request('POST', `/api/v1/follow_requests/${pal.account.id}/authorize`, { token: me.token });
  t.same(await kinds(), ['follow_request:asker'], 'authorized: answered, and the follow it became is not notified');
  await h.request('POST', `/api/v1/follow_requests/${asker.account.id}/reject`, { token: me.token });
  t.same(await kinds(), [], 'rejected');
  t.same(await kinds(pal), [], 'nothing for the others');
});
