// The storage contract of what answers kept ready (core/mastodon/http/kept.ts) rely on, run by
// storageContract on every adapter: Storage.stamp (where there is one), which must move with
// every committed write, this connection's or another's, and only then; and
// relationships.nextMuteEnd, when a reader's view changes with nothing written.

import { mark, mute } from './fixtures.ts';
import type { Storage, StoreStamp } from '../../core/domain/ports/storage.ts';
import type { It, Shared } from './section.ts';

/** The store's stamp, or null when it has none (it keeps no answers: nothing to check). */
async function stampOf(storage: Storage): Promise<StoreStamp | null> {
  return storage.stamp === undefined ? null : await storage.stamp();
}

/** Whether some attempt at `action` leaves the stamp as it was. A server's stamp may be moved by
 * other work on that server (PostgreSQL's snapshot counts every database's commits: the
 * contract's other files run beside this one), so a quiet moment is waited for, a few times. */
async function unmovedBy(storage: Storage, action: () => Promise<void>): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const before = await stampOf(storage);
    await action();
    if ((await stampOf(storage)) === before) return true;
  }
  return false;
}

export function stampContract(it: It, shared: Shared): void {
  it('relationships.nextMuteEnd: the earliest end of the account\'s mutes after a time', async (t, w) => {
    const [alice, bob, carol, dave] = [await w.account(), await w.account(), await w.account(), await w.account()];
    t.equal(await w.s.relationships.nextMuteEnd(alice.id, 0), null, 'no mutes: null');
    await w.s.relationships.mute(mute(w.id(), alice.id, bob.id, { expiresAt: 5_000 }));
    await w.s.relationships.mute(mute(w.id(), alice.id, carol.id, { expiresAt: 3_000 }));
    await w.s.relationships.mute(mute(w.id(), alice.id, dave.id));
    await w.s.relationships.mute(mute(w.id(), bob.id, carol.id, { expiresAt: 1_000 }));
    t.equal(await w.s.relationships.nextMuteEnd(alice.id, 0), 3_000, 'the earliest');
    t.equal(await w.s.relationships.nextMuteEnd(alice.id, 3_000), 5_000, 'after that one ended');
    t.equal(await w.s.relationships.nextMuteEnd(alice.id, 5_000), null, 'none ends later (the open-ended mute never does)');
    t.equal(await w.s.relationships.nextMuteEnd(bob.id, 0), 1_000, 'each account its own');
  });

  it('stamp: stays while nothing is written, and moves with each write', async (t, w) => {
    if (w.s.stamp === undefined) {
      t.pass('no stamp: this store keeps no answers');
      return;
    }
    const alice = await w.account();
    const first = await w.post(alice.id);
    t.equal((await stampOf(w.s)) !== null, true, 'a stamp');
    t.equal(await unmovedBy(w.s, async () => void (await Promise.all([w.s.statuses.get(first.id), w.s.accounts.get(alice.id)]))), true, 'reads leave it');
    const beforePost = await stampOf(w.s);
    await w.post(alice.id);
    t.equal((await stampOf(w.s)) !== beforePost, true, 'a new status moves it');
    const beforeFavourite = await stampOf(w.s);
    await w.s.interactions.favourite(mark(w.id(), alice.id, first.id));
    t.equal((await stampOf(w.s)) !== beforeFavourite, true, 'a favourite moves it');
  });

  it('stamp: callers asking at once each get one that sees what was committed before they asked', async (t, w) => {
    if (w.s.stamp === undefined) {
      t.pass('no stamp: this store keeps no answers');
      return;
    }
    const alice = await w.account();
    // Twenty asked at once: the first query goes out with the first, the others wait for one
    // sent after they asked. (On a server, other databases' commits may tell those two apart.)
    const together = await Promise.all(Array.from({ length: 20 }, () => stampOf(w.s)));
    t.equal(new Set(together).size <= 2, true, 'twenty at once share at most two stamps');
    await w.post(alice.id);
    const after = await Promise.all(Array.from({ length: 5 }, () => stampOf(w.s)));
    t.equal(after.every((stamp) => !together.includes(stamp)), true, 'each asked after the write sees it');
  });

  shared('stamp: another connection\'s write moves it', async (t, w, other) => {
    if (w.s.stamp === undefined) {
      t.pass('no stamp: this store keeps no answers');
      return;
    }
    const alice = await w.account();
    const status = await w.post(alice.id);
    const before = await stampOf(w.s);
    await other.interactions.favourite(mark(w.id(), alice.id, status.id));
    t.equal(await stampOf(w.s) !== before, true, 'the other connection\'s favourite moved it');
    t.equal(await unmovedBy(w.s, async () => void (await other.statuses.get(status.id))), true, 'the other connection\'s read did not');
  });

  shared('stampSeen: what the reads found, moved once one finds another connection\'s write', async (t, w, other) => {
    if (w.s.stamp === undefined || w.s.stampSeen === undefined) {
      t.pass('no stampSeen: a favourite that wrote nothing asks stamp() again');
      return;
    }
    const alice = await w.account();
    const status = await w.post(alice.id);
    const before = await stampOf(w.s);
    t.equal(w.s.stampSeen(), before, 'right after stamp(): the same');
    await other.interactions.favourite(mark(w.id(), alice.id, status.id));
    t.equal(w.s.stampSeen(), before, 'a commit nothing here has read: not seen');
    w.s.freshen?.();
    t.equal((await w.s.interactions.viewerState(alice.id, [status.id], [])).favourited.has(status.id), true, 'read afresh: the other connection\'s favourite');
    t.equal(w.s.stampSeen() !== before, true, 'and that read moved it');
    const beforeOwn = await stampOf(w.s);
    await w.post(alice.id);
    t.equal(w.s.stampSeen() !== beforeOwn, true, 'our own write moves it');
  });
}
