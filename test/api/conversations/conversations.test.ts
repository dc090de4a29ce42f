// Private conversations (GET /api/v1/conversations and friends): one per thread and set of
// participants for each account, its unread flag and last status; the `conversation` event on
// the direct and user streams, over a real socket; remote direct statuses; who sees which.

import t from 'tap';
import { harness, type TestUser } from '../../helpers/harness.ts';
import { follow, ids, links, post, remoteAccount, remoteStatus } from '../../helpers/api.ts';
import { openSse } from '../../helpers/sse.ts';

const h = await harness({ listen: true });
t.teardown(() => h.close());
const alice = await h.user('alice');
const bob = await h.user('bob');
const carol = await h.user('carol');
// Private mentions from people one does not follow are filtered by default (policy.test.ts):
// everyone here follows everyone.
for (const [a, b] of [[alice, bob], [bob, alice], [alice, carol], [carol, alice], [bob, carol], [carol, bob]] as const) await follow(h, a, b);

const conversations = async (user: TestUser, query = '') => {
  const res = await h.request('GET', `/api/v1/conversations${query}`, { token: user.token });
  if (res.statusCode !== 200) throw new Error(res.body);
  return res;
};
const accountJson = async (user: TestUser) => (await h.request('GET', `/api/v1/accounts/${user.account.id}`, { token: alice.token })).json;
const statusJson = async (viewer: TestUser, id: string) => (await h.request('GET', `/api/v1/statuses/${id}`, { token: viewer.token })).json;

t.test('a direct status: read for its author, unread for the mentioned, with exact bodies', async (t) => {
  const dm = await post(h, alice, { status: '@bob psst', visibility: 'direct' });
  const [mine] = (await conversations(alice)).json;
  const [theirs] = (await conversations(bob)).json;
  t.same(mine, { id: mine.id, unread: false, accounts: [await accountJson(bob)], last_status: await statusJson(alice, dm.id) });
  t.same(theirs, { id: theirs.id, unread: true, accounts: [await accountJson(alice)], last_status: await statusJson(bob, dm.id) });
  t.not(mine.id, theirs.id, 'each account has its own');
  t.same((await conversations(carol)).json, [], 'someone not in it sees nothing');

  const reply = await post(h, bob, { status: '@alice yes?', visibility: 'direct', in_reply_to_id: dm.id });
  const [mineAfter] = (await conversations(alice)).json;
  t.same([mineAfter.id, mineAfter.unread, mineAfter.last_status.id], [mine.id, true, reply.id], 'a reply joins the same conversation, unread for alice now');
  t.same((await conversations(bob)).json.map((c: { id: string }) => c.id), [theirs.id], 'still one for bob');

  await h.request('DELETE', `/api/v1/statuses/${reply.id}`, { token: bob.token });
  t.equal((await conversations(alice)).json[0].last_status.id, dm.id, 'a deleted status gives the last status back to the one before');
  await h.request('DELETE', `/api/v1/statuses/${dm.id}`, { token: alice.token });
  t.same((await conversations(alice)).json, [], 'a conversation whose statuses are all deleted is gone');
  t.same((await conversations(bob)).json, []);
});

t.test('participants make the conversation; a note to oneself lists oneself', async (t) => {
  const group = await post(h, alice, { status: '@bob @carol all of us', visibility: 'direct' });
  const pair = await post(h, alice, { status: '@bob just us', visibility: 'direct', in_reply_to_id: group.id });
  const self = await post(h, alice, { status: 'a note', visibility: 'direct' });
  const list = (await conversations(alice)).json;
  t.same(list.map((c: { last_status: { id: string } }) => c.last_status.id), [self.id, pair.id, group.id], 'one per participant set, the newest first');
  t.same(list[0].accounts.map((a: { id: string }) => a.id), [alice.account.id], 'to oneself: oneself');
  t.same(list[1].accounts.map((a: { id: string }) => a.id), [bob.account.id]);
  t.same(list[2].accounts.map((a: { id: string }) => a.id).sort(), [bob.account.id, carol.account.id].sort());
  t.same((await conversations(carol)).json.map((c: { last_status: { id: string } }) => c.last_status.id), [group.id], 'carol is only in the group');

  const page = await conversations(alice, '?limit=2');
  t.same(ids(page.json), ids(list).slice(0, 2));
  t.same(links(page.headers), {
    next: `${h.core.config.baseUrl}/api/v1/conversations?limit=2&max_id=${pair.id}`,
    prev: `${h.core.config.baseUrl}/api/v1/conversations?limit=2&min_id=${self.id}`,
  }, 'paged by the id of the last status');
  t.same(ids((await conversations(alice, `?limit=2&max_id=${pair.id}`)).json), [list[2].id]);
  for (const s of [group, pair, self]) await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
});

t.test('read, unread, remove; someone else’s is 404; scopes', async (t) => {
  const dm = await post(h, bob, { status: '@alice again', visibility: 'direct' });
  const [c] = (await conversations(alice)).json;
  const read = await h.request('POST', `/api/v1/conversations/${c.id}/read`, { token: alice.token });
  t.same([read.statusCode, read.json], [200, { ...c, unread: false }]);
  const unread = await h.request('POST', `/api/v1/conversations/${c.id}/unread`, { token: alice.token });
  t.same([unread.statusCode, unread.json.unread], [200, true]);
  const theirs = await h.request('POST', `/api/v1/conversations/${c.id}/read`, { token: bob.token });
  t.same([theirs.statusCode, theirs.json], [404, { error: 'Record not found' }]);
  t.same((await h.request('DELETE', `/api/v1/conversations/${c.id}`, { token: bob.token })).statusCode, 404);
  const removed = await h.request('DELETE', `/api/v1/conversations/${c.id}`, { token: alice.token });
  t.same([removed.statusCode, removed.json], [200, {}]);
  t.same((await conversations(alice)).json, [], 'removed from the list');
  t.same((await conversations(bob)).json.length, 1, 'bob keeps his');
  t.equal((await h.request('DELETE', `/api/v1/conversations/${c.id}`, { token: alice.token })).statusCode, 404, 'gone');
  const again = await post(h, bob, { status: '@alice and again', visibility: 'direct', in_reply_to_id: dm.id });
  t.same((await conversations(alice)).json.map((x: { last_status: { id: string } }) => x.last_status.id), [again.id], 'a new status starts it again');

  t.equal((await h.request('GET', '/api/v1/conversations')).statusCode, 401);
  const reader = await h.user('reader', { scopes: ['read:statuses'] });
  t.equal((await h.request('GET', '/api/v1/conversations', { token: reader.token })).statusCode, 200);
  const denied = await h.request('POST', `/api/v1/conversations/${c.id}/read`, { token: reader.token });
  t.same([denied.statusCode, denied.json], [403, { error: 'This action is outside the authorized scopes' }]);
  for (const s of [dm, again]) await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: bob.token });
});

t.test('the conversation event reaches the direct and user streams over a real socket', async (t) => {
  const base = `${h.core.config.baseUrl}/api/v1/streaming`;
  const direct = await openSse(`${base}/direct`, { authorization: `Bearer ${bob.token}` });
  const user = await openSse(`${base}/user`, { authorization: `Bearer ${bob.token}` });
  t.teardown(() => {
    direct.close();
    user.close();
  });
  t.equal(direct.status, 200);
  await Promise.all([direct.comment(''), user.comment('')]).catch(() => undefined);
  const dm = await post(h, alice, { status: '@bob live', visibility: 'direct' });
  const [listed] = (await conversations(bob)).json;
  const fromDirect = await direct.next((e) => e.event === 'conversation');
  const fromUser = await user.next((e) => e.event === 'conversation');
  t.same(JSON.parse(fromDirect.data), listed, 'the payload is the conversation as listed');
  t.same(JSON.parse(fromUser.data), listed);
  t.equal(JSON.parse(fromDirect.data).last_status.id, dm.id);
  await h.request('DELETE', `/api/v1/statuses/${dm.id}`, { token: alice.token });
});

t.test('a muted thread adds nothing to the muter’s conversation', async (t) => {
  const dm = await post(h, alice, { status: '@bob thread', visibility: 'direct' });
  await h.request('POST', `/api/v1/statuses/${dm.id}/mute`, { token: bob.token });
  const [before] = (await conversations(bob)).json;
  await h.request('POST', `/api/v1/conversations/${before.id}/read`, { token: bob.token });
  const more = await post(h, alice, { status: '@bob more', visibility: 'direct', in_reply_to_id: dm.id });
  const [after] = (await conversations(bob)).json;
  t.same([after.last_status.id, after.unread], [dm.id, false], 'no notification in a muted thread, so no new status in it');
  t.equal((await conversations(alice)).json[0].last_status.id, more.id, 'the author’s own moves on');
  for (const s of [dm, more]) await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
});

t.test('a remote direct status joins the conversation of the local account it mentions', async (t) => {
  const far = await remoteAccount(h, 'far');
  await h.core.storage.relationships.follow({
    id: h.core.ids.next(),
    accountId: carol.account.id,
    targetAccountId: far.id,
    showReblogs: true,
    notify: false,
    languages: null,
    createdAt: h.clock.now(),
  });
  const remote = await remoteStatus(h, far, '@carol from afar', { visibility: 'direct', mentionIds: [carol.account.id] }, { announce: true });
  const [c] = (await conversations(carol)).json.filter((x: { last_status: { id: string } }) => x.last_status.id === remote.id);
  t.same([c.unread, c.last_status.id, c.accounts.map((a: { id: string }) => a.id)], [true, remote.id, [far.id]]);
});
