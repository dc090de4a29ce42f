// A domain the reader blocks (POST /api/v1/domain_blocks) leaves their sight as Mastodon has it:
// its accounts' statuses are gone from the public and hashtag timelines, from threads, and as
// boosted originals from the home feed; its accounts' notifications are not made. Others, and
// anonymous readers, still see everything.

import t from 'tap';
import { boost, follow, ids, post, remoteAccount, remoteStatus } from '../../helpers/api.ts';
import { harness } from '../../helpers/harness.ts';

t.test("a blocked domain's statuses leave the reader's timelines, threads and notifications", async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  await follow(h, alice, bob);
  const far = await remoteAccount(h, 'far', 'Blocked.Example');
  const near = await remoteAccount(h, 'near', 'ok.example');
  const farPost = await remoteStatus(h, far, '#birds from far', { tags: ['birds'] });
  const nearPost = await remoteStatus(h, near, '#birds from near', { tags: ['birds'] });
  const thread = await post(h, bob, 'what do you think?');
  const farReply = await remoteStatus(h, far, 'I think so', { inReplyToId: thread.id, inReplyToAccountId: bob.account.id, conversationId: thread.id });
  const boosted = await boost(h, bob, farPost.id);

  const home = () => h.request('GET', '/api/v1/timelines/home', { token: alice.token }).then((r) => ids(r.json));
  const publicFor = (token: string | null) => h.request('GET', '/api/v1/timelines/public', { token }).then((r) => ids(r.json));
  const tagFor = (token: string | null) => h.request('GET', '/api/v1/timelines/tag/birds', { token }).then((r) => ids(r.json));
  const contextFor = (token: string) => h.request('GET', `/api/v1/statuses/${thread.id}/context`, { token }).then((r) => ids(r.json.descendants));
  t.ok((await home()).includes(boosted.id), "before the block: bob's boost of far's post is in alice's home");
  t.ok((await publicFor(alice.token)).includes(farPost.id));

  const blocked = await h.request('POST', '/api/v1/domain_blocks', { token: alice.token, payload: { domain: 'blocked.example' } });
  t.equal(blocked.statusCode, 200, blocked.body);

  t.notOk((await home()).includes(boosted.id), 'a boost of a blocked-domain account leaves the home feed');
  t.ok((await home()).includes(thread.id), "bob's own post stays");
  const forAlice = await publicFor(alice.token);
  t.notOk(forAlice.includes(farPost.id), 'gone from the public timeline');
  t.ok(forAlice.includes(nearPost.id), 'another domain stays');
  t.notOk((await tagFor(alice.token)).includes(farPost.id), 'gone from the hashtag timeline');
  t.ok((await tagFor(alice.token)).includes(nearPost.id));
  t.strictSame(await contextFor(alice.token), [], 'gone from the thread');
  t.strictSame(await contextFor(bob.token), [farReply.id], 'bob still sees the reply');
  t.ok((await publicFor(bob.token)).includes(farPost.id), 'and the post');
  t.ok((await publicFor(null)).includes(farPost.id), 'so does an anonymous reader');
  t.ok((await tagFor(null)).includes(farPost.id));

  // Mentions: the blocked domain's account is not heard; the other one is.
  await remoteStatus(h, far, '@alice hello', { mentionIds: [alice.account.id] }, { announce: true });
  await remoteStatus(h, near, '@alice hello', { mentionIds: [alice.account.id] }, { announce: true });
  const notes = await h.request('GET', '/api/v1/notifications?types[]=mention', { token: alice.token });
  t.strictSame(notes.json.map((n: { account: { id: string } }) => n.account.id), [near.id], 'no notification from the blocked domain');

  const lifted = await h.request('DELETE', '/api/v1/domain_blocks', { token: alice.token, payload: { domain: 'blocked.example' } });
  t.equal(lifted.statusCode, 200, lifted.body);
  t.ok((await publicFor(alice.token)).includes(farPost.id), 'unblocked: back in the public timeline');
  t.strictSame(await contextFor(alice.token), [farReply.id], 'and in the thread');
});
