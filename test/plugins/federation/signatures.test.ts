// Inbox signatures and the private-address rule: an activity signed by an actor whose key lives
// on a loopback address is refused (401) unless the plugin was told that private addresses are
// allowed (tests only), in which case it is verified and accepted; a signature by another key is
// refused either way, under both signature specs. Never a 500.

import { createServer } from 'node:http';
import { webcrypto } from 'node:crypto';
import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import t from 'tap';
import { federationPlugin } from '../../../plugins/index.ts';
import { harness } from '../../helpers/harness.ts';

type CryptoKeyParam = Parameters<typeof signRequest>[1];

async function pem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('spki', key));
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PUBLIC KEY-----\n${lines.join('\n')}\n-----END PUBLIC KEY-----\n`;
}

t.test('signed inbox requests and private addresses', async (t) => {
  const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const other = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const publicKeyPem = await pem(keys.publicKey as webcrypto.CryptoKey);
  let actorUrl = '';
  // Mallory's home: her actor document with her public key, on loopback.
  const home = createServer((req, res) => {
    if (req.url?.startsWith('/users/mallory')) {
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.end(
        JSON.stringify({
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
          id: actorUrl,
          type: 'Person',
          preferredUsername: 'mallory',
          inbox: `${actorUrl}/inbox`,
          publicKey: { id: `${actorUrl}#main-key`, owner: actorUrl, publicKeyPem },
        }),
      );
    } else res.writeHead(404).end();
  });
  await new Promise<void>((ready) => home.listen(0, '127.0.0.1', () => ready()));
  t.teardown(() => new Promise<void>((done) => home.close(() => done())));
  const address = home.address();
  actorUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/users/mallory`;

  const strict = await harness({ plugins: [federationPlugin()] });
  const open = await harness({ plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(async () => {
    await strict.close();
    await open.close();
  });
  await strict.user('alice');
  await open.user('alice');

  const follow = (n: number) =>
    JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${actorUrl}/follows/${n}`, type: 'Follow', actor: actorUrl, object: 'https://rookery.test/users/alice' });

  async function signed(body: string, key: webcrypto.CryptoKey, spec: 'draft-cavage-http-signatures-12' | 'rfc9421'): Promise<Record<string, string>> {
    const request = new Request('https://rookery.test/users/alice/inbox', { method: 'POST', headers: { 'content-type': 'application/activity+json', host: 'rookery.test' }, body });
    const signedRequest = await signRequest(request, key as CryptoKeyParam, new URL(`${actorUrl}#main-key`), { spec });
    const headers: Record<string, string> = {};
    signedRequest.headers.forEach((value, name) => void (headers[name] = value));
    return headers;
  }

  let n = 0;
  for (const spec of ['draft-cavage-http-signatures-12', 'rfc9421'] as const) {
    const body = follow(++n);
    const headers = await signed(body, keys.privateKey as webcrypto.CryptoKey, spec);
    let res = await strict.request('POST', '/users/alice/inbox', { payload: body, headers });
    t.equal(res.statusCode, 401, `${spec}: a key on a loopback address is not fetched`);
    t.type(res.json?.error, 'string');
    res = await open.request('POST', '/users/alice/inbox', { payload: body, headers });
    t.equal(res.statusCode, 202, `${spec}: verified when private addresses are allowed`);

    const forged = follow(++n);
    res = await open.request('POST', '/users/alice/inbox', { payload: forged, headers: await signed(forged, other.privateKey as webcrypto.CryptoKey, spec) });
    t.equal(res.statusCode, 401, `${spec}: signed by another key`);
    t.type(res.json?.error, 'string');

    // The body changed after signing: the digest does not match.
    const tampered = await signed(follow(++n), keys.privateKey as webcrypto.CryptoKey, spec);
    res = await open.request('POST', '/users/alice/inbox', { payload: follow(++n), headers: tampered });
    t.ok(res.statusCode === 400 || res.statusCode === 401, `${spec}: a tampered body is refused (${res.statusCode})`);
    t.type(res.json?.error, 'string');
  }
});
