// Deliveries run where jobs run: a process that serves requests without a worker (the `web`
// role) only records them with the write; a worker on the same store delivers them, signed,
// with the keys both processes read from the store.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { account as accountFixture } from '../../../adapters/testing/fixtures.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { federationPlugin } from '../../../plugins/index.ts';
import { harness } from '../../helpers/harness.ts';

t.test('a web process records deliveries, a worker makes them', async (t) => {
  const received: { path: string; type: string; object: string; signed: boolean }[] = [];
  let arrived: (() => void) | null = null;
  let origin = '';
  const remote = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST') {
        const activity = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; object: { id: string } };
        received.push({ path: req.url ?? '', type: activity.type, object: activity.object.id, signed: req.headers['signature'] !== undefined || req.headers['signature-input'] !== undefined });
        res.writeHead(202).end();
        arrived?.();
        return;
      }
      if (req.url !== '/users/bob') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/activity+json' });
      res.end(JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${origin}/users/bob`, type: 'Person', preferredUsername: 'bob', inbox: `${origin}/users/bob/inbox` }));
    });
  });
  await new Promise<void>((ready) => remote.listen(0, '127.0.0.1', () => ready()));
  t.teardown(() => new Promise<void>((done) => remote.close(() => done())));
  const address = remote.address();
  const host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  origin = `http://${host}`;

  const dir = mkdtempSync(join(tmpdir(), 'rookery-fed-roles-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'shared.sqlite3');
  const plugins = () => [federationPlugin({ allowPrivateAddress: true })];
  const web = await harness({ storage: openSqliteStorage({ path }), plugins: plugins(), worker: false });
  const worker = await harness({ storage: openSqliteStorage({ path }), plugins: plugins() });
  t.teardown(async () => {
    await web.close();
    await worker.close();
  });

  const alice = await web.user('alice');
  const bob = accountFixture(web.core.ids.next(), { username: 'bob', domain: host, uri: `${origin}/users/bob`, url: `${origin}/@bob` });
  await web.core.storage.accounts.create(bob);
  await web.core.storage.relationships.follow({ id: web.core.ids.next(), accountId: bob.id, targetAccountId: alice.account.id, showReblogs: true, notify: false, languages: null, createdAt: Date.now() });
  // The web process's view of the actor: its keys, made now and kept in the store.
  const actor = await web.request('GET', '/users/alice', { headers: { accept: 'application/activity+json' }, drain: false });
  t.equal(actor.statusCode, 200);

  const posted = (await web.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'from the web process' }, drain: false })).json;
  t.equal(posted.content, '<p>from the web process</p>');
  t.same(received, [], 'the web process delivered nothing');

  const delivered = new Promise<void>((done) => (arrived = done));
  await worker.rookery.drain();
  await delivered;
  t.same(received, [{ path: '/users/bob/inbox', type: 'Create', object: posted.uri, signed: true }], 'the worker delivered it, signed');
  const workerActor = await worker.request('GET', '/users/alice', { headers: { accept: 'application/activity+json' } });
  t.equal(workerActor.json.publicKey.publicKeyPem, actor.json.publicKey.publicKeyPem, 'both processes sign with the same kept key');
});
