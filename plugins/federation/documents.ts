// Every document Fedify fetches (a sender's key while an inbox request waits, an actor, a note,
// a JSON-LD context) and every object the plugin looks up goes through rookery/node's fetcher,
// the instance's one fetch policy: only public addresses (the literal, every DNS answer, the
// address connected to, each redirect) unless the test setting allows private ones, a time
// limit for the whole fetch, a size limit (a document larger than it is refused as soon as the
// limit is passed, never read whole), and the instance's User-Agent.
//
// Fedify takes these loaders through its three factory options, which it refuses alongside its
// own `allowPrivateAddress` and `userAgent` options: the plugin sets neither, and both are the
// fetcher's business instead. What Fedify's own loaders did besides fetching is kept: the
// contexts it ships are never fetched, documents are cached five minutes in the KV store under
// Fedify's own keys, an HTML page's alternate ActivityStreams link is followed (once), and a
// signed fetch tries the other signature spec when the first is refused, remembering per
// server which one worked, where the deliveries' memory is (signatures.ts).

import {
  getRemoteDocument,
  kvCache,
  preloadedContexts,
  signRequest,
  type AuthenticatedDocumentLoaderFactory,
  type Context,
  type DocumentLoader,
  type DocumentLoaderFactory,
  type DocumentLoaderOptions,
  type HttpMessageSignaturesSpec,
  type KvKey,
  type KvStore,
  type RemoteDocument,
} from '@fedify/fedify';
import { Object as APObject } from '@fedify/fedify/vocab';
import { FetchRefused, type Fetcher, type FetchedResponse, type Hop } from 'rookery/node';

/** Mastodon waits about this long for a remote server's answer. */
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
/** The largest ActivityPub document read (an actor, an activity, a note, a key, a context). */
export const DEFAULT_MAX_DOCUMENT_BYTES = 1024 * 1024;

const ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams", application/ld+json';
const CAVAGE: HttpMessageSignaturesSpec = 'draft-cavage-http-signatures-12';
/** How many times an HTML page may send us on to its ActivityStreams alternate. */
const MAX_ALTERNATES = 1;

export interface DocumentLoaders {
  documentLoaderFactory: DocumentLoaderFactory;
  contextLoaderFactory: DocumentLoaderFactory;
  authenticatedDocumentLoaderFactory: AuthenticatedDocumentLoaderFactory;
}

type Identity = Parameters<AuthenticatedDocumentLoaderFactory>[0];

/** What Fedify reads a document from: the fetched answer as a Fetch API Response. */
function asResponse(fetched: FetchedResponse): Response {
  if (fetched.status < 200 || fetched.status > 599) throw new FetchRefused(`refused: ${fetched.url} answered ${fetched.status}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(fetched.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const empty = fetched.status === 204 || fetched.status === 205 || fetched.status === 304;
  return new Response(empty ? null : new Uint8Array(fetched.body), { status: fetched.status, headers });
}

function signer(identity: Identity, spec: HttpMessageSignaturesSpec): (hop: Hop) => Promise<Record<string, string>> {
  return async (hop) => {
    const signed = await signRequest(new Request(hop.url, { method: hop.method, headers: hop.headers }), identity.privateKey, identity.keyId, { spec });
    return Object.fromEntries(signed.headers);
  };
}

/** Where the signature spec that worked for each server is remembered, and the one tried first
 * (the deliveries' memory and first knock: signatures.ts). A signed GET answered 2xx proves the
 * server verified that spec there and then, so it is worth remembering for deliveries too. */
export interface SpecMemory {
  prefix: KvKey;
  first: HttpMessageSignaturesSpec;
}

export function documentLoaders(fetcher: Fetcher, kv: KvStore, specs: SpecMemory): DocumentLoaders {
  const load = async (url: string, options: DocumentLoaderOptions | undefined, sign: ((hop: Hop) => Promise<Record<string, string>>) | undefined): Promise<FetchedResponse> =>
    fetcher.fetch(url, { headers: { accept: ACCEPT }, ...(options?.signal ? { signal: options.signal } : {}), ...(sign ? { sign } : {}) });

  const read = (fetched: FetchedResponse, alternates: number, again: (url: string, alternates: number) => Promise<RemoteDocument>): Promise<RemoteDocument> =>
    getRemoteDocument(fetched.url, asResponse(fetched), (alternate: string) =>
      alternates < MAX_ALTERNATES ? again(alternate, alternates + 1) : Promise.reject(new FetchRefused(`refused: ${fetched.url} names one alternate too many`)),
    );

  const preloaded = (url: string): RemoteDocument | null => (Object.hasOwn(preloadedContexts, url) ? { contextUrl: null, document: preloadedContexts[url], documentUrl: url } : null);

  const unsigned = (options?: DocumentLoaderOptions) => {
    const get = async (url: string, alternates: number): Promise<RemoteDocument> => preloaded(url) ?? read(await load(url, options, undefined), alternates, get);
    return get;
  };
  const cached = (): DocumentLoader => kvCache({ kv, loader: (url, options) => unsigned(options)(url, 0) });

  const signed = (identity: Identity, options?: DocumentLoaderOptions) => {
    const get = async (url: string, alternates: number): Promise<RemoteDocument> => {
      const known = preloaded(url);
      if (known !== null) return known;
      const key: KvKey = [...specs.prefix, new URL(url).origin];
      const remembered = await kv.get<HttpMessageSignaturesSpec>(key);
      let spec: HttpMessageSignaturesSpec = remembered ?? specs.first;
      let fetched = await load(url, options, signer(identity, spec));
      if (fetched.status === 400 || fetched.status === 401) {
        spec = spec === CAVAGE ? 'rfc9421' : CAVAGE;
        fetched = await load(url, options, signer(identity, spec));
      }
      if (fetched.status >= 200 && fetched.status < 300 && spec !== remembered) await kv.set(key, spec);
      return read(fetched, alternates, get);
    };
    return get;
  };

  return {
    documentLoaderFactory: cached,
    contextLoaderFactory: cached,
    // Not cached, as Fedify's: what a signed fetch gets may be for the signer's eyes only.
    authenticatedDocumentLoaderFactory: (identity) => (url, options) => signed(identity, options)(url, 0),
  };
}

/** The object at `url` through the context's loaders (or `loader`: a signed one, which is not
 * cached, for what must be read fresh), or null: what Fedify's lookupObject does for a URL,
 * without its fallback to a WebFinger lookup of the URL (Fedify's own request). An object
 * whose id is on another origin than the document it came from is not believed. */
export async function lookupUrl<T>(ctx: Context<T>, url: string, loader: DocumentLoader = ctx.documentLoader): Promise<APObject | null> {
  try {
    const remote = await loader(url);
    const object = await APObject.fromJsonLd(remote.document, { documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader, baseUrl: new URL(remote.documentUrl) });
    return object.id !== null && object.id.origin !== new URL(remote.documentUrl).origin ? null : object;
  } catch {
    return null;
  }
}
