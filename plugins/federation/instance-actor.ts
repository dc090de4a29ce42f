// The instance actor: the server itself, an Application at /actor named after its domain, as
// Mastodon's. It signs what the server fetches (actors, keys, objects: servers in Mastodon's
// secure mode answer signed GETs only) and what it sends on its own behalf (a relay
// subscription). Its document is given to anyone, signed or not, so that another server can
// check its signatures without signing a fetch of its own first. Its key pair is made once and
// kept in the KV store with the accounts' (keys.ts).

import type { Endpoint, PluginHost } from 'rookery/plugin-kit';
import { getAuthenticatedDocumentLoader, kvCache, type Federation, type KvKey, type KvStore, type SenderKeyPair } from '@fedify/fedify';
import { Application, CryptographicKey, Endpoints } from '@fedify/fedify/vocab';
import type { KeyStore } from './keys.ts';

export const INSTANCE_ACTOR_PATH = '/actor';

/** Where the instance actor's keys are kept (keys.ts): not an account id. */
const INSTANCE_KEYS = 'instance-actor';

export interface InstanceActor {
  id: URL;
  keyId: URL;
  /** Its RSA key, to sign with. */
  keyPair(): Promise<SenderKeyPair>;
  /** GET /actor. */
  endpoint(): Endpoint;
}

export function instanceActor(host: PluginHost, keys: KeyStore, federation: Federation<PluginHost>): InstanceActor {
  const base = host.config.baseUrl;
  const id = new URL(`${base}${INSTANCE_ACTOR_PATH}`);
  const keyId = new URL(`${id.href}#main-key`);
  const rsa = async () => {
    const [pair] = await keys.pairsOf(INSTANCE_KEYS);
    if (pair === undefined) throw new Error('federation: the instance actor has no key');
    return pair;
  };
  return {
    id,
    keyId,
    keyPair: async () => ({ keyId, privateKey: (await rsa()).privateKey }),
    endpoint: () => ({
      method: 'GET',
      path: INSTANCE_ACTOR_PATH,
      auth: 'public',
      scopes: [],
      openInLimitedMode: true,
      handle: async () => {
        const actor = new Application({
          id,
          preferredUsername: host.config.domain,
          url: new URL(`${base}/`),
          inbox: new URL(`${base}/inbox`),
          endpoints: new Endpoints({ sharedInbox: new URL(`${base}/inbox`) }),
          manuallyApprovesFollowers: true,
          publicKey: new CryptographicKey({ id: keyId, owner: id, publicKey: (await rsa()).publicKey }),
        });
        const ctx = federation.createContext(new URL(base), host);
        const body = JSON.stringify(await actor.toJsonLd({ contextLoader: ctx.contextLoader }));
        return { status: 200, type: 'text', body, headers: { 'content-type': 'application/activity+json; charset=utf-8', vary: 'Accept' } };
      },
    }),
  };
}

type DocumentLoader = (url: string, options?: { signal?: AbortSignal }) => Promise<unknown>;
type LoaderOptions = Parameters<typeof getAuthenticatedDocumentLoader>[1];
interface Factories {
  documentLoaderFactory: (options?: LoaderOptions) => DocumentLoader;
  authenticatedDocumentLoaderFactory: (identity: SenderKeyPair, options?: LoaderOptions) => DocumentLoader;
  kvPrefixes: { remoteDocument: KvKey };
}

/** Every document Fedify fetches without another signer (an actor, a key, a note: lookups,
 * deliveries' recipients, inbox work) is fetched with a GET signed by the instance actor. The
 * authenticated factory is Fedify's own (its private-address rule, user agent and signature
 * spec per origin, and whatever else the plugin sets on it, such as time limits), read when each
 * fetch is made; what comes back is cached as Fedify caches unsigned fetches. Fetches for a
 * local account (its personal inbox's work) stay signed by that account, as Fedify does. Like
 * limitFetchTime, this sets a public field of Fedify's object outside its typed API: a Fedify
 * upgrade that renames it fails here, at startup. */
export function signFetches(federation: Federation<PluginHost>, kv: KvStore, actor: InstanceActor): void {
  const factories = federation as unknown as Factories;
  if (typeof factories.documentLoaderFactory !== 'function' || typeof factories.authenticatedDocumentLoaderFactory !== 'function' || factories.kvPrefixes?.remoteDocument === undefined) {
    throw new Error('federation: this Fedify has no document loader factories; fetches cannot be signed');
  }
  factories.documentLoaderFactory = (options) => {
    const signed: DocumentLoader = async (url, loadOptions) => factories.authenticatedDocumentLoaderFactory(await actor.keyPair(), options)(url, loadOptions);
    return kvCache({ loader: signed as Parameters<typeof kvCache>[0]['loader'], kv, prefix: factories.kvPrefixes.remoteDocument }) as DocumentLoader;
  };
}
