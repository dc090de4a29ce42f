// quoted_status_id on edit (PUT /api/v1/statuses/:id, issue 20): another status replaces the
// quote (publish's checks and refusals, publish's states), an empty value or null removes it,
// the status quoted now or no parameter keeps it. The change is part of the edit (a revision);
// quotes_count and the quotes lists of both quoted statuses follow.

import t from 'tap';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { follow, ids, post, publish as publishAs, QUOTE_MISSING, remoteAccount, remoteStatus, view } from '../../helpers/api.ts';

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
function edit(user: TestUser, id: string, payload: Record<string, unknown>) {
  return h.request('PUT', `/api/v1/statuses/${id}`, { token: user.token, payload });
}
async function history(user: TestUser, id: string): Promise<{ content: string }[]> {
  return (await view(h, user, id, '/history')).json;
}

t.test('another status replaces the quote: counts, lists, revision, notification', async (t) => {
  const first = await post(h, alice, 'first');
  const second = await post(h, carol, 'second');
  const quoting = await publish(bob, { status: 'quoting', quoted_status_id: first.id });
  t.equal(quoting.json.quote.quoted_status.id, first.id);

  const res = await edit(bob, quoting.json.id, { status: 'quoting another', quoted_status_id: second.id });
  t.equal(res.statusCode, 200);
  t.equal(res.json.quote.state, 'accepted', 'a local status whose policy allows: accepted at once');
  t.equal(res.json.quote.quoted_status.id, second.id, 'the new quote');
  t.equal(res.json.quote.quoted_status.quotes_count, 1, 'the new quoted status counts it');
  t.not(res.json.edited_at, null, 'an edit');
  t.strictSame((await history(bob, quoting.json.id)).map((e) => e.content), ['<p>quoting</p>', '<p>quoting another</p>'], 'a revision');

  t.equal((await view(h, bob, quoting.json.id)).json.quote.quoted_status.id, second.id, 'read back');
  t.equal((await view(h, alice, first.id)).json.quotes_count, 0, 'the old quoted status no longer counts it');
  t.strictSame((await view(h, alice, first.id, '/quotes')).json, [], "nor lists it, even to its author");
  t.strictSame(ids((await view(h, carol, second.id, '/quotes')).json), [quoting.json.id], 'the new one lists it');

  const notes = await h.request('GET', '/api/v1/notifications?types[]=quote', { token: carol.token });
  t.strictSame(notes.json.map((n: { status: { id: string } }) => n.status.id), [quoting.json.id], 'the new quoted author is told');

  const textOnly = await edit(bob, quoting.json.id, { status: 'text only, quoting another' });
  t.equal(textOnly.json.quote.quoted_status.id, second.id, 'no parameter: the quote is kept');
  const again = await h.request('GET', '/api/v1/notifications?types[]=quote', { token: carol.token });
  t.equal(again.json.length, 1, 'a later edit tells nobody again');
});

t.test('an empty value or null removes the quote; the same status keeps it', async (t) => {
  const original = await post(h, alice, 'quoted');
  const quoting = await publish(bob, { status: 'quoting', quoted_status_id: original.id });

  const same = await edit(bob, quoting.json.id, { status: 'quoting', quoted_status_id: original.id });
  t.equal(same.statusCode, 200);
  t.equal(same.json.edited_at, null, 'the same status and text: nothing changed, no edit');
  t.equal(same.json.quote.quoted_status.id, original.id);
  t.equal((await history(bob, quoting.json.id)).length, 1, 'no revision');

  for (const [what, value] of [['an empty value', ''], ['null', null]] as const) {
    const status = await publish(bob, { status: `quoting, then ${what}`, quoted_status_id: original.id });
    const res = await edit(bob, status.json.id, { status: `quoting, then ${what}`, quoted_status_id: value });
    t.equal(res.statusCode, 200, what);
    t.strictSame(res.json.quote, null, `${what}: removed`);
    t.not(res.json.edited_at, null, `${what}: an edit, though the text is the same`);
    t.equal((await history(bob, status.json.id)).length, 2, `${what}: a revision`);
    t.strictSame((await view(h, carol, status.json.id)).json.quote, null, `${what}: read back`);
  }
  t.equal((await view(h, alice, original.id)).json.quotes_count, 1, 'only the quote kept is counted');
  t.strictSame(ids((await view(h, alice, original.id, '/quotes')).json), [quoting.json.id], 'and listed');

  const plain = await post(h, bob, 'no quote');
  const nothing = await edit(bob, plain.id, { status: 'no quote', quoted_status_id: '' });
  t.equal(nothing.json.edited_at, null, 'removing no quote changes nothing');

  const added = await edit(bob, plain.id, { status: 'now a quote', quoted_status_id: original.id });
  t.equal(added.json.quote.quoted_status.id, original.id, 'a status without a quote gains one');
  t.equal((await view(h, alice, original.id)).json.quotes_count, 2);
});

t.test("refusals: publish's, the status itself, a private one in a public status; nothing changes", async (t) => {
  const publicOne = await post(h, alice, 'public');
  const quoting = await publish(bob, { status: 'quoting', quoted_status_id: publicOne.id });
  const direct = await post(h, alice, { status: '@bob secret', visibility: 'direct' });
  const privateOne = await post(h, alice, { status: 'followers only', visibility: 'private' });
  const nobody = await post(h, alice, { status: 'do not quote', quote_approval_policy: 'nobody' });
  await follow(h, bob, alice);
  for (const [what, quoted] of [
    ['an unknown id', '99999999999'],
    ['not an id', 'abc'],
    ['a direct status', direct.id],
    ["someone else's private status", privateOne.id],
    ['a policy of nobody', nobody.id],
    ['the status itself', quoting.json.id],
  ] as const) {
    const res = await edit(bob, quoting.json.id, { status: 'changed', quoted_status_id: quoted });
    t.equal(res.statusCode, 404, what);
    t.strictSame(res.json, QUOTE_MISSING, what);
  }
  const own = await post(h, bob, { status: 'my own, private', visibility: 'private' });
  const lowered = await edit(bob, quoting.json.id, { status: 'changed', quoted_status_id: own.id });
  t.equal(lowered.statusCode, 422, 'an edit cannot make a public status private');
  t.strictSame(lowered.json, { error: 'Validation failed: Cannot quote a private post in a public or unlisted post.' });

  const dm = await publish(bob, { status: '@alice psst', visibility: 'direct', quoted_status_id: publicOne.id });
  const notMentioned = await edit(bob, dm.json.id, { status: '@alice psst', quoted_status_id: (await post(h, carol, 'carol')).id });
  t.equal(notMentioned.statusCode, 422);
  t.strictSame(notMentioned.json, { error: 'Validation failed: Cannot quote a non-mentioned user in a Private Mention post.' });
  t.equal((await edit(bob, dm.json.id, { status: '@alice @carol psst', quoted_status_id: (await post(h, carol, 'carol again')).id })).json.quote.state, 'accepted', 'mentioning its author');

  const unchanged = await view(h, bob, quoting.json.id);
  t.equal(unchanged.json.content, '<p>quoting</p>', 'a refused edit changed nothing');
  t.equal(unchanged.json.quote.quoted_status.id, publicOne.id);
  t.equal(unchanged.json.edited_at, null);
  t.equal((await edit(carol, quoting.json.id, { status: 'not mine', quoted_status_id: '' })).statusCode, 404, "someone else's status");
});

t.test('a remote quoted status: the new quote waits, pending', async (t) => {
  const remote = await remoteAccount(h, 'dana');
  const quoted = await remoteStatus(h, remote, 'far away');
  await h.core.storage.quotes.setPolicy(quoted.id, 'public');
  const original = await post(h, alice, 'local');
  const quoting = await publish(bob, { status: 'quoting', quoted_status_id: original.id });
  const res = await edit(bob, quoting.json.id, { status: 'quoting far away', quoted_status_id: quoted.id });
  t.equal(res.statusCode, 200);
  t.equal(res.json.quote.state, 'pending', "pending the remote server's authorization");
  t.equal(res.json.quote.quoted_status, null, 'not shown while pending');
  t.equal((await view(h, alice, original.id)).json.quotes_count, 0, 'the local one no longer counts it');
});
