// Spec part 3 over HTTP: every row of the state table, with its status code, its body and its
// idempotency.

import t from 'tap';
import { harness, record, type Harness, type TestUser } from '../../helpers/harness.ts';
import { act, post, view } from '../../helpers/api.ts';

let h: Harness;
let alice: TestUser;
let bob: TestUser;

t.beforeEach(async () => {
  h = await harness();
  alice = await h.user('alice');
  bob = await h.user('bob');
});
t.afterEach(async () => {
  await h.close();
});

const NOT_FOUND = { error: 'Record not found' };

t.test('favourite: false → true, true → true (200, no error), undo both ways', async (t) => {
  const s = await post(h, alice, 'like me');
  const first = await act(h, bob, s.id, 'favourite');
  t.equal(first.statusCode, 200);
  t.equal(first.json.id, s.id, 'returns the Status');
  t.equal(first.json.favourited, true);
  t.equal(first.json.favourites_count, 1);
  const again = await act(h, bob, s.id, 'favourite');
  t.equal(again.statusCode, 200, 'already favourited: 200, no error');
  t.equal(again.json.favourited, true);
  t.equal(again.json.favourites_count, 1, 'counted once');
  const undo = await act(h, bob, s.id, 'unfavourite');
  t.equal(undo.statusCode, 200);
  t.equal(undo.json.favourited, false);
  t.equal(undo.json.favourites_count, 0);
  const undoAgain = await act(h, bob, s.id, 'unfavourite');
  t.equal(undoAgain.statusCode, 200, 'already not favourited: 200, no error');
  t.equal(undoAgain.json.favourited, false);
  t.equal(undoAgain.json.favourites_count, 0);
});

t.test("a boost's own flags are the viewer's on the original, as Mastodon renders one status", async (t) => {
  const s = await post(h, alice, 'flags through a boost');
  const boost = await act(h, bob, s.id, 'reblog');
  t.equal(boost.json.reblogged, true, 'masto.js reads reblogged off the boost the reblog call returns');
  t.equal(boost.json.favourited, false);
  t.equal(boost.json.bookmarked, false);
  t.equal(boost.json.muted, false);
  t.notOk('pinned' in boost.json, 'a boost is not pinnable: no pinned, as Mastodon');
  t.equal(boost.json.reblog.pinned, false);
  await act(h, bob, s.id, 'favourite');
  await act(h, bob, s.id, 'bookmark');
  const seen = await view(h, bob, boost.json.id);
  t.match(seen.json, { favourited: true, reblogged: true, bookmarked: true, muted: false, reblog: { favourited: true, reblogged: true, bookmarked: true } });
  // Another viewer's flags stay theirs.
  t.match((await view(h, alice, boost.json.id)).json, { favourited: false, reblogged: false, bookmarked: false });
  // In a timeline too.
  const home = await h.request('GET', '/api/v1/timelines/home', { token: bob.token });
  const inHome = home.json.find((x: { id: string }) => x.id === boost.json.id);
  t.match(inHome, { favourited: true, reblogged: true, bookmarked: true });
});

t.test('two favourites at once count once', async (t) => {
  const s = await post(h, alice, 'race');
  const results = await Promise.all([act(h, bob, s.id, 'favourite'), act(h, bob, s.id, 'favourite')]);
  t.same(results.map((r) => r.statusCode), [200, 200]);
  t.equal((await view(h, bob, s.id)).json.favourites_count, 1);
});

t.test('boost: a new Status with its own id, the original in reblog; undo; undo without a boost is 404', async (t) => {
  const s = await post(h, alice, 'share me');
  const boost = await act(h, bob, s.id, 'reblog');
  t.equal(boost.statusCode, 200);
  t.not(boost.json.id, s.id, 'the boost has its own top-level id');
  t.equal(boost.json.reblog.id, s.id, 'the boosted status is in reblog');
  t.equal(boost.json.reblog.reblogged, true);
  t.equal(boost.json.reblog.reblogs_count, 1);
  t.equal(boost.json.account.id, bob.account.id);
  t.equal(boost.json.content, '');
  const again = await act(h, bob, s.id, 'reblog');
  t.equal(again.statusCode, 200);
  t.equal(again.json.id, boost.json.id, 'an existing boost is returned, not duplicated');
  t.equal((await view(h, null, s.id)).json.reblogs_count, 1);
  const ofBoost = await act(h, alice, boost.json.id, 'reblog');
  t.equal(ofBoost.json.reblog.id, s.id, 'a boost of a boost boosts the original');

  const undo = await act(h, bob, s.id, 'unreblog');
  t.equal(undo.statusCode, 200);
  t.equal(undo.json.id, s.id, 'undo returns the original');
  t.equal(undo.json.reblogged, false);
  t.equal(undo.json.reblogs_count, 1, "only alice's own boost is left");
  t.equal((await view(h, null, boost.json.id)).statusCode, 404, 'the boost is gone');
  const missing = await act(h, bob, s.id, 'unreblog');
  t.equal(missing.statusCode, 404, 'no boost exists: 404');
  t.same(missing.json, NOT_FOUND);
});

t.test('boost: the visibility parameter', async (t) => {
  const s = await post(h, alice, 'quietly');
  const unlisted = await act(h, bob, s.id, 'reblog', { visibility: 'unlisted' });
  t.equal(unlisted.json.visibility, 'unlisted');
  const other = await h.user('carol');
  const direct = await act(h, other, s.id, 'reblog', { visibility: 'direct' });
  t.equal(direct.statusCode, 422);
  t.same(direct.json, { error: 'Validation failed: Visibility is reserved' });
  const bogus = await act(h, other, s.id, 'reblog', { visibility: 'everyone' });
  t.equal(bogus.statusCode, 422);
  t.same(bogus.json, { error: 'Validation failed: Visibility is not included in the list' });
  const own = await post(h, alice, { status: 'mine only', visibility: 'private' });
  const privateBoost = await act(h, alice, own.id, 'reblog', { visibility: 'public' });
  t.equal(privateBoost.statusCode, 200, 'the author may boost their private status');
  t.equal(privateBoost.json.visibility, 'private', 'and it stays private');
});

t.test('bookmark: false → true (idempotent), undo, undo without a bookmark is 404', async (t) => {
  const s = await post(h, alice, 'keep me');
  const first = await act(h, bob, s.id, 'bookmark');
  t.equal(first.statusCode, 200);
  t.equal(first.json.bookmarked, true);
  t.equal((await act(h, bob, s.id, 'bookmark')).json.bookmarked, true, 'bookmarking twice: still bookmarked');
  const undo = await act(h, bob, s.id, 'unbookmark');
  t.equal(undo.statusCode, 200);
  t.equal(undo.json.bookmarked, false);
  const missing = await act(h, bob, s.id, 'unbookmark');
  t.equal(missing.statusCode, 404, 'already not bookmarked: 404');
  t.same(missing.json, NOT_FOUND);
});

t.test('mute conversation: notifications for the thread stop, and resume after unmute', async (t) => {
  const s = await post(h, alice, 'a thread');
  const muted = await act(h, alice, s.id, 'mute');
  t.equal(muted.statusCode, 200);
  t.equal(muted.json.muted, true);
  const again = await act(h, alice, s.id, 'mute');
  t.equal(again.statusCode, 200, 'already muted: 200');
  t.equal(again.json.muted, true, 'stays true');
  await act(h, bob, s.id, 'favourite');
  await post(h, bob, { status: '@alice replying', in_reply_to_id: s.id });
  const during = await h.request('GET', '/api/v1/notifications', { token: alice.token });
  t.same(during.json, [], 'no notification from a muted thread');

  const unmuted = await act(h, alice, s.id, 'unmute');
  t.equal(unmuted.statusCode, 200);
  t.equal(unmuted.json.muted, false);
  t.equal((await act(h, alice, s.id, 'unmute')).json.muted, false, 'already unmuted: 200');
  const carol = await h.user('carol');
  await act(h, carol, s.id, 'favourite');
  const after = await h.request('GET', '/api/v1/notifications', { token: alice.token });
  t.same(after.json.map((n: { type: string; account: { id: string } }) => [n.type, n.account.id]), [['favourite', carol.account.id]], 'notifications resume');
});

t.test('muting from a reply mutes the whole conversation', async (t) => {
  const root = await post(h, alice, 'root');
  const reply = await post(h, bob, { status: 'reply', in_reply_to_id: root.id });
  t.equal((await act(h, alice, reply.id, 'mute')).json.muted, true);
  t.equal((await view(h, alice, root.id)).json.muted, true, 'the root reads as muted too');
});

t.test('pin: own public status; idempotent; unpin; refusals with the spec texts', async (t) => {
  const s = await post(h, alice, 'pin me');
  const pinned = await act(h, alice, s.id, 'pin');
  t.equal(pinned.statusCode, 200);
  t.equal(pinned.json.pinned, true);
  const again = await act(h, alice, s.id, 'pin');
  t.equal(again.statusCode, 200, 'pinning a pinned status is idempotent');
  t.equal(again.json.pinned, true);
  const unpinned = await act(h, alice, s.id, 'unpin');
  t.equal(unpinned.statusCode, 200);
  t.equal(unpinned.json.pinned, false);
  const unpinAgain = await act(h, alice, s.id, 'unpin');
  t.equal(unpinAgain.statusCode, 200, 'already unpinned: 200');
  t.equal(unpinAgain.json.pinned, false);

  const others = await act(h, bob, s.id, 'pin');
  t.equal(others.statusCode, 422);
  t.same(others.json, { error: "Validation failed: Someone else's toot cannot be pinned" });
  for (const visibility of ['unlisted', 'private', 'direct']) {
    const hidden = await post(h, alice, { status: `${visibility} one`, visibility });
    const res = await act(h, alice, hidden.id, 'pin');
    t.equal(res.statusCode, 422, visibility);
    t.same(res.json, { error: 'Validation failed: Non-public toot cannot be pinned' }, visibility);
  }
  const boost = await act(h, alice, (await post(h, bob, 'boost me')).id, 'reblog');
  const pinBoost = await act(h, alice, boost.json.id, 'pin');
  t.equal(pinBoost.statusCode, 422, 'boosts cannot be pinned');
  t.same(pinBoost.json, { error: 'Validation failed: A boost cannot be pinned' });
});

t.test('at most five pins', async (t) => {
  for (let i = 0; i < 5; i++) t.equal((await act(h, alice, (await post(h, alice, `pin ${i}`)).id, 'pin')).statusCode, 200);
  const sixth = await act(h, alice, (await post(h, alice, 'one too many')).id, 'pin');
  t.equal(sixth.statusCode, 422);
  t.same(sixth.json, { error: 'Validation failed: You have already pinned the maximum number of posts' });
});

t.test('delete: source text for redraft, later reads 404, a delete event, a second delete 404', async (t) => {
  const s = await post(h, alice, { status: 'Hello #world https://example.com/page', spoiler_text: 'cw', visibility: 'public' });
  const events = await record(h.bus, ['timeline:public', `timeline:${alice.account.id}`]);
  const res = await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
  t.equal(res.statusCode, 200);
  t.equal(res.json.id, s.id);
  t.equal(res.json.text, 'Hello #world https://example.com/page', 'the source text');
  t.notOk('content' in res.json, 'text instead of content');
  t.same(res.json.media_attachments, []);
  t.equal(res.json.poll, null);
  t.equal(res.json.spoiler_text, 'cw');
  t.same(events.messages, [
    { channel: 'timeline:public', message: { event: 'delete', payload: s.id } },
    { channel: `timeline:${alice.account.id}`, message: { event: 'delete', payload: s.id } },
  ]);
  await events.stop();
  for (const suffix of ['', '/context', '/favourited_by', '/reblogged_by', '/card']) {
    const later = await view(h, alice, s.id, suffix);
    t.equal(later.statusCode, 404, `GET ${suffix || 'status'} after delete`);
    t.same(later.json, NOT_FOUND);
  }
  const second = await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
  t.equal(second.statusCode, 404, 'deleted: 404');
  t.same(second.json, NOT_FOUND);

  const redraft = await post(h, alice, { status: res.json.text, spoiler_text: res.json.spoiler_text });
  t.equal(redraft.spoiler_text, 'cw', 'the delete response republishes as is');
});

t.test("delete: someone else's status is 404 and stays; counters go back", async (t) => {
  const s = await post(h, alice, 'mine');
  const reply = await post(h, bob, { status: 'reply', in_reply_to_id: s.id });
  t.equal((await view(h, null, s.id)).json.replies_count, 1);
  const res = await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: bob.token });
  t.equal(res.statusCode, 404, 'not owned by the caller');
  t.same(res.json, NOT_FOUND);
  t.equal((await view(h, null, s.id)).statusCode, 200, 'still there');
  await act(h, bob, s.id, 'reblog');
  t.equal((await h.request('GET', `/api/v1/accounts/${bob.account.id}`)).json.statuses_count, 2);
  t.equal((await h.request('DELETE', `/api/v1/statuses/${reply.id}`, { token: bob.token })).statusCode, 200);
  t.equal((await view(h, null, s.id)).json.replies_count, 0, 'replies_count goes back');
  await h.request('DELETE', `/api/v1/statuses/${s.id}`, { token: alice.token });
  t.equal((await h.request('GET', `/api/v1/accounts/${bob.account.id}`)).json.statuses_count, 0, "bob's boost went with the status");
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.statuses_count, 0);
});

t.test('deleting your own boost by its id undoes it', async (t) => {
  const s = await post(h, alice, 'boost me');
  const boost = await act(h, bob, s.id, 'reblog');
  const res = await h.request('DELETE', `/api/v1/statuses/${boost.json.id}`, { token: bob.token });
  t.equal(res.statusCode, 200);
  t.equal((await view(h, bob, s.id)).json.reblogged, false);
  t.equal((await view(h, bob, s.id)).json.reblogs_count, 0);
});
