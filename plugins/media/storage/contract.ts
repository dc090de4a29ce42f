// The media plugin's storage contract: what its repository must do on every engine it supports,
// with the core's status writes (run by test/plugins/storage-contracts.test.ts on memory and
// SQLite). Checks of the port's comments, with exact values, on a fresh store per test.

import { StorageConflict, type StorageWrite } from 'rookery/plugin-kit';
import { contractRunner, type ContractTest, edit, idsOf, media, type OpenStore, POST, rejectsConflict, replyTo, status, T0 } from 'rookery/testing';
import { mediaStorage } from './index.ts';

/** A write of the same store as `sibling` whose check fails: what another plugin's refusal
 * looks like to the media's write. */
const failing = (sibling: StorageWrite): StorageWrite => ({
  store: sibling.store,
  check() {
    throw new StorageConflict('other');
  },
  apply() {},
});

export function mediaStorageContract(t: ContractTest, adapterName: string, open: OpenStore): void {
  const { it, durable } = contractRunner(t, `${adapterName}: media`, open);

  it('create, get, getMany in order, update, deleteUnattached', async (t, w) => {
    const repo = w.s.extend(mediaStorage);
    const alice = await w.account();
    const m1 = media(w.id(), alice.id);
    const m2 = media(w.id(), alice.id, { type: 'video', url: null, previewUrl: null, processed: false, extra: { duration: 12.5, fps: 30, codec: 'h264' } });
    await repo.create(m1);
    await repo.create(m2);
    t.strictSame(await repo.get(m2.id), m2, 'get');
    t.equal(await repo.get(w.id()), null, 'get: missing');
    t.strictSame(idsOf(await repo.getMany([m2.id, w.id(), m1.id])), [m2.id, m1.id], 'getMany: in the order of ids, missing skipped');
    const patch = { description: 'alt text', focus: { x: 0.5, y: -0.25 }, processed: true, url: 'https://files.example/v.mp4', small: null, type: 'gifv' as const, extra: { duration: 3 } };
    t.strictSame(await repo.update(m2.id, patch), { ...m2, ...patch }, 'update');
    t.strictSame(await repo.get(m2.id), { ...m2, ...patch }, 'update stored');
    t.equal(await repo.update(w.id(), { description: 'x' }), null, 'update: missing');
    const attachedTo = w.id();
    await w.s.statuses.create(status(attachedTo, alice.id, { mediaIds: [m1.id] }), POST, { writes: [repo.attach(alice.id, attachedTo, [m1.id])] });
    t.equal(await repo.deleteUnattached(m1.id), false, 'attached media is not deleted');
    t.equal(await repo.deleteUnattached(m2.id), true, 'unattached: deleted');
    t.equal(await repo.get(m2.id), null, 'gone');
    t.equal(await repo.deleteUnattached(m2.id), false, 'again: false');
    await rejectsConflict(t, repo.create(media(m1.id, alice.id)), 'id', 'a taken media id');
  });

  it('deleteOfAccount: the account’s media, attached or not, a batch at a time, returned', async (t, w) => {
    const repo = w.s.extend(mediaStorage);
    const alice = await w.account();
    const bob = await w.account();
    const mine = [media(w.id(), alice.id), media(w.id(), alice.id), media(w.id(), alice.id)];
    const theirs = media(w.id(), bob.id);
    for (const m of [...mine, theirs]) await repo.create(m);
    const attachedTo = w.id();
    await w.s.statuses.create(status(attachedTo, alice.id, { mediaIds: [mine[0]!.id] }), POST, { writes: [repo.attach(alice.id, attachedTo, [mine[0]!.id])] });
    const first = await repo.deleteOfAccount(alice.id, 2);
    t.equal(first.length, 2, 'at most the limit');
    const rest = await repo.deleteOfAccount(alice.id, 10);
    t.strictSame(idsOf([...first, ...rest]).sort(), idsOf(mine).sort(), 'every one of hers, attached or not, returned once');
    t.strictSame(await repo.getMany(idsOf(mine)), [], 'gone');
    t.strictSame(await repo.deleteOfAccount(alice.id, 10), [], 'none left');
    t.strictSame(await repo.get(theirs.id), theirs, "another account's stay");
  });

  it('statuses.create: media must be owned and unattached, else StorageConflict media and nothing written', async (t, w) => {
    const repo = w.s.extend(mediaStorage);
    const alice = await w.account();
    const bob = await w.account();
    const m1 = media(w.id(), alice.id);
    const m2 = media(w.id(), alice.id);
    const m3 = media(w.id(), alice.id);
    const mb = media(w.id(), bob.id);
    for (const m of [m1, m2, m3, mb]) await repo.create(m);
    const post = (mediaIds: string[], o: Parameters<typeof status>[2] = {}) => {
      const s = status(w.id(), alice.id, { mediaIds, ...o });
      return { s, writes: [repo.attach(alice.id, s.id, mediaIds)] };
    };

    const ok = post([m2.id, m1.id]);
    t.equal((await w.s.statuses.create(ok.s, POST, { writes: ok.writes })).created, true, 'owned, unattached media: created');
    t.strictSame([(await repo.get(m1.id))?.statusId, (await repo.get(m2.id))?.statusId], [ok.s.id, ok.s.id], 'media attached to the status');
    t.strictSame((await w.st(ok.s.id)).mediaIds, [m2.id, m1.id], 'media order kept');

    const attached = post([m1.id]);
    await rejectsConflict(t, w.s.statuses.create(attached.s, POST, { writes: attached.writes }), 'media', 'already attached media');
    t.equal(await w.s.statuses.get(attached.s.id), null, 'status not written (attached)');

    const foreign = post([mb.id]);
    await rejectsConflict(t, w.s.statuses.create(foreign.s, POST, { writes: foreign.writes }), 'media', "another account's media");
    t.equal(await w.s.statuses.get(foreign.s.id), null, 'status not written (foreign)');
    t.equal((await repo.get(mb.id))?.statusId, null, 'the foreign media stays unattached');

    const missing = post([w.id()]);
    await rejectsConflict(t, w.s.statuses.create(missing.s, POST, { writes: missing.writes }), 'media', 'missing media');

    const parent = await w.post(bob.id);
    const mixed = post([m3.id, mb.id], { tags: ['mixed'], inReplyToId: parent.id, inReplyToAccountId: bob.id });
    await rejectsConflict(t, w.s.statuses.create(mixed.s, replyTo(parent.id), { writes: mixed.writes, idempotency: { key: 'mixed-key', notBefore: T0 } }), 'media', 'one bad media among good ones');
    t.equal(await w.s.statuses.get(mixed.s.id), null, 'status not written (mixed)');
    t.equal((await repo.get(m3.id))?.statusId, null, 'the good media was not attached');
    const good = post([m3.id]);
    await rejectsConflict(t, w.s.statuses.create(good.s, POST, { writes: [...good.writes, failing(good.writes[0]!)] }), 'other', "another write's refusal");
    t.equal((await repo.get(m3.id))?.statusId, null, 'the good media was not attached when another write refused');
    t.equal((await w.st(parent.id)).repliesCount, 0, 'the reply counter did not move');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ['public', 'unlisted', 'private', 'direct'], tag: 'mixed' }, { limit: 5 })), [], 'its tags were not inserted');
    t.equal((await w.acct(alice.id)).statusesCount, 1, "the author's counter did not move");
    const retry = post([m3.id]);
    const r = await w.s.statuses.create(retry.s, POST, { writes: retry.writes, idempotency: { key: 'mixed-key', notBefore: T0 } });
    t.equal(r.created, true, 'the idempotency key of the failed create was not recorded');
  });

  it('statuses.update: re-attaches, keeps the status own media, refuses foreign media', async (t, w) => {
    const repo = w.s.extend(mediaStorage);
    const alice = await w.account();
    const bob = await w.account();
    const m1 = media(w.id(), alice.id);
    const m2 = media(w.id(), alice.id);
    const mb = media(w.id(), bob.id);
    for (const m of [m1, m2, mb]) await repo.create(m);
    const s = status(w.id(), alice.id, { mediaIds: [m1.id], createdAt: T0 + 1000 });
    await w.s.statuses.create(s, POST, { writes: [repo.attach(alice.id, s.id, [m1.id])] });
    const patch = { text: 'new', content: '<p>new</p>', spoilerText: '', sensitive: false, language: 'en', mentionIds: [], tags: [], mediaIds: [m2.id, m1.id], pollId: null, editedAt: T0 + 5000 };
    await w.s.statuses.update(s.id, patch, [edit(w.id(), s)], { writes: [repo.attach(alice.id, s.id, patch.mediaIds)] });
    t.equal((await repo.get(m2.id))?.statusId, s.id, 'new media attached');
    t.equal((await repo.get(m1.id))?.statusId, s.id, 'kept media still attached');

    await rejectsConflict(t, w.s.statuses.update(s.id, { ...patch, text: 'stolen media', mediaIds: [mb.id] }, [edit(w.id(), s)], { writes: [repo.attach(alice.id, s.id, [mb.id])] }), 'media', "another account's media");
    const after = await w.st(s.id);
    t.strictSame([after.text, after.mediaIds], ['new', [m2.id, m1.id]], 'nothing written by the failed update');
    t.equal((await w.s.statuses.edits(s.id)).length, 1, 'no revision appended by the failed update');
    t.equal((await repo.get(mb.id))?.statusId, null, 'the foreign media stays unattached');
  });

  it('unattachedBefore: unattached uploads older than a time, oldest first', async (t, w) => {
    const repo = w.s.extend(mediaStorage);
    const alice = await w.account();
    const old1 = media(w.id(), alice.id, { createdAt: T0 + 1 });
    const old2 = media(w.id(), alice.id, { createdAt: T0 });
    const fresh = media(w.id(), alice.id, { createdAt: T0 + 100 });
    const used = media(w.id(), alice.id, { createdAt: T0 });
    for (const m of [old1, old2, fresh, used]) await repo.create(m);
    const s = status(w.id(), alice.id, { mediaIds: [used.id] });
    await w.s.statuses.create(s, POST, { writes: [repo.attach(alice.id, s.id, [used.id])] });
    t.strictSame(idsOf(await repo.unattachedBefore(T0 + 50, 10)), [old2.id, old1.id], 'old, unattached, oldest first');
    t.strictSame(idsOf(await repo.unattachedBefore(T0 + 50, 1)), [old2.id], 'limit honoured');
  });

  it('create with an outbox; lookups by something that is not an id miss', async (t, w) => {
    const repo = w.s.extend(mediaStorage);
    const alice = await w.account();
    await repo.create(media(w.id(), alice.id), () => [{ name: 'process', payload: null }]);
    t.equal(await w.s.jobs.size(), 1, 'the job is stored with the upload');
    const bad = 'not-an-id';
    t.strictSame([await repo.get(bad), await repo.update(bad, { description: 'x' }), await repo.deleteUnattached(bad), await repo.getMany([bad])], [null, null, false, []]);
  });

  it('the outbox of a refused write is not asked', async (t, w) => {
    const repo = w.s.extend(mediaStorage);
    const alice = await w.account();
    const bob = await w.account();
    const foreign = media(w.id(), bob.id);
    await repo.create(foreign);
    const called: unknown[] = [];
    const outbox = (r: unknown) => {
      called.push(r);
      return [{ name: 'never', payload: null }];
    };
    const s = status(w.id(), alice.id, { mediaIds: [foreign.id] });
    await rejectsConflict(t, w.s.statuses.create(s, POST, { outbox, writes: [repo.attach(alice.id, s.id, [foreign.id])] }), 'media', 'the write is refused');
    t.strictSame(called, [], 'the outbox is not asked');
    t.equal(await w.s.jobs.size(), 0, 'and no job exists');
  });

  durable('a failed atomic write leaves nothing behind after a reopen', async (t, w) => {
    const repo = w.s.extend(mediaStorage);
    const alice = await w.account();
    const bob = await w.account();
    const parent = await w.post(bob.id);
    const mb = media(w.id(), bob.id);
    const ma = media(w.id(), alice.id);
    await repo.create(mb);
    await repo.create(ma);
    const bad = status(w.id(), alice.id, { mediaIds: [ma.id, mb.id], tags: ['ghost'], mentionIds: [bob.id], inReplyToId: parent.id, inReplyToAccountId: bob.id });
    await rejectsConflict(t, w.s.statuses.create(bad, replyTo(parent.id), { writes: [repo.attach(alice.id, bad.id, bad.mediaIds)], idempotency: { key: 'ghost', notBefore: T0 } }), 'media', 'media conflict');
    await w.reopen();
    const again = w.s.extend(mediaStorage);
    t.equal(await w.s.statuses.get(bad.id), null, 'no status');
    t.strictSame([(await again.get(ma.id))?.statusId, (await again.get(mb.id))?.statusId], [null, null], 'no media attached');
    t.equal((await w.st(parent.id)).repliesCount, 0, 'no reply counted');
    t.strictSame([(await w.acct(alice.id)).statusesCount, (await w.acct(alice.id)).lastStatusAt], [0, null], 'no status counted');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: ['public', 'unlisted', 'private', 'direct'], tag: 'ghost' }, { limit: 5 })), [], 'no tags');
    t.strictSame(idsOf(await w.s.statuses.query({ visibilities: [], orMentioning: bob.id }, { limit: 5 })), [], 'no mentions');
    const r = await w.s.statuses.create(status(w.id(), alice.id), POST, { idempotency: { key: 'ghost', notBefore: T0 } });
    t.equal(r.created, true, 'no idempotency key');
  });
}
