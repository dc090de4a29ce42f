// What remote accounts do (Like, Announce, Follow, Block and their undos) and what remote
// servers answer to local follows, called as the federation plugin calls core/federation, then
// checked over HTTP; and the events outgoing activities will follow, seen by a plugin.

import t from 'tap';
import type { DomainEvent } from '../../../../core/domain/events/events.ts';
import {
  followAccepted,
  followRejected,
  receiveRemoteStatus,
  remoteBlock,
  remoteBoost,
  remoteFavourite,
  remoteFollow,
  remoteUnblock,
  remoteUnboost,
  remoteUnfavourite,
  remoteUnfollow,
  upsertRemoteAccount,
} from '../../../../core/domain/federation/index.ts';
import type { RookeryPlugin } from '../../../../core/mastodon/host/types.ts';
import { post } from '../../../helpers/api.ts';
import { harness } from '../../../helpers/harness.ts';

const WATCHED = [
  'status.favourited',
  'status.unfavourited',
  'status.reblogged',
  'status.unreblogged',
  'account.followed',
  'account.unfollowed',
  'follow_request.authorized',
  'follow_request.rejected',
  'account.blocked',
  'account.unblocked',
] as const;
const seen: DomainEvent[] = [];
const watcher: RookeryPlugin = {
  name: 'watcher',
  register(host) {
    for (const type of WATCHED) host.on(type, async (event) => void seen.push(event));
  },
};

const h = await harness({ plugins: [watcher] });
t.teardown(() => h.close());
const amy = await h.user('amy');
const lou = await h.user('lou');
await h.core.storage.accounts.update(lou.account.id, { locked: true });

async function remote(username: string) {
  return upsertRemoteAccount(h.core, {
    uri: `https://far.example/users/${username}`,
    url: `https://far.example/@${username}`,
    username,
    domain: 'far.example',
    displayName: username,
    noteHtml: '',
    fields: [],
    avatarUrl: null,
    headerUrl: null,
    locked: false,
    bot: false,
    discoverable: true,
  });
}
const carol = await remote('carol');
const dan = await remote('dan');

async function get(path: string, token: string | null = null) {
  const res = await h.request('GET', path, { token });
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  return res.json;
}

/** The events seen since the last call, as [type, actor, target] triples. */
async function events(): Promise<string[][]> {
  await h.rookery.drain();
  const out = seen.map((e): string[] => {
    switch (e.type) {
      case 'status.favourited':
      case 'status.unfavourited':
        return [e.type, e.by.username, e.status.id];
      case 'status.reblogged':
      case 'status.unreblogged':
        return [e.type, e.boost.accountId, e.original.id];
      case 'account.followed':
        return [e.type, e.follow.accountId, e.follow.targetAccountId, String(e.requested)];
      case 'account.unfollowed':
      case 'follow_request.authorized':
        return [e.type, e.follow.accountId, e.follow.targetAccountId];
      case 'follow_request.rejected':
      case 'account.blocked':
      case 'account.unblocked':
        return [e.type, e.accountId, e.targetAccountId];
      default:
        return [e.type];
    }
  });
  seen.length = 0;
  return out;
}

async function notifications(user: { token: string }) {
  return (await get('/api/v1/notifications', user.token)).map((n: any) => [n.type, n.account.acct, n.status?.id ?? null]);
}

t.test('remote favourite and boost move the counts and notify; undos take them back', async (t) => {
  const mine = await post(h, amy, 'like me');
  await events();
  const liked = await remoteFavourite(h.core, carol.id, mine.id);
  t.equal(liked.favouritesCount, 1);
  await remoteFavourite(h.core, carol.id, mine.id);
  t.equal((await get(`/api/v1/statuses/${mine.id}`)).favourites_count, 1, 'a second Like counts once');
  const boost = await remoteBoost(h.core, carol.id, mine.id, 'https://far.example/users/carol/statuses/9/activity', Date.UTC(2026, 0, 1));
  t.equal(boost.reblogOfId, mine.id);
  t.equal(boost.uri, 'https://far.example/users/carol/statuses/9/activity');
  t.equal(boost.local, false);
  t.equal(boost.createdAt, Date.UTC(2026, 0, 1), 'the Announce\'s time');
  const again = await remoteBoost(h.core, carol.id, mine.id, 'https://far.example/users/carol/statuses/9/activity', Date.UTC(2026, 0, 1));
  t.equal(again.id, boost.id, 'a replayed Announce is the same boost');
  const json = await get(`/api/v1/statuses/${mine.id}`);
  t.strictSame([json.favourites_count, json.reblogs_count], [1, 1]);
  t.strictSame((await get(`/api/v1/statuses/${mine.id}/reblogged_by`)).map((a: any) => a.acct), ['carol@far.example']);
  t.strictSame((await get(`/api/v1/statuses/${mine.id}/favourited_by`)).map((a: any) => a.acct), ['carol@far.example']);
  t.strictSame(await notifications(amy), [
    ['reblog', 'carol@far.example', mine.id],
    ['favourite', 'carol@far.example', mine.id],
  ]);
  t.strictSame(await events(), [
    ['status.favourited', 'carol', mine.id],
    ['status.reblogged', carol.id, mine.id],
  ]);

  t.equal(await remoteUnboost(h.core, boost.uri as string, dan.id), false, 'only its booster undoes a boost');
  t.equal(await remoteUnboost(h.core, boost.uri as string, carol.id), true);
  await remoteUnfavourite(h.core, carol.id, mine.id);
  await remoteUnfavourite(h.core, carol.id, mine.id);
  const after = await get(`/api/v1/statuses/${mine.id}`);
  t.strictSame([after.favourites_count, after.reblogs_count], [0, 0]);
  t.strictSame(await events(), [
    ['status.unreblogged', carol.id, mine.id],
    ['status.unfavourited', 'carol', mine.id],
  ]);

  const priv = await post(h, amy, 'followers only', { visibility: 'private' });
  await t.rejects(remoteFavourite(h.core, carol.id, priv.id), { status: 404, message: 'Record not found' }, 'what the remote account may not see');
  await t.rejects(remoteBoost(h.core, carol.id, priv.id, 'https://far.example/b/2', Date.now()), { status: 404, message: 'Record not found' });
  await t.rejects(remoteBoost(h.core, carol.id, mine.id, 'javascript:x', Date.now()), { status: 422, message: 'Validation failed: Uri is invalid' });
});

t.test('remote follows: a follow of an open account, a request to a locked one', async (t) => {
  t.equal(await remoteFollow(h.core, carol.id, amy.account.id, 'https://far.example/f/1'), 'following');
  t.equal(await remoteFollow(h.core, carol.id, lou.account.id, 'https://far.example/f/2'), 'requested');
  t.equal((await get(`/api/v1/accounts/${amy.account.id}`)).followers_count, 1);
  await t.rejects(remoteFollow(h.core, carol.id, dan.id, 'https://far.example/f/x'), { status: 422, message: 'Validation failed: a remote account follows a local one' });
  await t.rejects(remoteFollow(h.core, amy.account.id, lou.account.id, 'https://far.example/f/y'), { status: 422, message: 'Validation failed: a remote account follows a local one' });
  await t.rejects(remoteFollow(h.core, carol.id, amy.account.id, 'not a uri'), { status: 422, message: 'Validation failed: Uri is invalid' });
  t.strictSame((await get('/api/v1/follow_requests', lou.token)).map((a: any) => a.acct), ['carol@far.example']);
  t.strictSame((await notifications(lou)).slice(0, 1), [['follow_request', 'carol@far.example', null]]);
  t.strictSame((await notifications(amy)).slice(0, 1), [['follow', 'carol@far.example', null]]);
  const auth = await h.request('POST', `/api/v1/follow_requests/${carol.id}/authorize`, { token: lou.token });
  t.equal(auth.statusCode, 200);
  t.equal(auth.json.followed_by, true);
  await remoteUnfollow(h.core, carol.id, amy.account.id);
  t.equal((await get(`/api/v1/accounts/${amy.account.id}`)).followers_count, 0);
  t.strictSame(await events(), [
    ['account.followed', carol.id, amy.account.id, 'false'],
    ['account.followed', carol.id, lou.account.id, 'true'],
    ['follow_request.authorized', carol.id, lou.account.id],
    ['account.unfollowed', carol.id, amy.account.id],
  ]);
});

t.test('a local user following a remote account: requested until the remote server accepts', async (t) => {
  const res = await h.request('POST', `/api/v1/accounts/${dan.id}/follow`, { token: amy.token });
  t.equal(res.statusCode, 200);
  t.strictSame([res.json.following, res.json.requested], [false, true]);
  const s = await receiveRemoteStatus(h.core, {
    uri: 'https://far.example/users/dan/statuses/1',
    url: null,
    authorId: dan.id,
    contentHtml: '<p>for followers</p>',
    spoilerText: '',
    sensitive: false,
    visibility: 'private',
    language: null,
    inReplyToUri: null,
    mentionIds: [],
    tags: [],
    createdAt: Date.now(),
    editedAt: null,
  });
  t.equal((await h.request('GET', `/api/v1/statuses/${s?.id}`, { token: amy.token })).statusCode, 404, 'not a follower yet');
  t.equal(await followAccepted(h.core, amy.account.id, dan.id), true);
  const rel = await get(`/api/v1/accounts/relationships?id[]=${dan.id}`, amy.token);
  t.strictSame([rel[0].following, rel[0].requested], [true, false]);
  t.equal((await get(`/api/v1/statuses/${s?.id}`, amy.token)).content, '<p>for followers</p>', 'a follower now');
  t.equal(await followAccepted(h.core, amy.account.id, dan.id), true, 'a second Accept changes nothing');

  await followRejected(h.core, amy.account.id, dan.id);
  const after = await get(`/api/v1/accounts/relationships?id[]=${dan.id}`, amy.token);
  t.strictSame([after[0].following, after[0].requested], [false, false], 'a Reject ends the follow');
  await h.request('POST', `/api/v1/accounts/${dan.id}/follow`, { token: amy.token });
  await followRejected(h.core, amy.account.id, dan.id);
  t.equal(await followAccepted(h.core, amy.account.id, dan.id), false, 'nothing to accept after a Reject');
  const unfollowed = await h.request('POST', `/api/v1/accounts/${dan.id}/unfollow`, { token: amy.token });
  t.equal(unfollowed.statusCode, 200);
  t.strictSame(await events(), [
    ['account.followed', amy.account.id, dan.id, 'true'],
    ['follow_request.authorized', amy.account.id, dan.id],
    ['follow_request.rejected', amy.account.id, dan.id],
    ['account.followed', amy.account.id, dan.id, 'true'],
    ['follow_request.rejected', amy.account.id, dan.id],
  ]);
});

t.test('local actions record the new events too (for outgoing activities)', async (t) => {
  const mine = await post(h, amy, 'fav');
  await h.request('POST', `/api/v1/statuses/${mine.id}/favourite`, { token: lou.token });
  await h.request('POST', `/api/v1/statuses/${mine.id}/unfavourite`, { token: lou.token });
  await h.request('POST', `/api/v1/statuses/${mine.id}/unfavourite`, { token: lou.token });
  await h.request('POST', `/api/v1/accounts/${amy.account.id}/follow`, { token: lou.token });
  await h.request('POST', `/api/v1/accounts/${amy.account.id}/unfollow`, { token: lou.token });
  await h.request('POST', `/api/v1/accounts/${lou.account.id}/follow`, { token: amy.token });
  await h.request('POST', `/api/v1/follow_requests/${amy.account.id}/reject`, { token: lou.token });
  await h.request('POST', `/api/v1/accounts/${carol.id}/block`, { token: amy.token });
  await h.request('POST', `/api/v1/accounts/${carol.id}/block`, { token: amy.token });
  await h.request('POST', `/api/v1/accounts/${carol.id}/unblock`, { token: amy.token });
  t.strictSame(await events(), [
    ['status.favourited', 'lou', mine.id],
    ['status.unfavourited', 'lou', mine.id],
    ['account.followed', lou.account.id, amy.account.id, 'false'],
    ['account.unfollowed', lou.account.id, amy.account.id],
    ['account.followed', amy.account.id, lou.account.id, 'true'],
    ['follow_request.rejected', amy.account.id, lou.account.id],
    ['account.blocked', amy.account.id, carol.id],
    ['account.unblocked', amy.account.id, carol.id],
  ]);
});

t.test('a remote block ends follows both ways and hides statuses from it', async (t) => {
  await remoteFollow(h.core, carol.id, amy.account.id, 'https://far.example/f/3');
  await h.request('POST', `/api/v1/accounts/${carol.id}/follow`, { token: amy.token });
  await followAccepted(h.core, amy.account.id, carol.id);
  await events();
  await remoteBlock(h.core, carol.id, amy.account.id);
  const rel = await get(`/api/v1/accounts/relationships?id[]=${carol.id}`, amy.token);
  t.strictSame([rel[0].following, rel[0].followed_by, rel[0].blocked_by], [false, false, true]);
  const mine = await post(h, amy, 'after the block');
  await t.rejects(remoteFavourite(h.core, carol.id, mine.id), { status: 403, message: 'This action is not allowed' }, 'a blocker cannot favourite the blocked one\'s statuses (the local rule)');
  await t.rejects(remoteFollow(h.core, carol.id, amy.account.id, 'https://far.example/f/4'), { status: 403, message: 'This action is not allowed' });
  await remoteUnblock(h.core, carol.id, amy.account.id);
  t.equal((await get(`/api/v1/accounts/relationships?id[]=${carol.id}`, amy.token))[0].blocked_by, false);
  t.strictSame(await events(), [
    ['account.blocked', carol.id, amy.account.id],
    ['account.unblocked', carol.id, amy.account.id],
  ]);
});

t.test('unlocking an account accepts its pending requests, each recorded as authorized', async (t) => {
  const kim = await h.user('kim');
  await h.core.storage.accounts.update(kim.account.id, { locked: true });
  t.equal(await remoteFollow(h.core, dan.id, kim.account.id, 'https://far.example/f/9'), 'requested');
  await events();
  const res = await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: kim.token, payload: { locked: false } });
  t.equal(res.statusCode, 200);
  t.equal((await get(`/api/v1/accounts/${kim.account.id}`)).followers_count, 1);
  t.strictSame(await events(), [['follow_request.authorized', dan.id, kim.account.id]]);
});
