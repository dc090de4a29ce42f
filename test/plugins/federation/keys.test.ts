// Key pairs: made once per account, when it is created (a job after the sign-up) or else on
// first need, kept in the KV store; two processes that both find none agree on one pair through
// compare-and-swap.

import t from 'tap';
import { webcrypto } from 'node:crypto';
import { MemoryKvStore, type KvStore } from '@fedify/fedify';
import { keyStore } from '../../../plugins/federation/keys.ts';
import { federationPlugin, federationStores } from '../../../plugins/federation/index.ts';
import { harness } from '../../helpers/harness.ts';

async function fingerprint(pair: webcrypto.CryptoKeyPair): Promise<string> {
  return Buffer.from(await webcrypto.subtle.exportKey('spki', pair.publicKey)).toString('base64');
}

t.test('one pair of each kind per account, even when made concurrently', async (t) => {
  const kv = new MemoryKvStore();
  const [first, second] = [keyStore(kv), keyStore(kv)];
  const [a, b] = await Promise.all([first.pairsOf('1'), second.pairsOf('1')]);
  t.equal(a.length, 2);
  t.equal((a[0]?.privateKey.algorithm as { name: string }).name, 'RSASSA-PKCS1-v1_5');
  t.equal((a[0]?.privateKey.algorithm as unknown as { modulusLength: number }).modulusLength, 2048, "RSA of Mastodon's size");
  t.equal((a[1]?.privateKey.algorithm as { name: string }).name, 'Ed25519');
  t.equal(await fingerprint(a[0] as webcrypto.CryptoKeyPair), await fingerprint(b[0] as webcrypto.CryptoKeyPair), 'the same RSA key in both');
  t.equal(await fingerprint(a[1] as webcrypto.CryptoKeyPair), await fingerprint(b[1] as webcrypto.CryptoKeyPair), 'the same Ed25519 key in both');
  const later = await keyStore(kv).pairsOf('1');
  t.equal(await fingerprint(later[0] as webcrypto.CryptoKeyPair), await fingerprint(a[0] as webcrypto.CryptoKeyPair), 'kept');
  const other = await first.pairsOf('2');
  t.not(await fingerprint(other[0] as webcrypto.CryptoKeyPair), await fingerprint(a[0] as webcrypto.CryptoKeyPair), 'another account, other keys');
});

t.test("an account's keys are made when it is created, not in its first federation request", async (t) => {
  const seen: { kv?: KvStore } = {};
  const h = await harness({
    plugins: [
      federationPlugin({
        stores: (host) => {
          const stores = federationStores(host);
          seen.kv = stores.kv;
          return stores;
        },
      }),
    ],
  });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  await h.rookery.drain();
  const stored = (await seen.kv?.get(['rookery', 'keys', alice.account.id])) as { rsa?: unknown; ed25519?: unknown } | undefined;
  t.ok(stored?.rsa && stored.ed25519, 'both pairs kept once the sign-up\'s jobs ran');
  const actor = await h.request('GET', '/users/alice', { headers: { accept: 'application/activity+json' } });
  const served = (await seen.kv?.get(['rookery', 'keys', alice.account.id])) as unknown;
  t.same(served, stored, 'the actor is served with those keys, not new ones');
  t.equal(actor.json.assertionMethod.length, 2);
});
