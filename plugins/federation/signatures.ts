// Which HTTP signature Rookery puts on what it sends. Fedify 2.3.6 signs each request with the
// spec it remembers for the receiving origin, else with the "first knock", and tries the other
// spec only when the answer is an error. Mastodon, and servers like it, answer a delivery 202
// at once and check its signature later, so an RFC 9421 first knock (Fedify's default) to them
// was answered 202 and then dropped, and remembered as a success. So:
// - the first knock is draft-cavage-http-signatures-12 (what the fediverse verifies), unless
//   the operator chooses RFC 9421;
// - the memory per origin lives under a prefix of Rookery's own, so that what Fedify remembered
//   under its default is not used again;
// - Fedify's own memory is kept for draft-cavage only: it also records the second spec tried
//   after a 404 or a 5xx, which proves nothing. RFC 9421 is remembered for an origin whose
//   server signs its own deliveries with RFC 9421 (verified here): it verifies what it signs.

import type { ApiRequest } from 'rookery/plugin-kit';
import type { KvKey, KvStore } from '@fedify/fedify';

export const SIGNATURE_SPECS = ['draft-cavage-http-signatures-12', 'rfc9421'] as const;
export type SignatureSpec = (typeof SIGNATURE_SPECS)[number];
export const DEFAULT_FIRST_KNOCK: SignatureSpec = 'draft-cavage-http-signatures-12';

/** Fedify's kvPrefixes.httpMessageSignaturesSpec: the spec per origin, under this prefix. */
export const SPEC_PREFIX: KvKey = ['rookery', 'signature-spec'];

function isSpecKey(key: KvKey): boolean {
  return key.length === SPEC_PREFIX.length + 1 && SPEC_PREFIX.every((part, i) => key[i] === part);
}

/** The KV store Fedify is given: the same store, except that Fedify's own records of RFC 9421
 * for an origin are not kept (see above; learnFromInbox records it). */
export function specMemory(kv: KvStore): KvStore {
  const wrapped: KvStore = {
    get: (key) => kv.get(key),
    async set(key, value, options) {
      if (isSpecKey(key) && value === 'rfc9421') return;
      await kv.set(key, value, options);
    },
    delete: (key) => kv.delete(key),
    list: (prefix) => kv.list(prefix),
  };
  if (kv.cas) {
    const cas = kv.cas.bind(kv);
    wrapped.cas = (key, expected, value, options) => cas(key, expected, value, options);
  }
  return wrapped;
}

/** The spec remembered for an origin, or null (the first knock applies). */
export async function rememberedSpec(kv: KvStore, origin: string): Promise<SignatureSpec | null> {
  const spec = await kv.get<string>([...SPEC_PREFIX, origin]);
  return spec === 'rfc9421' || spec === 'draft-cavage-http-signatures-12' ? spec : null;
}

/** After an inbox request was accepted (2xx): when it was signed with RFC 9421 alone and
 * carried no object proof nor Linked Data signature (either of which Fedify accepts instead of
 * an HTTP signature), its RFC 9421 signature was verified, so the origin of its key verifies
 * RFC 9421: later deliveries there are signed so. `kv` is the store itself, not specMemory. */
export async function learnFromInbox(kv: KvStore, request: ApiRequest): Promise<void> {
  const input = request.headers['signature-input'];
  const signature = request.headers['signature'];
  if (input === undefined || signature === undefined || /keyId="/i.test(signature)) return;
  const keyId = /keyid="([^"]{1,2048})"/i.exec(input)?.[1];
  if (keyId === undefined) return;
  let origin: string;
  try {
    origin = new URL(keyId).origin;
    const body = JSON.parse(Buffer.from(request.rawBody ?? new Uint8Array()).toString('utf8')) as Record<string, unknown> | null;
    if (body === null || typeof body !== 'object' || 'proof' in body || 'signature' in body) return;
  } catch {
    return;
  }
  if ((await rememberedSpec(kv, origin)) !== 'rfc9421') await kv.set([...SPEC_PREFIX, origin], 'rfc9421');
}
