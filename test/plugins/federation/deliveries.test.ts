// Outgoing deliveries and their audience, against a stand-in remote server on loopback that
// serves three actors and records what reaches their inboxes: a public and a followers-only
// status go to the follower (through its shared inbox), a direct one only to the account it
// mentions, an edit and a delete follow the status, a favourite of a remote status goes to its
// author, a profile change to the followers; each request is signed.

import { createServer, type IncomingHttpHeaders } from 'node:http';
import t from 'tap';
import { account as accountFixture } from '../../../adapters/testing/fixtures.ts';
import type { Account } from '../../../core/domain/model.ts';
import { federationPlugin } from '../../../plugins/index.ts';
import { status as statusFixture } from '../../helpers/fixtures.ts';
import { harness } from '../../helpers/harness.ts';

interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  activity: { type?: string; id?: string; to?: unknown; cc?: unknown; object?: { id?: string; type?: string; content?: string } | string };
}

t.test('outgoing activities reach exactly their audience', async (t) => {
  const deliveries: Delivery[] = [];
  const waiting: { match(d: Delivery): boolean; found(d: Delivery): void }[] = [];
  let origin = '';
  const actor = (name: string, shared: boolean) => ({
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: `${origin}/users/${name}`,
    type: 'Person',
    preferredUsername: name,
    inbox: `${origin}/users/${name}/inbox`,
    ...(shared ? { endpoints: { sharedInbox: `${origin}/inbox` } } : {}),
  });
  const remote = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method === 'POST') {
        const delivery: Delivery = { path, headers: req.headers, activity: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery['activity'] };
        deliveries.push(delivery);
        for (const w of [...waiting]) if (w.match(delivery)) waiting.splice(waiting.indexOf(w), 1) && w.found(delivery);
        res.writeHead(202).end();
        return;
      }
      const name = /^\/users\/(bob|dave|erin)$/.exec(path)?.[1];
      if (name === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.end(JSON.stringify(actor(name, name !== 'dave')));
    });
  });
  await new Promise<void>((ready) => remote.listen(0, '127.0.0.1', () => ready()));
  t.teardown(() => new Promise<void>((done) => remote.close(() => done())));
  const address = remote.address();
  const host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  origin = `http://${host}`;
  const delivered = (match: (d: Delivery) => boolean): Promise<Delivery> =>
    new Promise((found) => {
      const earlier = deliveries.find(match);
      if (earlier) found(earlier);
      else waiting.push({ match, found });
    });
  const objectId = (d: Delivery) => (typeof d.activity.object === 'string' ? d.activity.object : d.activity.object?.id);

  const h = await harness({ plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const remoteAccount = async (name: string): Promise<Account> => {
    const made = accountFixture(h.core.ids.next(), { username: name, domain: host, uri: `${origin}/users/${name}`, url: `${origin}/@${name}` });
    await h.core.storage.accounts.create(made);
    return made;
  };
  const bob = await remoteAccount('bob');
  await remoteAccount('dave');
  const erin = await remoteAccount('erin');
  await h.core.storage.relationships.follow({ id: h.core.ids.next(), accountId: bob.id, targetAccountId: alice.account.id, showReblogs: true, notify: false, languages: null, createdAt: Date.now() });
  const base = h.core.config.baseUrl;

  const post = async (payload: Record<string, unknown>) => (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload })).json as { id: string; uri: string };

  const pub = await post({ status: 'Hello #world', visibility: 'public' });
  const create = await delivered((d) => d.activity.type === 'Create' && objectId(d) === pub.uri);
  t.equal(create.path, '/inbox', 'through the shared inbox');
  t.match(create.headers['signature'] ?? create.headers['signature-input'], /./, 'signed');
  t.match(JSON.stringify(create.activity.to), /Public/);
  t.match(JSON.stringify(create.activity.cc), `${base}/users/alice/followers`);

  const priv = await post({ status: 'followers only', visibility: 'private' });
  const privCreate = await delivered((d) => d.activity.type === 'Create' && objectId(d) === priv.uri);
  t.equal(privCreate.path, '/inbox');
  t.notMatch(JSON.stringify(privCreate.activity), /Public/, 'a followers-only status is not public');

  const direct = await post({ status: `@dave@${host} a secret`, visibility: 'direct' });
  const directCreate = await delivered((d) => d.activity.type === 'Create' && objectId(d) === direct.uri);
  t.equal(directCreate.path, '/users/dave/inbox', 'only to the mentioned account');
  t.notMatch(JSON.stringify(directCreate.activity), /followers|Public/);

  // A later status reaching the follower shows the direct one did not go there before it.
  const later = await post({ status: 'after the secret', visibility: 'unlisted' });
  await delivered((d) => d.activity.type === 'Create' && objectId(d) === later.uri);
  t.equal(deliveries.filter((d) => objectId(d) === direct.uri).length, 1, 'the direct status was delivered once, to dave');

  await h.request('PUT', `/api/v1/statuses/${pub.id}`, { token: alice.token, payload: { status: 'Hello again' } });
  const update = await delivered((d) => d.activity.type === 'Update' && objectId(d) === pub.uri);
  t.match((update.activity.object as { content?: string }).content, 'Hello again');
  await h.request('DELETE', `/api/v1/statuses/${pub.id}`, { token: alice.token });
  const del = await delivered((d) => d.activity.type === 'Delete' && objectId(d) === pub.uri);
  t.equal(del.path, '/inbox');

  // A remote status by erin, favourited by alice: the Like goes to erin alone.
  const erinsStatus = statusFixture(erin, { uri: `${origin}/users/erin/statuses/1`, url: `${origin}/@erin/1`, local: false, visibility: 'public' });
  await h.core.storage.statuses.create(erinsStatus, { countForAuthor: true, countReplyOf: null });
  await h.request('POST', `/api/v1/statuses/${erinsStatus.id}/favourite`, { token: alice.token });
  const like = await delivered((d) => d.activity.type === 'Like');
  t.equal(objectId(like), erinsStatus.uri);
  t.equal(like.path, '/inbox');

  await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, payload: { display_name: 'Alice A.' } });
  const profile = await delivered((d) => d.activity.type === 'Update' && typeof d.activity.object === 'object' && d.activity.object?.type === 'Person');
  t.equal(objectId(profile), `${base}/users/alice`);
});
