// The preview cards plugin's storage contract, on every engine it supports
// (test/plugins/storage-contracts.test.ts runs it on memory and SQLite).

import { card, contractRunner, type ContractTest, type OpenStore, sortedIds, T0 } from 'rookery/testing';
import { cardStorage } from './index.ts';

export function cardStorageContract(t: ContractTest, adapterName: string, open: OpenStore): void {
  const { it } = contractRunner(t, `${adapterName}: cards`, open);

  it('upsert keeps the id, attach, forStatuses', async (t, w) => {
    const repo = w.s.extend(cardStorage);
    const alice = await w.account();
    const [s1, s2, s3] = [await w.post(alice.id), await w.post(alice.id), await w.post(alice.id)];
    const a = card(w.id(), 'https://a.example/');
    t.strictSame(await repo.upsert(a), a, 'upsert: inserted');
    const a2 = card(w.id(), 'https://a.example/', { title: 'New title', image: 'https://a.example/i.png', publishedAt: T0 + 5, fetchedAt: T0 + 99 });
    t.strictSame(await repo.upsert(a2), { ...a2, id: a.id }, 'upsert of the same url: replaced, id kept');
    t.strictSame(await repo.findByUrl('https://a.example/'), { ...a2, id: a.id }, 'findByUrl');
    t.equal(await repo.findByUrl('https://b.example/'), null, 'findByUrl: missing');
    const b = card(w.id(), 'https://b.example/', { type: 'video', html: '<iframe></iframe>', width: 560.5, height: 315, blurhash: 'L00000fQfQfQfQfQfQfQfQfQfQfQ', language: null });
    await repo.upsert(b);
    await repo.attach(s1.id, a.id);
    await repo.attach(s2.id, b.id);
    const cards = await repo.forStatuses([s1.id, s2.id, s3.id]);
    t.strictSame([...cards.keys()].sort(), sortedIds([s1.id, s2.id]), 'forStatuses: those with a card');
    t.strictSame([cards.get(s1.id), cards.get(s2.id)], [{ ...a2, id: a.id }, b], 'with their cards');
    await repo.attach(s1.id, b.id);
    t.strictSame((await repo.forStatuses([s1.id])).get(s1.id), b, 'attach replaces the card of a status');
  });

  it('attach records its outbox jobs with the link', async (t, w) => {
    const repo = w.s.extend(cardStorage);
    const alice = await w.account();
    const s = await w.post(alice.id);
    const c = card(w.id(), 'https://c.example/');
    await repo.upsert(c);
    await repo.attach(s.id, c.id, () => [{ name: 'status.updated', payload: { id: s.id } }]);
    const jobs = await w.s.jobs.claim(T0, 5, 1000);
    t.strictSame(jobs.map((j) => [j.name, j.payload]), [['status.updated', { id: s.id }]]);
  });
}
