// Key pairs: made once per account, on first need, kept in the KV store; two processes that
// both find none agree on one pair through compare-and-swap.

import t from 'tap';
import { webcrypto } from 'node:crypto';
import { MemoryKvStore } from '@fedify/fedify';
import { keyStore } from '../../../plugins/federation/keys.ts';

async function fingerprint(pair: webcrypto.CryptoKeyPair): Promise<string> {
  return Buffer.from(await webcrypto.subtle.exportKey('spki', pair.publicKey)).toString('base64');
}

t.test('one pair of each kind per account, even when made concurrently', async (t) => {
  const kv = new MemoryKvStore();
  const [first, second] = [keyStore(kv), keyStore(kv)];
  const [a, b] = await Promise.all([first.pairsOf('1'), second.pairsOf('1')]);
  t.equal(a.length, 2);
  t.equal((a[0]?.privateKey.algorithm as { name: string }).name, 'RSASSA-PKCS1-v1_5');
  t.equal((a[1]?.privateKey.algorithm as { name: string }).name, 'Ed25519');
  t.equal(await fingerprint(a[0] as webcrypto.CryptoKeyPair), await fingerprint(b[0] as webcrypto.CryptoKeyPair), 'the same RSA key in both');
  t.equal(await fingerprint(a[1] as webcrypto.CryptoKeyPair), await fingerprint(b[1] as webcrypto.CryptoKeyPair), 'the same Ed25519 key in both');
  const later = await keyStore(kv).pairsOf('1');
  t.equal(await fingerprint(later[0] as webcrypto.CryptoKeyPair), await fingerprint(a[0] as webcrypto.CryptoKeyPair), 'kept');
  const other = await first.pairsOf('2');
  t.not(await fingerprint(other[0] as webcrypto.CryptoKeyPair), await fingerprint(a[0] as webcrypto.CryptoKeyPair), 'another account, other keys');
});
