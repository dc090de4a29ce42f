// Suspending a local account tells the servers of its followers, as Mastodon does: an Update of
// the actor that says `suspended` (and blanks the profile); unsuspending sends it back whole.

import { createServer } from 'node:http';
import t from 'tap';
import { account as accountFixture } from '../../../adapters/testing/fixtures.ts';
import { federationPlugin } from '../../../plugins/index.ts';
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
