// The storage contract of followed and featured hashtags, hashtag uses and endorsements
// (core/domain/ports/storage.ts), run by storageContract on every adapter.

import { NO_EFFECTS, T0 } from './fixtures.ts';
import type { Id } from '../../core/domain/model.ts';
import type { It, Shared } from './section.ts';

const idsOf = (items: readonly { id: Id }[]): Id[] => items.map((i) => i.id);
const sorted = <T>(values: readonly T[]): T[] => [...values].sort();

export function tagsContract(it: It, shared: Shared): void {
  it('tags: follow once, unfollow, pages, followedAmong, followersOf', async (t, w) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const first = { id: w.id(), accountId: alice.id, tag: 'cats', name: 'Cats', createdAt: T0 + 1 };
    t.strictSame(await w.s.tags.follow(first), first, 'a new follow is returned as stored');
    t.strictSame(await w.s.tags.follow({ ...first, id: w.id(), name: 'CATS', createdAt: T0 + 2 }), first, 'following again returns the first follow');
    const dogs = { id: w.id(), accountId: alice.id, tag: 'dogs', name: 'dogs', createdAt: T0 + 3 };
    const birds = { id: w.id(), accountId: alice.id, tag: 'birds', name: 'birds', createdAt: T0 + 4 };
    await w.s.tags.follow(dogs);
    await w.s.tags.follow(birds);
    await w.s.tags.follow({ id: w.id(), accountId: bob.id, tag: 'dogs', name: 'Dogs', createdAt: T0 + 5 });
    t.strictSame(idsOf(await w.s.tags.followedBy(alice.id, { limit: 10 })), [birds.id, dogs.id, first.id], 'newest first');
    t.strictSame(idsOf(await w.s.tags.followedBy(alice.id, { limit: 1, maxId: birds.id })), [dogs.id], 'maxId');
    t.strictSame(idsOf(await w.s.tags.followedBy(alice.id, { limit: 1, minId: first.id })), [dogs.id], 'minId: the one right above');
    t.strictSame(sorted(await w.s.tags.followedAmong(alice.id, ['cats', 'dogs', 'fish'])), ['cats', 'dogs'], 'followedAmong');
    t.strictSame(await w.s.tags.followedAmong(alice.id, []), [], 'followedAmong of none');
    t.strictSame(sorted(await w.s.tags.followersOf(['dogs', 'cats'])), sorted([alice.id, bob.id]), 'followersOf: each account once');
    t.strictSame(await w.s.tags.followersOf(['fish']), [], 'followersOf a tag nobody follows');
    t.equal(await w.s.tags.unfollow(alice.id, 'cats'), true, 'unfollow');
    t.equal(await w.s.tags.unfollow(alice.id, 'cats'), false, 'unfollow again');
    t.strictSame(await w.s.tags.followersOf(['cats']), [], 'gone');
  });

  shared('tags: followersOf read again shows every change since, made here or elsewhere', async (t, w, other) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const read = async () => sorted(await w.s.tags.followersOf(['otters', 'seals']));
    await w.s.tags.follow({ id: w.id(), accountId: alice.id, tag: 'otters', name: 'otters', createdAt: T0 + 1 });
    t.strictSame([await read(), await read()], [[alice.id], [alice.id]], 'a follow made here, read twice');
    await other.tags.follow({ id: w.id(), accountId: bob.id, tag: 'seals', name: 'seals', createdAt: T0 + 2 });
    t.strictSame(await read(), sorted([alice.id, bob.id]), 'a follow made on another connection');
    await w.s.tags.unfollow(alice.id, 'otters');
    t.strictSame(await read(), [bob.id], 'an unfollow made here');
    const kept = await w.s.tags.followersOf(['otters', 'seals']);
    kept.push(alice.id);
    t.strictSame(await read(), [bob.id], 'changing what a read returned changes no later read');
    await other.tags.unfollow(bob.id, 'seals');
    t.strictSame(await read(), [], 'an unfollow made on another connection');
  });

  shared('tags: racing follows of one tag keep one', async (t, w, other) => {
    const alice = await w.account();
    const follows = await Promise.all([0, 1, 2, 3].map((i) => (i % 2 === 0 ? w.s : other).tags.follow({ id: w.id(), accountId: alice.id, tag: 'cats', name: 'cats', createdAt: T0 + i })));
    t.equal(new Set(follows.map((f) => f.id)).size, 1, 'every call returns the same follow');
    t.equal((await w.s.tags.followedBy(alice.id, { limit: 10 })).length, 1, 'one stored');
  });

  it('tags: featured tags with a limit, exists, unfeature', async (t, w) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const cats = { id: w.id(), accountId: alice.id, tag: 'cats', name: 'Cats', createdAt: T0 };
    t.strictSame(await w.s.tags.feature(cats, 2), { result: 'added', featured: cats }, 'added');
    t.strictSame(await w.s.tags.feature({ ...cats, id: w.id(), name: 'CATS' }, 2), { result: 'exists', featured: cats }, 'exists: the stored one');
    const dogs = { id: w.id(), accountId: alice.id, tag: 'dogs', name: 'dogs', createdAt: T0 + 1 };
    t.equal((await w.s.tags.feature(dogs, 2)).result, 'added', 'second');
    t.strictSame(await w.s.tags.feature({ id: w.id(), accountId: alice.id, tag: 'fish', name: 'fish', createdAt: T0 + 2 }, 2), { result: 'limit', featured: null }, 'limit');
    t.equal((await w.s.tags.feature({ id: w.id(), accountId: bob.id, tag: 'cats', name: 'cats', createdAt: T0 }, 2)).result, 'added', 'per account');
    t.strictSame(await w.s.tags.featuredBy(alice.id), [cats, dogs], 'oldest first');
    t.equal(await w.s.tags.unfeature(bob.id, cats.id), false, 'only the owner unfeatures');
    t.equal(await w.s.tags.unfeature(alice.id, 'nope'), false, 'not an id');
    t.equal(await w.s.tags.unfeature(alice.id, cats.id), true, 'unfeature');
    t.strictSame(await w.s.tags.featuredBy(alice.id), [dogs], 'left');
  });

  shared('tags: racing features never pass the limit', async (t, w, other) => {
    const alice = await w.account();
    const results = await Promise.all(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((tag, i) => (i % 2 === 0 ? w.s : other).tags.feature({ id: w.id(), accountId: alice.id, tag, name: tag, createdAt: T0 }, 3)),
    );
    t.equal(results.filter((r) => r.result === 'added').length, 3, 'three added');
    t.equal((await w.s.tags.featuredBy(alice.id)).length, 3, 'three stored');
  });

  it('tags: statsOf and uses of live statuses', async (t, w) => {
    const [alice, bob] = [await w.account(), await w.account()];
    const s1 = await w.post(alice.id, { tags: ['cats', 'dogs'], createdAt: T0 + 10 });
    const s2 = await w.post(alice.id, { tags: ['cats'], visibility: 'unlisted', createdAt: T0 + 20 });
    await w.post(alice.id, { tags: ['cats'], visibility: 'private', createdAt: T0 + 30 });
    const gone = await w.post(alice.id, { tags: ['cats'], createdAt: T0 + 40 });
    await w.s.statuses.delete(gone.id, T0 + 41, NO_EFFECTS);
    const b1 = await w.post(bob.id, { tags: ['dogs'], createdAt: T0 + 50 });
    const boost = await w.s.statuses.reblog({ ...b1, id: w.id(), accountId: alice.id, reblogOfId: b1.id, tags: [], createdAt: T0 + 60 });
    t.equal(boost.created, true, 'boost');
    await w.post(bob.id, { tags: [], createdAt: T0 + 70 });

    const stats = await w.s.tags.statsOf(alice.id, ['cats', 'dogs', 'fish'], ['public', 'unlisted']);
    t.strictSame(
      stats.sort((a, b) => a.tag.localeCompare(b.tag)),
      [{ tag: 'cats', count: 2, lastStatusAt: s2.createdAt }, { tag: 'dogs', count: 1, lastStatusAt: s1.createdAt }],
      'counted over live statuses with the visibilities; unused tags left out',
    );
    t.strictSame(await w.s.tags.statsOf(alice.id, [], ['public']), [], 'no tags');

    const uses = await w.s.tags.uses({ since: T0, visibilities: ['public', 'unlisted'] }, 100);
    t.strictSame(
      uses.map((u) => [u.tag, u.statusId, u.accountId, u.createdAt]),
      [['dogs', b1.id, bob.id, T0 + 50], ['cats', s2.id, alice.id, T0 + 20], ['cats', s1.id, alice.id, T0 + 10], ['dogs', s1.id, alice.id, T0 + 10]],
      'newest status first, then by tag',
    );
    t.strictSame((await w.s.tags.uses({ since: T0 + 15, visibilities: ['public', 'unlisted'] }, 100)).map((u) => u.statusId), [b1.id, s2.id], 'since');
    t.strictSame((await w.s.tags.uses({ since: T0, visibilities: ['public'], tags: ['dogs'] }, 100)).map((u) => u.statusId), [b1.id, s1.id], 'tags, visibilities');
    t.strictSame((await w.s.tags.uses({ since: T0, visibilities: ['public'], accountId: bob.id }, 100)).map((u) => u.statusId), [b1.id], 'accountId');
    t.strictSame((await w.s.tags.uses({ since: T0, visibilities: ['public', 'unlisted'] }, 2)).length, 2, 'limit');
  });

  it('statuses.query: anyTag', async (t, w) => {
    const alice = await w.account();
    const a = await w.post(alice.id, { tags: ['cats'] });
    const b = await w.post(alice.id, { tags: ['dogs', 'cats'] });
    await w.post(alice.id, { tags: ['fish'] });
    const c = await w.post(alice.id, { tags: ['dogs'] });
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ['public'], anyTag: ['cats', 'dogs'] }, { limit: 10 })), [c.id, b.id, a.id], 'any of the tags, each status once');
    t.strictSame(await w.s.statuses.query({ visibilities: ['public'], anyTag: [] }, { limit: 10 }), [], 'no tags: no status');
  });

  it('endorsements: once, unendorse, pages, endorsedAmong', async (t, w) => {
    const [alice, bob, carol, dave] = [await w.account(), await w.account(), await w.account(), await w.account()];
    const e1 = { id: w.id(), accountId: alice.id, targetId: bob.id, createdAt: T0 };
    t.equal(await w.s.endorsements.endorse(e1), true, 'added');
    t.equal(await w.s.endorsements.endorse({ ...e1, id: w.id() }), false, 'already');
    const e2 = { id: w.id(), accountId: alice.id, targetId: carol.id, createdAt: T0 + 1 };
    await w.s.endorsements.endorse(e2);
    await w.s.endorsements.endorse({ id: w.id(), accountId: dave.id, targetId: bob.id, createdAt: T0 });
    t.strictSame(await w.s.endorsements.endorsedBy(alice.id, { limit: 10 }), [e2, e1], 'newest first');
    t.strictSame(idsOf(await w.s.endorsements.endorsedBy(alice.id, { limit: 10, maxId: e2.id })), [e1.id], 'maxId');
    t.strictSame(sorted(await w.s.endorsements.endorsedAmong(alice.id, [bob.id, carol.id, dave.id, 'x'])), sorted([bob.id, carol.id]), 'endorsedAmong');
    t.equal(await w.s.endorsements.unendorse(alice.id, bob.id), true, 'unendorse');
    t.equal(await w.s.endorsements.unendorse(alice.id, bob.id), false, 'again');
    t.strictSame(await w.s.endorsements.endorsedAmong(alice.id, [bob.id]), [], 'gone');
  });
}
