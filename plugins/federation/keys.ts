// Each local actor's two key pairs: RSA (HTTP signatures, what Mastodon checks) and Ed25519
// (object integrity proofs). Made once, when the account is created (a job: see index.ts) or
// else on first need, and kept in the KV store as JWKs. Two processes racing to make them agree
// through compare-and-swap: the loser adopts the winner's.

import type { Id } from 'rookery/plugin-kit';
import { exportJwk, generateCryptoKeyPair, importJwk, type KvStore } from '@fedify/fedify';
import type { webcrypto } from 'node:crypto';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
type JsonWebKey = webcrypto.JsonWebKey;

interface StoredPair {
  privateKey: JsonWebKey;
  publicKey: JsonWebKey;
}

interface StoredKeys {
  rsa: StoredPair;
  ed25519: StoredPair;
}

/** RSA keys of 2048 bits, as Mastodon makes them: Fedify's default of 4096 took about a second
 * to make here and made every signature of every delivery several times dearer. */
function generateRsaPair(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

async function exportPair(pair: CryptoKeyPair): Promise<StoredPair> {
  return { privateKey: await exportJwk(pair.privateKey), publicKey: await exportJwk(pair.publicKey) };
}

async function importPair(stored: StoredPair): Promise<CryptoKeyPair> {
  return { privateKey: await importJwk(stored.privateKey, 'private'), publicKey: await importJwk(stored.publicKey, 'public') };
}

export function keyStore(kv: KvStore) {
  const cache = new Map<Id, Promise<CryptoKeyPair[]>>();

  async function load(accountId: Id): Promise<CryptoKeyPair[]> {
    const key = ['rookery', 'keys', accountId] as const;
    let stored = await kv.get<StoredKeys>(key);
    if (stored === undefined) {
      const made: StoredKeys = {
        rsa: await exportPair(await generateRsaPair()),
        ed25519: await exportPair(await generateCryptoKeyPair('Ed25519')),
      };
      if (kv.cas) {
        if (!(await kv.cas(key, undefined, made))) stored = await kv.get<StoredKeys>(key);
      } else {
        await kv.set(key, made);
      }
      stored ??= made;
    }
    return [await importPair(stored.rsa), await importPair(stored.ed25519)];
  }

  return {
    /** [RSA, Ed25519]. */
    pairsOf(accountId: Id): Promise<CryptoKeyPair[]> {
      let pairs = cache.get(accountId);
      if (pairs === undefined) {
        pairs = load(accountId);
        cache.set(accountId, pairs);
        pairs.catch(() => cache.delete(accountId));
      }
      return pairs;
    },
  };
}

export type KeyStore = ReturnType<typeof keyStore>;
