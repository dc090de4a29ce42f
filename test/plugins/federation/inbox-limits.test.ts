// A flood of inbox POSTs holds a bounded part of the server: at most `inboxConcurrency` are in
// progress at once (here 2, each held while its sender's key is being fetched); the rest are
// answered at once with a 429, Retry-After and Mastodon's error shape, and the client API
// answers while the inboxes are full. Once they are done, inboxes take requests again. A key
// server that never answers holds a request only until the fetch time limit.

import { createServer, type ServerResponse } from 'node:http';
import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import t from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { harness } from '../../helpers/harness.ts';

t.test('inbox POSTs beyond the bound are refused with a 429; the API keeps answering', async (t) => {
  // The senders' server: each key fetch is held until the test lets it go (then a 404).
  const held: ServerResponse[] = [];
  let fetched: (() => void) | null = null;
  const senders = createServer((req, res) => {
    req.resume();
    held.push(res);
    fetched?.();
  });
  await new Promise<void>((ready) => senders.listen(0, '127.0.0.1', () => ready()));
  t.teardown(() => new Promise<void>((done) => senders.close(() => done())));
  const address = senders.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const a = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true, inboxConcurrency: 2 })] });
  t.teardown(() => a.close());
  const alice = await a.user('alice');
  const { privateKey } = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const post = async (n: number) => {
    const actor = `${origin}/users/sender${n}`;
    const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}#follows/1`, type: 'Follow', actor, object: `${a.core.config.baseUrl}/users/alice` });
    const request = new Request(`${a.core.config.baseUrl}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
    const response = await fetch(await signRequest(request, privateKey, new URL(`${actor}#main-key`)));
    return { status: response.status, retryAfter: response.headers.get('retry-after'), json: await response.json() };
  };

  const twoFetching = new Promise<void>((done) => {
    fetched = () => {
      if (held.length === 2) done();
    };
  });
  const first = [post(1), post(2)];
  await twoFetching;
  let firstDone = false;
  void Promise.all(first).then(() => (firstDone = true));

  const flood = await Promise.all(Array.from({ length: 8 }, (_, i) => post(3 + i)));
  t.same(
    flood.map((r) => [r.status, r.retryAfter, r.json]),
    Array.from({ length: 8 }, () => [429, '30', { error: 'Too many requests' }]),
    'the rest are refused at once, with Retry-After',
  );
  t.equal(held.length, 2, 'and fetched no key');
  const api = await fetch(`${a.core.config.baseUrl}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${alice.token}` } });
  t.equal(api.status, 200, 'the client API answers while the inboxes are full');
  t.equal(((await api.json()) as { username: string }).username, 'alice');
  t.equal(firstDone, false, 'the two are still in progress');

  for (const res of held.splice(0)) res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
  const answered = await Promise.all(first);
  t.same(
    answered.map((r) => r.status),
    [401, 401],
    'their keys not found: unauthorized',
  );
  const again = post(11);
  await new Promise<void>((done) => {
    fetched = done;
  });
  for (const res of held.splice(0)) res.writeHead(404).end();
  t.equal((await again).status, 401, 'a later POST is read again, not refused');
});

t.test('a key server that never answers holds an inbox request only as long as the fetch time limit', async (t) => {
  // Accepts the connection, reads the request, never answers (until the test ends).
  const silent: ServerResponse[] = [];
  const tarpit = createServer((req, res) => {
    req.resume();
    silent.push(res);
  });
  await new Promise<void>((ready) => tarpit.listen(0, '127.0.0.1', () => ready()));
  t.teardown(() => {
    for (const res of silent) res.destroy();
    return new Promise<void>((done) => tarpit.close(() => done()));
  });
  const address = tarpit.address();
  const origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const a = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true, inboxConcurrency: 1, fetchTimeoutMs: 200 })] });
  t.teardown(() => a.close());
  await a.user('alice');
  const { privateKey } = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const post = async (n: number) => {
    const actor = `${origin}/users/sender${n}`;
    const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${actor}#likes/1`, type: 'Follow', actor, object: `${a.core.config.baseUrl}/users/alice` });
    const request = new Request(`${a.core.config.baseUrl}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
    return (await fetch(await signRequest(request, privateKey, new URL(`${actor}#main-key`)))).status;
  };
  t.equal(await post(1), 401, 'the key never came: the fetch was given up on, and the request answered');
  t.equal(silent.length, 1, 'the tarpit saw the key fetch');
  t.equal(await post(2), 401, 'the one inbox slot was free again');
  t.equal(silent.length, 2);
});

t.test('the bounds must be positive integers', async (t) => {
  for (const value of [0, -1, 1.5, Number.NaN]) {
    t.throws(() => federationPlugin({ inboxConcurrency: value }), { name: 'ConfigError', message: `Invalid config: federationPlugin: "inboxConcurrency" must be a whole number from 1 to 100000, got ${value}` });
    t.throws(() => federationPlugin({ fetchTimeoutMs: value }), { name: 'ConfigError', message: `Invalid config: federationPlugin: "fetchTimeoutMs" must be a whole number from 1 to 600000, got ${value}` });
  }
  for (const value of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    t.throws(() => federationPlugin({ pollUpdateDelayMs: value }), { name: 'ConfigError', message: `Invalid config: federationPlugin: "pollUpdateDelayMs" must be a whole number from 0 to 86400000, got ${value}` });
  }
  t.throws(() => federationPlugin({ allowPrivateAddresses: true } as never), { name: 'ConfigError', message: 'Invalid config: federationPlugin: unknown option "allowPrivateAddresses"' }, 'a misspelt option is refused, not ignored');
  t.doesNotThrow(() => federationPlugin({ pollUpdateDelayMs: 0 }), 'no delay is allowed');
});
