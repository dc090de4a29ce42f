// Quote posts over HTTP (Mastodon 4.5): quoting on publish with its refusals, the Quote and
// ShallowQuote entities, quote_approval, quotes_count, the quotes list, revoking, the interaction
// policy, the notifications, and what a reader who may not see the quoted status is shown.

import t from 'tap';
import { harness, record, type Harness, type TestUser } from '../../helpers/harness.ts';
import { channels } from '../../../core/domain/routing/channels.ts';
import { pollsPlugin, scheduledPlugin } from '../../../plugins/index.ts';
import { act, follow, ids, links, post, publish as publishAs, QUOTE_MISSING, view } from '../../helpers/api.ts';

let h: Harness;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;

t.beforeEach(async () => {
  h = await harness();
  alice = await h.user('alice');
  bob = await h.user('bob');
  carol = await h.user('carol');
});
t.afterEach(async () => {
  await h.close();
});

const publish = (user: TestUser, payload: Record<string, unknown>) => publishAs(h, user, payload);

t.test('a quote of a public status: accepted at once, rendered with the quoted status', async (t) => {
  const original = await post(h, alice, 'worth quoting');
  t.strictSame(original.quote, null, 'no quote of its own');
  t.strictSame(original.quote_approval, { automatic: ['public'], manual: [], current_user: 'automatic' }, "the author's default policy: public");
  t.equal(original.quotes_count, 0);
  const res = await publish(bob, { status: 'look at this', quoted_status_id: original.id });
  t.equal(res.statusCode, 200);
  t.equal(res.json.quote.state, 'accepted');
  t.equal(res.json.quote.quoted_status.id, original.id);
  t.equal(res.json.quote.quoted_status.content, original.content);
  t.strictSame(res.json.quote.quoted_status.quote, null, 'the quoted status quotes nothing');
  t.equal(res.json.quote.quoted_status.quotes_count, 1, 'counted');
  const seen = await view(h, carol, original.id);
  t.equal(seen.json.quotes_count, 1, 'quotes_count');
  t.strictSame(seen.json.quote_approval, { automatic: ['public'], manual: [], current_user: 'automatic' });
  const anonymous = await view(h, null, res.json.id);
  t.equal(anonymous.json.quote.state, 'accepted', 'anyone sees a public quoted status');
  t.strictSame((await view(h, null, original.id)).json.quote_approval.current_user, 'denied', 'nobody signed in: denied');
});

t.test('a quote of a boost quotes the original; a quote of a quote shows the inner one shallow', async (t) => {
  const original = await post(h, alice, 'original');
  const boost = await act(h, bob, original.id, 'reblog');
  const first = await publish(bob, { status: 'quoting the boost', quoted_status_id: boost.json.id });
  t.equal(first.json.quote.quoted_status.id, original.id, 'the original');
  const second = await publish(carol, { status: 'quoting the quote', quoted_status_id: first.json.id });
  t.equal(second.json.quote.quoted_status.id, first.json.id);
  t.strictSame(second.json.quote.quoted_status.quote, { state: 'accepted', quoted_status_id: original.id }, 'ShallowQuote inside');
  const boostOfQuote = await act(h, alice, second.json.id, 'reblog');
  t.strictSame(boostOfQuote.json.quote, null, 'a boost carries no quote of its own');
  t.equal(boostOfQuote.json.reblog.quote.quoted_status.id, first.json.id, 'its original does');
});

t.test('refusals: missing, invisible, direct, private, and policies that refuse (404); bad values (422)', async (t) => {
  const publicOne = await post(h, alice, 'public');
  const direct = await post(h, alice, { status: '@bob secret', visibility: 'direct' });
  const privateOne = await post(h, alice, { status: 'followers only', visibility: 'private' });
  for (const [what, quoted] of [
    ['an unknown id', '99999999999'],
    ['not an id', 'abc'],
    ['a direct status, even to the quoter', direct.id],
    ["someone else's private status, even followed", privateOne.id],
  ] as const) {
    if (what.startsWith('someone')) await follow(h, bob, alice);
    const res = await publish(bob, { status: 'quote', quoted_status_id: quoted });
    t.equal(res.statusCode, 404, what);
    t.strictSame(res.json, QUOTE_MISSING, what);
  }
  const nobody = await post(h, alice, { status: 'do not quote', quote_approval_policy: 'nobody' });
  t.strictSame(nobody.quote_approval, { automatic: [], manual: [], current_user: 'automatic' }, 'nobody but the author');
  t.strictSame((await publish(carol, { status: 'q', quoted_status_id: nobody.id })).json, QUOTE_MISSING, 'nobody: refused');
  t.equal((await view(h, carol, nobody.id)).json.quote_approval.current_user, 'denied');
  t.equal((await publish(alice, { status: 'q', quoted_status_id: nobody.id })).statusCode, 200, 'the author quotes their own');
  const followers = await post(h, alice, { status: 'followers may quote', quote_approval_policy: 'followers' });
  t.strictSame(followers.quote_approval.automatic, ['followers']);
  t.strictSame((await publish(carol, { status: 'q', quoted_status_id: followers.id })).json, QUOTE_MISSING, 'not a follower: refused');
  t.equal((await view(h, bob, followers.id)).json.quote_approval.current_user, 'automatic', 'a follower may');
  t.equal((await publish(bob, { status: 'q', quoted_status_id: followers.id })).json.quote.state, 'accepted', 'a follower quotes');
  const bad = await publish(bob, { status: 'q', quote_approval_policy: 'everyone' });
  t.equal(bad.statusCode, 422);
  t.strictSame(bad.json, { error: 'Record invalid' });
  t.equal((await publish(bob, { status: 'q', quoted_status_id: 'abc', in_reply_to_id: 'abc' })).json.error, 'The post you are trying to reply to does not appear to exist.', 'the reply target is checked first');
  const blocked = await h.request('POST', `/api/v1/accounts/${carol.account.id}/block`, { token: alice.token });
  t.equal(blocked.statusCode, 200);
  t.strictSame((await publish(carol, { status: 'q', quoted_status_id: publicOne.id })).json, QUOTE_MISSING, 'blocked by the author: refused');
});

t.test('private and direct quoting: visibility lowered, policy forced, mentions required', async (t) => {
  const own = await post(h, alice, { status: 'mine, private', visibility: 'private' });
  t.strictSame(own.quote_approval.automatic, [], 'a private status: nobody else may quote it');
  const quoting = await publish(alice, { status: 'quoting my own', quoted_status_id: own.id, visibility: 'public' });
  t.equal(quoting.json.visibility, 'private', 'a quote of a private status is private at most');
  const publicOne = await post(h, alice, 'public');
  const direct = await publish(bob, { status: 'psst', quoted_status_id: publicOne.id, visibility: 'direct' });
  t.equal(direct.statusCode, 422);
  t.strictSame(direct.json, { error: 'Validation failed: Cannot quote a non-mentioned user in a Private Mention post.' });
  const mentioning = await publish(bob, { status: '@alice psst', quoted_status_id: publicOne.id, visibility: 'direct' });
  t.equal(mentioning.statusCode, 200, 'mentioning the quoted author');
  t.equal(mentioning.json.quote.state, 'accepted');
});

t.test('what a reader who may not see the quoted status is shown', async (t) => {
  const secret = await post(h, alice, { status: 'for followers', visibility: 'private' });
  // Alice quotes her own private status in a direct message to carol, who does not follow her.
  const dm = await publish(alice, { status: '@carol look', quoted_status_id: secret.id, visibility: 'direct' });
  t.equal(dm.json.quote.quoted_status.id, secret.id, 'the author sees it');
  const carolView = await view(h, carol, dm.json.id);
  t.equal(carolView.statusCode, 200, 'carol sees the message');
  t.strictSame(carolView.json.quote, { state: 'unauthorized', quoted_status: null }, 'not the quoted status');
  await follow(h, carol, alice);
  t.equal((await view(h, carol, dm.json.id)).json.quote.quoted_status.id, secret.id, 'once she follows, she does');

  const publicOne = await post(h, alice, 'public');
  const quote = await publish(bob, { status: 'quoting', quoted_status_id: publicOne.id });
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/mute`, { token: carol.token });
  t.strictSame((await view(h, carol, quote.json.id)).json.quote, { state: 'muted_account', quoted_status: null }, 'a reader who mutes the quoted author');
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/block`, { token: carol.token });
  t.strictSame((await view(h, carol, quote.json.id)).json.quote, { state: 'blocked_account', quoted_status: null }, 'a reader who blocks the quoted author');
  const deleted = await h.request('DELETE', `/api/v1/statuses/${publicOne.id}`, { token: alice.token });
  t.equal(deleted.statusCode, 200);
  t.strictSame((await view(h, bob, quote.json.id)).json.quote, { state: 'deleted', quoted_status: null }, 'the quoted status deleted');
  const nested = await publish(carol, { status: 'quoting the quote', quoted_status_id: quote.json.id });
  t.strictSame(nested.json.quote.quoted_status.quote, { state: 'deleted', quoted_status_id: null }, 'shallow: deleted');
});

t.test('GET /api/v1/statuses/:id/quotes: accepted quotes, paged by quote, visible ones for others', async (t) => {
  const original = await post(h, alice, 'popular');
  const q1 = await publish(bob, { status: 'one', quoted_status_id: original.id });
  await follow(h, carol, bob);
  const q2 = await publish(bob, { status: 'two, private', quoted_status_id: original.id, visibility: 'private' });
  const q3 = await publish(carol, { status: 'three', quoted_status_id: original.id });
  const all = await view(h, alice, original.id, '/quotes');
  t.equal(all.statusCode, 200);
  t.strictSame(ids(all.json), [q3.json.id, q2.json.id, q1.json.id], 'the author sees every accepted quote, newest first');
  const paged = await h.request('GET', `/api/v1/statuses/${original.id}/quotes?limit=2`, { token: alice.token });
  t.strictSame(ids(paged.json), [q3.json.id, q2.json.id]);
  const next = links(paged.headers)['next'];
  t.match(next, /\/api\/v1\/statuses\/\d+\/quotes\?limit=2&max_id=\d+$/, 'a next link');
  const rest = await h.request('GET', new URL(next as string).pathname + new URL(next as string).search, { token: alice.token });
  t.strictSame(ids(rest.json), [q1.json.id], 'the next page');
  t.match(links(paged.headers)['prev'], /since_id=\d+$/, 'a prev link on since_id');
  const other = await h.request('GET', `/api/v1/statuses/${original.id}/quotes`, { token: (await h.user('dave')).token });
  t.strictSame(ids(other.json), [q3.json.id, q1.json.id], 'others: only what they may see');
  await h.request('POST', `/api/v1/accounts/${carol.account.id}/mute`, { token: alice.token });
  t.strictSame(ids((await view(h, alice, original.id, '/quotes')).json), [q2.json.id, q1.json.id], 'not those of accounts the reader mutes');
  const anonymous = await view(h, null, original.id, '/quotes');
  t.equal(anonymous.statusCode, 401, 'a token is needed');
  t.equal((await view(h, alice, '99999999999', '/quotes')).statusCode, 404);
});

t.test('revoke: only the quoted author, the quote becomes revoked and leaves the list', async (t) => {
  const original = await post(h, alice, 'revocable');
  const quote = await publish(bob, { status: 'quoting', quoted_status_id: original.id });
  const path = `/api/v1/statuses/${original.id}/quotes/${quote.json.id}/revoke`;
  const byBob = await h.request('POST', path, { token: bob.token });
  t.equal(byBob.statusCode, 403);
  t.strictSame(byBob.json, { error: 'This action is not allowed' });
  const unknown = await h.request('POST', `/api/v1/statuses/${original.id}/quotes/99999999999/revoke`, { token: alice.token });
  t.equal(unknown.statusCode, 404);
  t.strictSame(unknown.json, { error: 'Record not found' });
  const streamed = await record(h.bus, [channels.public]);
  t.teardown(() => streamed.stop());
  const revoked = await h.request('POST', path, { token: alice.token });
  t.equal(revoked.statusCode, 200);
  const update = streamed.messages.find((m) => m.message.event === 'status.update');
  t.equal(update?.message.event, 'status.update', 'streamed as an update of the quoting status');
  t.match(JSON.parse(String(update?.message.payload)), { id: quote.json.id, quote: { state: 'revoked', quoted_status: null } });
  t.equal(revoked.json.id, quote.json.id, 'answered with the quoting status');
  t.strictSame(revoked.json.quote, { state: 'revoked', quoted_status: null });
  t.strictSame((await view(h, alice, original.id, '/quotes')).json, [], 'no longer listed');
  t.equal((await view(h, alice, original.id)).json.quotes_count, 0);
  t.strictSame((await view(h, carol, quote.json.id)).json.quote, { state: 'revoked', quoted_status: null }, 'every reader sees it revoked');
  t.equal((await h.request('POST', path, { token: alice.token })).statusCode, 200, 'revoking again changes nothing');
  const noToken = await h.request('POST', path);
  t.equal(noToken.statusCode, 401);
});

t.test('PUT /api/v1/statuses/:id/interaction_policy, and the policy on edit', async (t) => {
  const s = await post(h, alice, 'policy changes');
  const path = `/api/v1/statuses/${s.id}/interaction_policy`;
  const changed = await h.request('PUT', path, { token: alice.token, payload: { quote_approval_policy: 'followers' } });
  t.equal(changed.statusCode, 200);
  t.strictSame(changed.json.quote_approval, { automatic: ['followers'], manual: [], current_user: 'automatic' });
  t.strictSame((await publish(carol, { status: 'q', quoted_status_id: s.id })).json, QUOTE_MISSING, 'the new policy holds');
  t.equal((await h.request('PUT', path, { token: bob.token, payload: { quote_approval_policy: 'public' } })).statusCode, 404, "someone else's status");
  const bad = await h.request('PUT', path, { token: alice.token, payload: { quote_approval_policy: 'anyone' } });
  t.equal(bad.statusCode, 422);
  t.strictSame(bad.json, { error: 'Record invalid' });
  const edited = await h.request('PUT', `/api/v1/statuses/${s.id}`, { token: alice.token, payload: { status: 'policy changes', quote_approval_policy: 'nobody' } });
  t.equal(edited.statusCode, 200);
  t.strictSame(edited.json.quote_approval.automatic, [], 'set on edit');
  t.equal(edited.json.edited_at, null, 'a policy alone is no edit');
  const privateOne = await post(h, alice, { status: 'private', visibility: 'private' });
  const forced = await h.request('PUT', `/api/v1/statuses/${privateOne.id}/interaction_policy`, { token: alice.token, payload: { quote_approval_policy: 'public' } });
  t.strictSame(forced.json.quote_approval.automatic, [], 'a private status stays quotable by nobody else');
});

t.test("the author's default: source.quote_policy and posting:default:quote_policy", async (t) => {
  const me = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: alice.token });
  t.equal(me.json.source.quote_policy, 'public');
  const updated = await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, payload: { source: { quote_policy: 'nobody' } } });
  t.equal(updated.statusCode, 200);
  t.equal(updated.json.source.quote_policy, 'nobody');
  t.equal((await h.request('GET', '/api/v1/preferences', { token: alice.token })).json['posting:default:quote_policy'], 'nobody');
  const s = await post(h, alice, 'under my default');
  t.strictSame(s.quote_approval.automatic, [], 'new statuses take it');
  const wrong = await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, payload: { source: { quote_policy: 'friends' } } });
  t.equal(wrong.statusCode, 422);
  t.match(wrong.json.error, /^Validation failed: Source quote policy /);
});

t.test('notifications: quote to the quoted author, quoted_update to the quoters when it is edited', async (t) => {
  const original = await post(h, alice, 'notable');
  const quote = await publish(bob, { status: 'quoting', quoted_status_id: original.id });
  const aliceNotes = await h.request('GET', '/api/v1/notifications', { token: alice.token });
  const quoteNote = aliceNotes.json.find((n: { type: string }) => n.type === 'quote');
  t.ok(quoteNote, 'a quote notification');
  t.equal(quoteNote.account.id, bob.account.id, 'from the quoter');
  t.equal(quoteNote.status.id, quote.json.id, 'about the quoting status');
  t.equal(quoteNote.status.quote.quoted_status.id, original.id);
  const grouped = await h.request('GET', '/api/v2/notifications', { token: alice.token });
  t.equal(grouped.statusCode, 200);
  const group = grouped.json.notification_groups.find((g: { type: string }) => g.type === 'quote');
  t.equal(group?.status_id, quote.json.id, 'grouped notifications carry it too (ungrouped)');
  t.ok(grouped.json.statuses.some((s: { id: string; quote: { quoted_status: { id: string } } }) => s.id === quote.json.id && s.quote.quoted_status.id === original.id), 'with the quoting status');
  const edit = await h.request('PUT', `/api/v1/statuses/${original.id}`, { token: alice.token, payload: { status: 'notable, edited' } });
  t.equal(edit.statusCode, 200);
  const bobNotes = await h.request('GET', '/api/v1/notifications', { token: bob.token });
  const updateNote = bobNotes.json.find((n: { type: string }) => n.type === 'quoted_update');
  t.ok(updateNote, 'a quoted_update notification');
  t.equal(updateNote.account.id, alice.account.id, 'from the quoted author');
  t.equal(updateNote.status.id, quote.json.id, "about the quoter's own status");
  t.equal(updateNote.status.quote.quoted_status.content, '<p>notable, edited</p>', 'showing the edit');
  const ownQuote = await publish(alice, { status: 'quoting myself', quoted_status_id: original.id });
  t.equal(ownQuote.statusCode, 200);
  const again = await h.request('GET', '/api/v1/notifications?types[]=quote', { token: alice.token });
  t.equal(again.json.length, 1, 'quoting oneself tells nobody');
});

t.test('a deleted quoting status is no longer counted or listed', async (t) => {
  const original = await post(h, alice, 'counted');
  const quote = await publish(bob, { status: 'soon gone', quoted_status_id: original.id });
  t.equal((await view(h, alice, original.id)).json.quotes_count, 1);
  const deleted = await h.request('DELETE', `/api/v1/statuses/${quote.json.id}`, { token: bob.token });
  t.equal(deleted.statusCode, 200);
  t.equal(deleted.json.quote.state, 'accepted', 'the delete answer shows the status as it was');
  t.equal((await view(h, alice, original.id)).json.quotes_count, 0, 'not counted');
  t.strictSame((await view(h, alice, original.id, '/quotes')).json, [], 'not listed');
});

t.test("a quoted status shows its plugins' parts (a poll)", async (t) => {
  const withPolls = await harness({ plugins: [pollsPlugin()] });
  t.teardown(() => withPolls.close());
  const [ann, ben] = [await withPolls.user('ann'), await withPolls.user('ben')];
  const poll = (await withPolls.request('POST', '/api/v1/statuses', { token: ann.token, payload: { status: 'tea?', poll: { options: ['yes', 'no'], expires_in: 3600 } } })).json;
  const quote = await withPolls.request('POST', '/api/v1/statuses', { token: ben.token, payload: { status: 'vote!', quoted_status_id: poll.id } });
  t.equal(quote.statusCode, 200);
  t.match(quote.json.quote.quoted_status.poll, { id: poll.poll.id, options: [{ title: 'yes' }, { title: 'no' }] });
  t.equal(quote.json.poll, null, 'the quoting status has none of its own');
});

t.test('a scheduled quote is published with its quote and policy', async (t) => {
  const scheduled = await harness({ plugins: [scheduledPlugin()] });
  t.teardown(() => scheduled.close());
  const [ann, ben] = [await scheduled.user('ann'), await scheduled.user('ben')];
  const original = (await scheduled.request('POST', '/api/v1/statuses', { token: ann.token, payload: { status: 'quote me later' } })).json;
  const when = new Date(scheduled.clock.now() + 10 * 60_000).toISOString();
  const later = await scheduled.request('POST', '/api/v1/statuses', { token: ben.token, payload: { status: 'later', quoted_status_id: original.id, quote_approval_policy: 'nobody', scheduled_at: when } });
  t.equal(later.statusCode, 200);
  t.ok(later.json.scheduled_at, 'scheduled');
  const missing = await scheduled.request('POST', '/api/v1/statuses', { token: ben.token, payload: { status: 'later', quoted_status_id: '99999999999', scheduled_at: when } });
  t.strictSame(missing.json, QUOTE_MISSING, 'refused at once, not when due');
  scheduled.clock.advance(11 * 60_000);
  await scheduled.rookery.drain();
  const statuses = (await scheduled.request('GET', `/api/v1/accounts/${ben.account.id}/statuses`, { token: ben.token })).json;
  t.equal(statuses.length, 1, 'published');
  t.equal(statuses[0].quote.quoted_status.id, original.id, 'with its quote');
  t.strictSame(statuses[0].quote_approval.automatic, [], 'and its policy');
});
