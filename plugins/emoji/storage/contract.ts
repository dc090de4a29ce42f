// The custom emoji plugin's storage contract, on every engine it supports
// (test/plugins/storage-contracts.test.ts, test/contract/postgres.test.ts, the MongoDB runs).

import { contractRunner, type ContractTest, type OpenStore, T0 } from 'rookery/testing';
import type { Id } from 'rookery/plugin-kit';
import { emojiStorage, type LocalEmoji } from './index.ts';

const emoji = (id: Id, shortcode: string, extra: Partial<LocalEmoji> = {}): LocalEmoji => ({
  id,
  shortcode,
  url: `https://rookery.test/system/media/emoji-${id}.png`,
  staticUrl: `https://rookery.test/system/media/emoji-${id}-static.png`,
  category: null,
  visibleInPicker: true,
  createdAt: T0,
  ...extra,
});

export function emojiStorageContract(t: ContractTest, adapterName: string, open: OpenStore): void {
  const { it } = contractRunner(t, `${adapterName}: emoji`, open);

  it('save, list in shortcode order, byShortcodes, replace, remove', async (t, w) => {
    const repo = w.s.extend(emojiStorage);
    t.strictSame(await repo.list(), [], 'none at first');
    const rook = emoji(w.id(), 'rook', { category: 'birds' });
    const crow = emoji(w.id(), 'Crow', { visibleInPicker: false, createdAt: T0 + 5 });
    const jay = emoji(w.id(), 'jay_2');
    t.equal(await repo.save(rook), null, 'a new shortcode replaces nothing');
    await repo.save(crow);
    await repo.save(jay);
    t.strictSame(await repo.list(), [crow, jay, rook], 'binary order: capitals first');
    t.strictSame(await repo.byShortcodes(['rook', 'nope', 'crow', 'Crow']), [crow, rook], 'only those that exist; case counts');
    t.strictSame(await repo.byShortcodes([]), []);
    const newRook = emoji(w.id(), 'rook', { category: null, createdAt: T0 + 9 });
    t.strictSame(await repo.save(newRook), rook, 'the same shortcode: the old one comes back');
    t.strictSame(await repo.byShortcodes(['rook']), [newRook], 'and the new one is kept');
    t.strictSame(await repo.remove('rook'), newRook);
    t.equal(await repo.remove('rook'), null, 'removing twice is fine');
    t.strictSame(await repo.list(), [crow, jay]);
  });
}
