// Suspending a local account tells the servers of its followers, as Mastodon does: an Update of
// the actor that says `suspended` (and blanks the profile); unsuspending sends it back whole.
// What a suspended remote account sends is dropped until it is unsuspended.

import { createServer } from 'node:http';
import t from 'tap';
import { account as accountFixture } from '../../../adapters/testing/fixtures.ts';
import { federationPlugin } from '../../../plugins/index.ts';
import { startPeer } from '../../helpers/ap-peer.ts';
import { harness } from '../../helpers/harness.ts';

interface Delivery {
  path: string;
  activity: { type?: string; object?: { id?: string; type?: string; name?: string; suspended?: boolean } | string };
}

t.test('a suspension federates as an Update of the actor, and so does its undoing', async (t) => {
  const deliveries: Delivery[] = [];
  const waiting: { match(d: Delivery): boolean; found(d: Delivery): void }[] = [];
  let origin = '';
  const remote = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      if (req.method === 'POST') {
        const delivery: Delivery = { path, activity: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Delivery['activity'] };
        deliveries.push(delivery);
        for (const w of [...waiting]) if (w.match(delivery)) waiting.splice(waiting.indexOf(w), 1) && w.found(delivery);
        res.writeHead(202).end();
        return;
      }
      if (path !== '/users/bob') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.end(
        JSON.stringify({
          '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
          id: `${origin}/users/bob`,
          type: 'Person',
          preferredUsername: 'bob',
          inbox: `${origin}/users/bob/inbox`,
          endpoints: { sharedInbox: `${origin}/inbox` },
        }),
      );
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
  const actorUpdate = (suspended: boolean) => (d: Delivery) =>
    d.activity.type === 'Update' && typeof d.activity.object === 'object' && d.activity.object.type === 'Person' && (d.activity.object.suspended === true) === suspended;

  const h = await harness({ plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice', { displayName: 'Alice' });
  const admin = await h.user('ada', { role: 'Admin', scopes: ['admin:read', 'admin:write'] });
  const bob = accountFixture(h.core.ids.next(), { username: 'bob', domain: host, uri: `${origin}/users/bob`, url: `${origin}/@bob` });
  await h.core.storage.accounts.create(bob);
  await h.core.storage.relationships.follow({ id: h.core.ids.next(), accountId: bob.id, targetAccountId: alice.account.id, showReblogs: true, notify: false, languages: null, createdAt: Date.now() });

  const suspended = await h.request('POST', `/api/v1/admin/accounts/${alice.account.id}/action`, { token: admin.token, payload: { type: 'suspend' } });
  t.equal(suspended.statusCode, 200);
  const update = await delivered(actorUpdate(true));
  t.equal(update.path, '/inbox', "to the follower's server");
  t.match(update.activity.object, { id: `${h.core.config.baseUrl}/users/alice`, name: '', suspended: true });

  await h.request('POST', `/api/v1/admin/accounts/${alice.account.id}/unsuspend`, { token: admin.token });
  const back = await delivered(actorUpdate(false));
  t.match(back.activity.object, { id: `${h.core.config.baseUrl}/users/alice`, name: 'Alice' });
});

t.test("what a suspended remote account sends is dropped; unsuspended, it is taken in again", async (t) => {
  const peer = await startPeer({ actors: [{ name: 'bob' }] });
  t.teardown(() => peer.close());
  const h = await harness({ listen: true, plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const admin = await h.user('ada', { role: 'Admin', scopes: ['admin:read', 'admin:write'] });
  const base = h.core.config.baseUrl;
  const bob = peer.actor('bob');
  const found = await h.request('GET', `/api/v2/search?q=${encodeURIComponent(bob)}&resolve=true&type=accounts`, { token: alice.token });
  const bobId: string | undefined = found.json.accounts[0]?.id;
  if (bobId === undefined) throw new Error(`not found: ${found.body}`);
  const create = (n: number) => {
    const note = `${peer.origin}/users/bob/statuses/${n}`;
    return {
      note,
      activity: {
        '@context': 'https://www.w3.org/ns/activitystreams',
        id: `${note}/activity`,
        type: 'Create',
        actor: bob,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        object: { id: note, type: 'Note', attributedTo: bob, content: `<p>note ${n}</p>`, to: ['https://www.w3.org/ns/activitystreams#Public'], published: new Date().toISOString() },
      },
    };
  };

  t.equal((await h.request('POST', `/api/v1/admin/accounts/${bobId}/action`, { token: admin.token, payload: { type: 'suspend' } })).statusCode, 200);
  const dropped = create(1);
  t.equal((await peer.post('bob', `${base}/inbox`, dropped.activity)).status, 202);
  await h.rookery.drain();
  t.equal(await h.core.storage.statuses.findByUri(dropped.note), null, 'not stored');

  t.equal((await h.request('POST', `/api/v1/admin/accounts/${bobId}/unsuspend`, { token: admin.token })).statusCode, 200);
  const taken = create(2);
  t.equal((await peer.post('bob', `${base}/inbox`, taken.activity)).status, 202);
  await h.rookery.drain();
  t.not(await h.core.storage.statuses.findByUri(taken.note), null, 'stored');
});
