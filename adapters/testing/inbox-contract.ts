// The storage contract of notification groups and filtering, notification policies and
// requests, and private conversations (core/domain/ports/storage.ts), run by storageContract
// on every adapter.

import { T0, notification } from './fixtures.ts';
import type { Account, AccountConversation, Id, Status } from '../../core/domain/model.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';

/** What these tests need of the storage contract's test and world (storage-contract.ts). */
interface ContractTest {
  equal(found: unknown, wanted: unknown, ...message: [] | [string]): unknown;
  strictSame(found: unknown, wanted: unknown, ...message: [] | [string]): unknown;
}
interface World {
  s: Storage;
  id(): Id;
  account(): Promise<Account>;
  post(accountId: Id): Promise<Status>;
}
type It = (name: string, body: (t: ContractTest, w: World) => Promise<void>) => void;
type Shared = (name: string, body: (t: ContractTest, w: World, other: Storage) => Promise<void>) => void;

function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to exist`);
  return value;
}
const idsOf = (items: readonly { id: Id }[]): Id[] => items.map((i) => i.id);

export function inboxContract(it: It, shared: Shared): void {
  it('notifications: group keys, filtered flags, counts, group summaries, deletes', async (t, w) => {
    const [alice, bob, carol, dave] = [await w.account(), await w.account(), await w.account(), await w.account()];
    const s = await w.post(alice.id);
    const key = `favourite-${s.id}-10`;
    const f1 = notification(w.id(), alice.id, bob.id, { type: 'favourite', statusId: s.id, groupKey: key, createdAt: T0 + 1 });
    const m1 = notification(w.id(), alice.id, dave.id, { type: 'mention', statusId: s.id, filtered: true, createdAt: T0 + 2 });
    const f2 = notification(w.id(), alice.id, carol.id, { type: 'favourite', statusId: s.id, groupKey: key, createdAt: T0 + 3 });
    const f3 = notification(w.id(), alice.id, bob.id, { type: 'favourite', statusId: s.id, groupKey: key, createdAt: T0 + 4 });
    const fo = notification(w.id(), alice.id, carol.id, { type: 'follow', groupKey: 'follow-10', createdAt: T0 + 5 });
    const m2 = notification(w.id(), alice.id, dave.id, { type: 'mention', statusId: s.id, filtered: true, createdAt: T0 + 6 });
    const other = notification(w.id(), bob.id, alice.id, { type: 'favourite', statusId: s.id, groupKey: key, createdAt: T0 + 7 });
    for (const n of [f1, m1, f2, f3, fo, m2, other]) await w.s.notifications.create(n);
    t.strictSame(await w.s.notifications.get(alice.id, m1.id), m1, 'the filtered flag and a null group key come back');
    t.strictSame(await w.s.notifications.get(alice.id, f2.id), f2, 'the group key comes back');
    const ls = async (f: Parameters<Storage['notifications']['list']>[1]) => idsOf(await w.s.notifications.list(alice.id, f, { limit: 10 }));
    t.strictSame(await ls({ filtered: false }), [fo.id, f3.id, f2.id, f1.id], 'filtered: false');
    t.strictSame(await ls({ filtered: true }), [m2.id, m1.id], 'filtered: true');
    t.strictSame(await ls({ groupKey: key }), [f3.id, f2.id, f1.id], 'groupKey');
    t.equal(await w.s.notifications.count(alice.id, { filtered: true, fromAccountId: dave.id, types: ['mention'] }, 10), 2, 'count');
    t.equal(await w.s.notifications.count(alice.id, {}, 3), 3, 'count: capped at the limit');
    t.strictSame(await w.s.notifications.latestGrouped(alice.id, 'favourite', s.id), f3, 'latestGrouped: the newest with a key');
    t.strictSame(await w.s.notifications.latestGrouped(alice.id, 'follow', null), fo, 'latestGrouped: about no status');
    t.equal(await w.s.notifications.latestGrouped(alice.id, 'mention', s.id), null, 'latestGrouped: none has a key');

    t.strictSame(
      await w.s.notifications.summarizeGroups(alice.id, [key, 'follow-10', 'nothing-1'], { upTo: f3.id, from: f2.id }, 8),
      [{ groupKey: key, mostRecentId: f3.id, mostRecentAt: T0 + 4, count: 3, sampleAccountIds: [bob.id, carol.id], oldestFromId: f2.id }],
      'summaries: up to upTo, senders once each, newest first; groups with nothing at or below upTo left out',
    );
    t.strictSame(
      await w.s.notifications.summarizeGroups(alice.id, [key], { upTo: f2.id, from: null }, 1),
      [{ groupKey: key, mostRecentId: f2.id, mostRecentAt: T0 + 3, count: 2, sampleAccountIds: [carol.id], oldestFromId: null }],
      'summaries: a lower upTo, one sample, no from',
    );

    t.equal(await w.s.notifications.unfilterFrom(alice.id, dave.id), 2, 'unfilterFrom: how many');
    t.strictSame(await ls({ filtered: true }), [], 'nothing filtered any more');
    t.equal(await w.s.notifications.deleteWhere(alice.id, { groupKey: key }), 3, 'deleteWhere a group');
    t.strictSame(await ls({}), [m2.id, fo.id, m1.id], 'the group is gone');
    t.strictSame(await w.s.notifications.get(bob.id, other.id), other, "another account's notification of the same key stays");
    t.equal(await w.s.notifications.deleteFrom(dave.id, 1), 1, 'deleteFrom: at most the limit');
    t.equal(await w.s.notifications.deleteFrom(dave.id, 10), 1, 'deleteFrom: the rest');
    t.equal(await w.s.notifications.deleteFrom(dave.id, 10), 0, 'deleteFrom: none left');
    t.strictSame(await ls({}), [fo.id], "the sender's notifications are gone, the others stay");
    t.equal(await w.s.notifications.deleteFrom(alice.id, 10), 1, "deleteFrom reaches every recipient (alice's to bob)");
    t.equal(await w.s.notifications.get(bob.id, other.id), null);
  });

  it('notification policies: defaults are the core’s (null), set replaces', async (t, w) => {
    const alice = await w.account();
    t.equal(await w.s.notificationPolicies.getPolicy(alice.id), null, 'never set: null');
    const policy = { accountId: alice.id, forNotFollowing: 'filter', forNotFollowers: 'accept', forNewAccounts: 'drop', forPrivateMentions: 'filter', forLimitedAccounts: 'accept' } as const;
    await w.s.notificationPolicies.setPolicy(policy);
    t.strictSame(await w.s.notificationPolicies.getPolicy(alice.id), policy, 'as set');
    await w.s.notificationPolicies.setPolicy({ ...policy, forNotFollowing: 'accept' });
    t.strictSame(await w.s.notificationPolicies.getPolicy(alice.id), { ...policy, forNotFollowing: 'accept' }, 'replaced');
  });

  it('notification requests: one per sender, upsert moves the last status, paged, counted, deleted; permissions', async (t, w) => {
    const [alice, bob, carol] = [await w.account(), await w.account(), await w.account()];
    const r1 = { id: w.id(), accountId: alice.id, fromAccountId: bob.id, lastStatusId: w.id(), createdAt: T0, updatedAt: T0 };
    t.strictSame(await w.s.notificationPolicies.upsertRequest(r1), r1, 'created');
    const later = w.id();
    t.strictSame(
      await w.s.notificationPolicies.upsertRequest({ id: w.id(), accountId: alice.id, fromAccountId: bob.id, lastStatusId: later, createdAt: T0 + 9, updatedAt: T0 + 9 }),
      { ...r1, lastStatusId: later, updatedAt: T0 + 9 },
      'again from the same sender: its id and createdAt kept, last status and updatedAt moved',
    );
    const r2 = await w.s.notificationPolicies.upsertRequest({ id: w.id(), accountId: alice.id, fromAccountId: carol.id, lastStatusId: null, createdAt: T0, updatedAt: T0 });
    t.strictSame(idsOf(await w.s.notificationPolicies.listRequests(alice.id, { limit: 10 })), [r2.id, r1.id], 'newest first');
    t.strictSame(idsOf(await w.s.notificationPolicies.listRequests(alice.id, { limit: 1, maxId: r2.id })), [r1.id], 'paged by id');
    t.equal(await w.s.notificationPolicies.countRequests(alice.id, 10), 2, 'counted');
    t.equal(await w.s.notificationPolicies.countRequests(alice.id, 1), 1, 'counted up to the limit');
    t.equal(await w.s.notificationPolicies.getRequest(bob.id, r1.id), null, "another account's request is not found");
    t.equal(await w.s.notificationPolicies.getRequest(alice.id, 'nope'), null, 'a malformed id is not found');
    t.equal(await w.s.notificationPolicies.deleteRequest(bob.id, r1.id), false, "deleting another's: false");
    t.equal(await w.s.notificationPolicies.deleteRequest(alice.id, r1.id), true, 'deleted');
    t.equal(await w.s.notificationPolicies.deleteRequest(alice.id, r1.id), false, 'deleted already');
    t.equal(await w.s.notificationPolicies.isPermitted(alice.id, bob.id), false, 'not permitted');
    await w.s.notificationPolicies.permit(alice.id, bob.id, T0);
    await w.s.notificationPolicies.permit(alice.id, bob.id, T0 + 1);
    t.equal(await w.s.notificationPolicies.isPermitted(alice.id, bob.id), true, 'permitted (twice is once)');
    t.equal(await w.s.notificationPolicies.isPermitted(bob.id, alice.id), false, 'one way only');
  });

  const conv = (w: World, accountId: Id, conversationId: Id, participantIds: Id[], unread: boolean): AccountConversation => ({
    id: w.id(),
    accountId,
    conversationId,
    participantIds,
    lastStatusId: '0',
    unread,
  });

  it('conversations: one per thread and participants, statuses added once, last status, unread', async (t, w) => {
    const [alice, bob, carol] = [await w.account(), await w.account(), await w.account()];
    const thread = w.id();
    const [s1, s2, s3, s4] = [w.id(), w.id(), w.id(), w.id()];
    const first = await w.s.conversations.addStatus(conv(w, alice.id, thread, [carol.id, bob.id], true), s2);
    t.equal(first.added, true, 'a new conversation');
    const c = first.conversation;
    t.strictSame(c.participantIds, [bob.id, carol.id], 'participants in ascending order');
    t.strictSame({ lastStatusId: c.lastStatusId, unread: c.unread, accountId: c.accountId, conversationId: c.conversationId }, { lastStatusId: s2, unread: true, accountId: alice.id, conversationId: thread });
    const again = await w.s.conversations.addStatus(conv(w, alice.id, thread, [bob.id, carol.id], false), s2);
    t.strictSame(again, { conversation: c, added: false }, 'the same status again changes nothing');
    const older = await w.s.conversations.addStatus(conv(w, alice.id, thread, [bob.id, carol.id], false), s1);
    t.strictSame(older, { conversation: { ...c, unread: false }, added: true }, 'an older status joins; the last status stays; unread as given');
    const newer = await w.s.conversations.addStatus(conv(w, alice.id, thread, [bob.id, carol.id], true), s3);
    t.strictSame(newer.conversation, { ...c, lastStatusId: s3, unread: true }, 'a newer status moves the last status');
    const other = await w.s.conversations.addStatus(conv(w, alice.id, thread, [bob.id], true), s4);
    t.equal(other.conversation.id === c.id, false, 'other participants: another conversation');
    const bobs = await w.s.conversations.addStatus(conv(w, bob.id, thread, [alice.id, carol.id], false), s3);
    t.strictSame(idsOf(await w.s.conversations.list(alice.id, { limit: 10 })), [other.conversation.id, c.id], 'listed by last status, newest first');
    t.strictSame(idsOf(await w.s.conversations.list(alice.id, { limit: 10, maxId: s4 })), [c.id], 'maxId is a last status id');
    t.strictSame(idsOf(await w.s.conversations.list(alice.id, { limit: 1, minId: s2 })), [c.id], 'minId: the one just above');
    t.strictSame(await w.s.conversations.get(alice.id, c.id), newer.conversation, 'get');
    t.equal(await w.s.conversations.get(bob.id, c.id), null, "another account's is not found");
    t.strictSame(await w.s.conversations.setUnread(alice.id, c.id, false), { ...newer.conversation, unread: false }, 'marked read');
    t.equal(await w.s.conversations.setUnread(bob.id, c.id, false), null, "another account's cannot be marked");
    t.equal(await w.s.conversations.delete(bob.id, c.id), false, "another account's cannot be deleted");
    t.equal(await w.s.conversations.delete(alice.id, c.id), true, 'deleted');
    t.equal(await w.s.conversations.get(alice.id, c.id), null, 'gone');
    const restarted = await w.s.conversations.addStatus(conv(w, alice.id, thread, [bob.id, carol.id], true), s3);
    t.strictSame({ added: restarted.added, last: restarted.conversation.lastStatusId }, { added: true, last: s3 }, 'a deleted conversation starts again, without its old statuses');
    t.strictSame(must(await w.s.conversations.get(bob.id, bobs.conversation.id), 'bob’s').lastStatusId, s3, 'bob’s own is untouched');
  });

  it('conversations: a removed status leaves every conversation that held it', async (t, w) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const thread = w.id();
    const [s1, s2] = [w.id(), w.id()];
    const a = (await w.s.conversations.addStatus(conv(w, alice.id, thread, [bob.id], false), s1)).conversation;
    await w.s.conversations.addStatus(conv(w, alice.id, thread, [bob.id], false), s2);
    const b = (await w.s.conversations.addStatus(conv(w, bob.id, thread, [alice.id], true), s2)).conversation;
    const removed = await w.s.conversations.removeStatus(s2);
    const byAccount = new Map(removed.map((r) => [r.accountId, r]));
    t.equal(removed.length, 2, 'two conversations held it');
    t.strictSame(byAccount.get(alice.id), { accountId: alice.id, id: a.id, conversation: { ...a, lastStatusId: s1 } }, 'the last status falls back');
    t.strictSame(byAccount.get(bob.id), { accountId: bob.id, id: b.id, conversation: null }, 'a conversation left empty is deleted');
    t.equal(await w.s.conversations.get(bob.id, b.id), null, 'gone');
    t.strictSame(await w.s.conversations.removeStatus(s2), [], 'removing it again: nothing');
    t.strictSame(await w.s.conversations.removeStatus('nope'), [], 'a malformed id: nothing');
  });

  shared('conversations: concurrent additions to one conversation keep every status', async (t, w, other) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const thread = w.id();
    const ids = [w.id(), w.id(), w.id(), w.id(), w.id(), w.id()];
    const results = await Promise.all(ids.map((id, i) => (i % 2 === 0 ? w.s : other).conversations.addStatus(conv(w, alice.id, thread, [bob.id], true), id)));
    t.equal(new Set(results.map((r) => r.conversation.id)).size, 1, 'one conversation');
    t.equal(must((await w.s.conversations.list(alice.id, { limit: 10 }))[0], 'the conversation').lastStatusId, ids[5], 'the newest status is the last');
    const removed = await w.s.conversations.removeStatus(must(ids[5], 'id'));
    t.equal(removed[0]?.conversation?.lastStatusId, ids[4], 'every status was kept: the one before takes over');
  });
}
