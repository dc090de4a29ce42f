// The push plugin's storage contract, on every engine it supports
// (test/plugins/storage-contracts.test.ts runs it on memory and SQLite).

import type { Id } from 'rookery/plugin-kit';
import { contractRunner, type ContractTest, type OpenStore } from 'rookery/testing';
import { pushStorage, type PushSubscription } from './index.ts';

function subscription(id: Id, accountId: Id, tokenId: Id, o: Partial<PushSubscription> = {}): PushSubscription {
  return {
    id,
    accountId,
    tokenId,
    sealedToken: `sealed-${tokenId}`,
    endpoint: `https://push.example/${id}`,
    p256dh: 'BKey',
    auth: 'auth',
    alerts: { mention: true, follow: false },
    policy: 'all',
    createdAt: 1_700_000_000_000,
    ...o,
  };
}

export function pushStorageContract(t: ContractTest, adapterName: string, open: OpenStore): void {
  const { it, shared, durable } = contractRunner(t, `${adapterName}: push`, open);

  it('one subscription per token: replace swaps it; get, byToken, forAccount; copies', async (t, w) => {
    const repo = w.s.extend(pushStorage);
    const [alice, bob] = [w.id(), w.id()];
    const [t1, t2, t3] = [w.id(), w.id(), w.id()];
    const first = subscription(w.id(), alice, t1);
    await repo.replace(first);
    t.strictSame(await repo.get(first.id), first);
    t.strictSame(await repo.byToken(t1), first);
    const second = subscription(w.id(), alice, t1, { endpoint: 'https://push.example/new', policy: 'followed' });
    await repo.replace(second);
    t.equal(await repo.get(first.id), null, 'the token had one: it was replaced');
    t.strictSame(await repo.byToken(t1), second);
    const other = subscription(w.id(), alice, t2);
    await repo.replace(other);
    await repo.replace(subscription(w.id(), bob, t3));
    t.strictSame((await repo.forAccount(alice)).map((s) => s.id), [second.id, other.id], "the account's, oldest first");
    t.strictSame(await repo.forAccount(w.id()), []);
    const got = await repo.get(second.id);
    if (got) got.alerts['mention'] = false;
    t.equal((await repo.get(second.id))?.alerts['mention'], true, 'subscriptions are copies');
    t.equal(await repo.get('not an id'), null);
    t.equal(await repo.byToken('not an id'), null);
  });

  it('update changes alerts and policy; deleteByToken and delete', async (t, w) => {
    const repo = w.s.extend(pushStorage);
    const [alice, t1, t2] = [w.id(), w.id(), w.id()];
    const s = subscription(w.id(), alice, t1);
    await repo.replace(s);
    const updated = await repo.update(t1, { alerts: { mention: false, reblog: true }, policy: 'none' });
    t.strictSame(updated, { ...s, alerts: { mention: false, reblog: true }, policy: 'none' });
    t.strictSame(await repo.byToken(t1), updated);
    t.equal(await repo.update(t2, { alerts: {}, policy: 'all' }), null, 'no subscription: null');
    t.equal(await repo.deleteByToken(t2), false);
    t.equal(await repo.deleteByToken(t1), true);
    t.equal(await repo.byToken(t1), null);
    const again = subscription(w.id(), alice, t2);
    await repo.replace(again);
    await repo.delete(again.id);
    t.equal(await repo.get(again.id), null);
    await repo.delete(again.id);
    t.pass('deleting twice is fine');
  });

  it('VAPID keys: the first pair stays', async (t, w) => {
    const repo = w.s.extend(pushStorage);
    const first = { publicKey: 'pub-1', privateKey: 'priv-1' };
    t.strictSame(await repo.vapidKeys(first), first);
    t.strictSame(await repo.vapidKeys({ publicKey: 'pub-2', privateKey: 'priv-2' }), first, 'a later candidate is ignored');
  });

  shared('VAPID keys: two connections agree on one pair', async (t, w, other) => {
    const [a, b] = await Promise.all([
      w.s.extend(pushStorage).vapidKeys({ publicKey: 'pub-a', privateKey: 'priv-a' }),
      other.extend(pushStorage).vapidKeys({ publicKey: 'pub-b', privateKey: 'priv-b' }),
    ]);
    t.strictSame(a, b);
  });

  durable('subscriptions and keys survive a reopen', async (t, w) => {
    const s = subscription(w.id(), w.id(), w.id());
    await w.s.extend(pushStorage).replace(s);
    const keys = await w.s.extend(pushStorage).vapidKeys({ publicKey: 'pub', privateKey: 'priv' });
    await w.reopen();
    t.strictSame(await w.s.extend(pushStorage).get(s.id), s);
    t.strictSame(await w.s.extend(pushStorage).vapidKeys({ publicKey: 'x', privateKey: 'y' }), keys);
  });
}
