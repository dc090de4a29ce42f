// What the federation plugin reads from other servers goes through the instance's fetcher, and
// everything it sends says who sends it: against a stand-in server on loopback (allowed by the
// test setting), a WebFinger lookup, the actor document and a delivery each carry
// "Rookery/<version> (+<baseUrl>)"; a document that never ends is refused at the size limit
// instead of read whole; a delivery to an inbox that is not public is not sent; a signed fetch tries the other signature spec when the first is
// refused, and remembers which worked.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { generateCryptoKeyPair, MemoryKvStore } from '@fedify/fedify';
import t from 'tap';
import { createFetcher } from '../../../adapters/node/index.ts';
import { federationPlugin } from '../../../plugins/index.ts';
import { documentLoaders } from '../../../plugins/federation/documents.ts';
import { SPEC_PREFIX } from '../../../plugins/federation/signatures.ts';
import { harness } from '../../helpers/harness.ts';

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

const seen: Seen[] = [];
const endless: { res: ServerResponse; written: number; closed: Promise<unknown> }[] = [];
let origin = '';
let host = '';
const actor = (name: string, inboxOrigin = origin) => ({
  '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
  id: `${origin}/users/${name}`,
  type: 'Person',
  preferredUsername: name,
  inbox: `${inboxOrigin}/users/${name}/inbox`,
});

/** Answers as the server would write it, forever: an actor whose summary never ends. */
function neverEnding(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/activity+json' });
  const stream = { res, written: 0, closed: once(res, 'close') };
  endless.push(stream);
  res.write(JSON.stringify(actor('endless')).replace(/}$/, ',"summary":"'));
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const more = () => {
    while (!res.destroyed) {
      stream.written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
  };
  more();
}

const remote = createServer((req, res) => {
  req.resume();
  const url = new URL(req.url ?? '/', origin);
  seen.push({ method: req.method ?? '', path: url.pathname, headers: req.headers });
  if (req.method === 'POST') return void req.on('end', () => res.writeHead(202).end());
  if (url.pathname === '/.well-known/webfinger' && url.searchParams.get('resource') === `acct:carol@${host}`) {
    res.writeHead(200, { 'content-type': 'application/jrd+json' });
    return void res.end(JSON.stringify({ subject: `acct:carol@${host}`, links: [{ rel: 'self', type: 'application/activity+json', href: `${origin}/users/carol` }] }));
  }
  if (url.pathname === '/users/carol') return void res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(actor('carol')));
  if (url.pathname === '/users/endless') return neverEnding(res);
  // Its inbox: this server again, spelt as an IPv4-mapped address.
  if (url.pathname === '/users/mallory') return void res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify(actor('mallory', origin.replace('127.0.0.1', '[::ffff:7f00:1]'))));
  if (url.pathname === '/signed/doc') {
    // A server that knows only draft-cavage signatures, and wants one.
    const cavage = req.headers['signature'] !== undefined && req.headers['signature-input'] === undefined;
    if (!cavage) return void res.writeHead(401).end();
    return void res.writeHead(200, { 'content-type': 'application/activity+json' }).end(JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${origin}/signed/doc`, type: 'Note', content: 'for signed eyes' }));
  }
  res.writeHead(404).end();
});
await new Promise<void>((ready) => remote.listen(0, '127.0.0.1', () => ready()));
const address = remote.address();
host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
origin = `http://${host}`;
t.teardown(() => {
  for (const stream of endless) stream.res.destroy();
  remote.closeAllConnections();
  return new Promise<void>((done) => remote.close(() => done()));
});
t.beforeEach(() => {
  seen.length = 0;
});

t.test('a WebFinger lookup, a document fetch and a delivery say who sends them', async (t) => {
  const h = await harness({ plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const expected = `Rookery/0.1.0 (+${h.core.config.baseUrl})`;

  const found = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(`carol@${host}`)}&resolve=true&type=accounts`, { token: alice.token });
  const carol = (found.json as { accounts: { id: string; acct: string }[] }).accounts[0];
  t.equal(carol?.acct, `carol@${host}`, 'found through WebFinger');
  const webFinger = seen.find((s) => s.path === '/.well-known/webfinger');
  const document = seen.find((s) => s.path === '/users/carol');
  t.equal(webFinger?.headers['user-agent'], expected, 'the WebFinger lookup');
  t.equal(document?.headers['user-agent'], expected, 'the actor document');

  t.equal((await h.request('POST', `/api/v1/accounts/${carol?.id}/follow`, { token: alice.token })).statusCode, 200);
  await h.rookery.drain();
  const delivery = seen.find((s) => s.method === 'POST' && s.path === '/users/carol/inbox');
  t.ok(delivery, 'the Follow was delivered');
  t.equal(delivery?.headers['user-agent'], expected, 'the delivery');
  t.match(delivery?.headers['signature'] ?? delivery?.headers['signature-input'], /./, 'still signed');
});

t.test('a document that never ends is refused at the size limit, not read whole', async (t) => {
  // A generous time limit: the size limit, not the clock, ends the fetch.
  const h = await harness({ plugins: [federationPlugin({ allowPrivateAddress: true, fetchTimeoutMs: 60_000 })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const found = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(`${origin}/users/endless`)}&resolve=true&type=accounts`, { token: alice.token });
  t.same([found.statusCode, (found.json as { accounts: unknown[] }).accounts], [200, []], 'no account from it');
  const stream = endless[0];
  await stream?.closed;
  t.ok(stream?.res.destroyed, 'the connection was closed while the server still had more to send');
  t.ok((stream?.written ?? Infinity) < 32 * 1024 * 1024, `the server got to write ${stream?.written} bytes: the limit (1 MiB) and what the sockets buffer`);
  const carol = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(`${origin}/users/carol`)}&resolve=true&type=accounts`, { token: alice.token });
  t.equal((carol.json as { accounts: unknown[] }).accounts.length, 1, 'a document within the limit is read');
  t.throws(() => federationPlugin({ maxDocumentBytes: 0 }), { name: 'ConfigError', message: 'Invalid config: federationPlugin: "maxDocumentBytes" must be a whole number from 1024 to 104857600, got 0' });
});

t.test('a delivery to an inbox that is not public is not sent', async (t) => {
  // 127.0.0.1, spelt so, plays a public server; no other address does.
  const h = await harness({ plugins: [federationPlugin({ allowPrivateAddress: (address) => address === '127.0.0.1' })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  for (const name of ['mallory', 'carol']) {
    const found = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(`${origin}/users/${name}`)}&resolve=true&type=accounts`, { token: alice.token });
    const account = (found.json as { accounts: { id: string }[] }).accounts[0];
    t.ok(account, `${name} found`);
    t.equal((await h.request('POST', `/api/v1/accounts/${account?.id}/follow`, { token: alice.token })).statusCode, 200);
  }
  await h.rookery.drain();
  const posts = seen.filter((s) => s.method === 'POST').map((s) => s.path);
  t.same(posts, ['/users/carol/inbox'], "carol's Follow was delivered; mallory's inbox, [::ffff:7f00:1], was never posted to");
  t.same(await h.core.queue.deadLetters(10), [], 'the refused delivery was dropped, not failed');
});

t.test('without the test setting, nothing on loopback is fetched', async (t) => {
  const h = await harness({ plugins: [federationPlugin()] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  for (const q of [`carol@${host}`, `https://${host}/users/carol`]) {
    const found = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(q)}&resolve=true&type=accounts`, { token: alice.token });
    t.same((found.json as { accounts: unknown[] }).accounts, [], q);
  }
  t.same(seen, [], 'the stand-in server saw no request');
});

t.test('a signed fetch tries the other signature spec when refused, and remembers the one that worked', async (t) => {
  const kv = new MemoryKvStore();
  const fetcher = createFetcher({ userAgent: 'Rookery/0.1.0 (+https://rookery.test)', allowPrivateAddresses: true });
  const { privateKey } = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  // RFC 9421 first here (the operator's choice, FEDERATION_FIRST_KNOCK=rfc9421), so that the retry shows.
  const load = documentLoaders(fetcher, kv, { prefix: SPEC_PREFIX, first: 'rfc9421' }).authenticatedDocumentLoaderFactory({ keyId: new URL('https://rookery.test/users/alice#main-key'), privateKey });
  const first = await load(`${origin}/signed/doc`);
  t.match(first.document, { content: 'for signed eyes' });
  t.same(
    seen.map((s) => [s.headers['signature-input'] === undefined ? 'draft-cavage' : 'rfc9421', s.headers['user-agent']]),
    [
      ['rfc9421', 'Rookery/0.1.0 (+https://rookery.test)'],
      ['draft-cavage', 'Rookery/0.1.0 (+https://rookery.test)'],
    ],
    'RFC 9421 first, refused; then draft-cavage',
  );
  t.equal(await kv.get([...SPEC_PREFIX, origin]), 'draft-cavage-http-signatures-12', 'remembered for the server, where deliveries look too');
  seen.length = 0;
  await load(`${origin}/signed/doc`);
  t.equal(seen.length, 1, 'the next fetch knocks once');
});
