// Another ActivityPub server, written here apart from Fedify, on loopback: it judges Rookery as
// an independent server would. It knows draft-cavage HTTP signatures (RSA-SHA256, Mastodon's)
// and nothing else: its inbox answers 202 at once and checks the signature afterwards, as
// Mastodon does, so a request signed with RFC 9421 alone is taken in and then found unsigned.
// It signs its own requests the same way. With `secure`, it gives its documents only to signed
// GETs (Mastodon's AUTHORIZED_FETCH). Every delivery and every GET is kept with its verdict.

import { createHash, createSign, generateKeyPairSync, verify as verifySignature, type KeyObject, type webcrypto } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

export interface Verdict {
  ok: boolean;
  /** Why not, or 'verified'. */
  reason: string;
  keyId: string | null;
}

export interface PeerDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  activity: any;
  verdict: Promise<Verdict>;
}

export interface PeerFetch {
  path: string;
  headers: IncomingHttpHeaders;
  verdict: Verdict;
}

export interface PeerActorOptions {
  name: string;
  /** Where its document is (default /users/<name>). */
  path?: string;
  type?: string;
}

export interface PeerOptions {
  actors: PeerActorOptions[];
  /** Documents only to signed GETs (the actors too, as Mastodon in secure mode). */
  secure?: boolean;
  /** Called with each delivery once it is judged. */
  onDelivery?(delivery: PeerDelivery, verdict: Verdict): void | Promise<void>;
}

export interface Peer {
  origin: string;
  host: string;
  /** An actor's id. */
  actor(name: string): string;
  deliveries: PeerDelivery[];
  fetches: PeerFetch[];
  /** The first delivery `match` accepts (already here or to come), with its verdict. */
  delivery(match: (activity: any, path: string) => boolean): Promise<{ delivery: PeerDelivery; verdict: Verdict }>;
  /** Serves `json` at `path` (activity+json). */
  serve(path: string, json: unknown): void;
  /** What an actor's document states as its alsoKnownAs from now on. */
  setAliases(name: string, aliases: string[]): void;
  /** A POST of `activity` to `url`, signed by the actor `from`. */
  post(from: string, url: string, activity: unknown): Promise<{ status: number; body: string }>;
  /** An actor's private key, for a test to sign with another scheme (Fedify's signRequest). */
  privateKeyOf(name: string): webcrypto.CryptoKey;
  /** A GET of `url` for ActivityStreams, signed by the actor `from`, or unsigned (null). */
  get(url: string, from: string | null): Promise<{ status: number; body: string; json: any }>;
  close(): Promise<void>;
}

interface KeyedActor {
  name: string;
  id: string;
  path: string;
  type: string;
  privateKey: KeyObject;
  publicKeyPem: string;
  /** Its alsoKnownAs (setAliases). */
  aliases: string[];
}

const MAX_BODY = 1024 * 1024;
const WINDOW_MS = 3_600_000;

function send(method: string, url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((done, fail) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(body);
  });
}

function digestOf(body: string): string {
  return `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
}

/** The headers of a request signed, draft-cavage style, by `actor`. */
function signedHeaders(actor: KeyedActor, method: string, url: URL, body?: string): Record<string, string> {
  const headers: Record<string, string> = { host: url.host, date: new Date().toUTCString() };
  if (body !== undefined) headers['digest'] = digestOf(body);
  const names = ['(request-target)', 'host', 'date', ...(body !== undefined ? ['digest'] : [])];
  const signingString = names.map((name) => (name === '(request-target)' ? `(request-target): ${method.toLowerCase()} ${url.pathname}${url.search}` : `${name}: ${headers[name]}`)).join('\n');
  const signature = createSign('RSA-SHA256').update(signingString).sign(actor.privateKey, 'base64');
  headers['signature'] = `keyId="${actor.id}#main-key",algorithm="rsa-sha256",headers="${names.join(' ')}",signature="${signature}"`;
  return headers;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

export async function startPeer(options: PeerOptions): Promise<Peer> {
  let origin = '';
  const actors = new Map<string, KeyedActor>();
  const documents = new Map<string, unknown>();
  const deliveries: PeerDelivery[] = [];
  const fetches: PeerFetch[] = [];
  const waiting: { match(activity: any, path: string): boolean; found(d: PeerDelivery): void }[] = [];
  const keyCache = new Map<string, { pem: string; owner: string }>();

  const actorDocument = (actor: KeyedActor) => ({
    // Mastodon's context names alsoKnownAs (ActivityStreams' own does not).
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1', ...(actor.aliases.length === 0 ? [] : [{ alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' } }])],
    id: actor.id,
    type: actor.type,
    preferredUsername: actor.name,
    inbox: `${actor.id}/inbox`,
    outbox: `${actor.id}/outbox`,
    followers: `${actor.id}/followers`,
    endpoints: { sharedInbox: `${origin}/inbox` },
    publicKey: { id: `${actor.id}#main-key`, owner: actor.id, publicKeyPem: actor.publicKeyPem },
    ...(actor.aliases.length === 0 ? {} : { alsoKnownAs: actor.aliases }),
  });

  /** The public key `keyId` names, fetched (with a signed GET) from its actor's document. */
  async function keyOf(keyId: string): Promise<{ pem: string; owner: string } | null> {
    const cached = keyCache.get(keyId);
    if (cached) return cached;
    const signer = [...actors.values()][0];
    const url = new URL(keyId);
    url.hash = '';
    const res = await send('GET', url.href, { accept: 'application/activity+json', ...(signer ? signedHeaders(signer, 'GET', url) : {}) }).catch(() => null);
    if (res === null || res.status !== 200) return null;
    let doc: any;
    try {
      doc = JSON.parse(res.body);
    } catch {
      return null;
    }
    const keys = doc?.id === keyId ? [doc] : Array.isArray(doc?.publicKey) ? doc.publicKey : [doc?.publicKey];
    const key = keys.find((k: any) => k?.id === keyId && typeof k.publicKeyPem === 'string');
    if (!key) return null;
    const found = { pem: key.publicKeyPem as string, owner: typeof key.owner === 'string' ? key.owner : doc.id };
    keyCache.set(keyId, found);
    return found;
  }

  /** Checks a draft-cavage signature: the listed headers, a fresh date, the digest of the body,
   * the key of its keyId, and (for an activity) that the key is its actor's. */
  async function judge(method: string, path: string, headers: IncomingHttpHeaders, body: string | null, actorOfBody: string | null): Promise<Verdict> {
    const header = headerValue(headers, 'signature');
    const params = new Map<string, string>();
    for (const match of (header ?? '').matchAll(/(\w+)="([^"]*)"/g)) params.set(match[1] as string, match[2] as string);
    const keyId = params.get('keyId') ?? null;
    if (header === undefined) return { ok: false, reason: headers['signature-input'] ? 'signed with RFC 9421 only' : 'unsigned', keyId };
    const signature = params.get('signature');
    if (keyId === null && headers['signature-input'] !== undefined) return { ok: false, reason: 'signed with RFC 9421 only', keyId };
    if (keyId === null || signature === undefined) return { ok: false, reason: 'not a draft-cavage signature', keyId };
    const names = (params.get('headers') ?? 'date').toLowerCase().split(/\s+/);
    for (const required of ['(request-target)', 'host', 'date', ...(body !== null ? ['digest'] : [])]) {
      if (!names.includes(required)) return { ok: false, reason: `${required} not signed`, keyId };
    }
    const date = Date.parse(headerValue(headers, 'date') ?? '');
    if (!Number.isFinite(date) || Math.abs(Date.now() - date) > WINDOW_MS) return { ok: false, reason: 'date out of range', keyId };
    if (body !== null && headerValue(headers, 'digest') !== digestOf(body)) return { ok: false, reason: 'digest mismatch', keyId };
    const signingString = names.map((name) => (name === '(request-target)' ? `(request-target): ${method.toLowerCase()} ${path}` : `${name}: ${headerValue(headers, name) ?? ''}`)).join('\n');
    const key = await keyOf(keyId);
    if (key === null) return { ok: false, reason: 'key not found', keyId };
    if (!verifySignature('sha256', Buffer.from(signingString), key.pem, Buffer.from(signature, 'base64'))) return { ok: false, reason: 'bad signature', keyId };
    if (actorOfBody !== null && actorOfBody !== key.owner) return { ok: false, reason: 'signed by another actor', keyId };
    return { ok: true, reason: 'verified', keyId };
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      void (async () => {
        const path = req.url ?? '/';
        const url = new URL(path, origin);
        if (req.method === 'POST') {
          const body = Buffer.concat(chunks).toString('utf8');
          let activity: any = null;
          try {
            activity = JSON.parse(body);
          } catch {
            return void res.writeHead(400).end();
          }
          // Taken in at once; judged afterwards.
          res.writeHead(202).end();
          const actorOfBody = typeof activity?.actor === 'string' ? activity.actor : (activity?.actor?.id ?? null);
          const delivery: PeerDelivery = { path, headers: req.headers, activity, verdict: judge('POST', path, req.headers, body, actorOfBody) };
          deliveries.push(delivery);
          for (const w of [...waiting]) if (w.match(activity, path)) waiting.splice(waiting.indexOf(w), 1) && w.found(delivery);
          const verdict = await delivery.verdict;
          await options.onDelivery?.(delivery, verdict);
          return;
        }
        if (url.pathname === '/.well-known/webfinger') {
          const name = /^acct:([^@]+)@/.exec(url.searchParams.get('resource') ?? '')?.[1];
          const actor = name === undefined ? undefined : actors.get(name);
          if (actor === undefined) return void res.writeHead(404).end();
          res.writeHead(200, { 'content-type': 'application/jrd+json' });
          return void res.end(JSON.stringify({ subject: `acct:${actor.name}@${url.host}`, links: [{ rel: 'self', type: 'application/activity+json', href: actor.id }] }));
        }
        const actor = [...actors.values()].find((a) => a.path === url.pathname);
        const doc = actor !== undefined ? actorDocument(actor) : documents.get(url.pathname);
        const verdict = await judge('GET', path, req.headers, null, null);
        fetches.push({ path, headers: req.headers, verdict });
        if (doc === undefined) return void res.writeHead(404).end();
        if (options.secure && !verdict.ok) {
          res.writeHead(401, { 'content-type': 'application/json' });
          return void res.end(JSON.stringify({ error: 'Request not signed' }));
        }
        res.writeHead(200, { 'content-type': 'application/activity+json' });
        res.end(JSON.stringify(doc));
      })().catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(err));
      });
    });
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', () => ready()));
  const address = server.address();
  const host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  origin = `http://${host}`;
  for (const { name, path = `/users/${name}`, type = 'Person' } of options.actors) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    actors.set(name, { name, id: `${origin}${path}`, path, type, privateKey, publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), aliases: [] });
  }
  const actorNamed = (name: string): KeyedActor => {
    const actor = actors.get(name);
    if (actor === undefined) throw new Error(`no actor ${name} on this peer`);
    return actor;
  };

  return {
    origin,
    host,
    actor: (name) => actorNamed(name).id,
    deliveries,
    fetches,
    async delivery(match) {
      const delivery =
        deliveries.find((d) => match(d.activity, d.path)) ??
        (await new Promise<PeerDelivery>((found) => waiting.push({ match, found })));
      return { delivery, verdict: await delivery.verdict };
    },
    serve(path, json) {
      documents.set(path, json);
    },
    setAliases(name, aliases) {
      actorNamed(name).aliases = [...aliases];
    },
    post(from, url, activity) {
      const body = JSON.stringify(activity);
      return send('POST', url, { ...signedHeaders(actorNamed(from), 'POST', new URL(url), body), 'content-type': 'application/activity+json' }, body);
    },
    privateKeyOf: (name) => actorNamed(name).privateKey.toCryptoKey({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, true, ['sign']),
    async get(url, from) {
      const headers = { accept: 'application/activity+json', ...(from === null ? {} : signedHeaders(actorNamed(from), 'GET', new URL(url))) };
      const res = await send('GET', url, headers);
      let json: any = null;
      try {
        json = JSON.parse(res.body);
      } catch {
        // not JSON
      }
      return { ...res, json };
    },
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
