// An activity whose sender cannot be read when its job runs (its server down, or too slow for
// the fetch time limit) is not dropped: the inbox job fails and is retried, and the activity is
// applied once the sender's server answers again. B's web process takes the POST; a worker on
// the same store runs the job later, once the sender's actor has left the cache.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { webcrypto } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import t from 'tap';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { federationPlugin } from '../../../plugins/index.ts';
import { harness } from '../../helpers/harness.ts';

const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

t.test('a sender that cannot be read is tried again, not dropped', async (t) => {
  const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const der = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey as webcrypto.CryptoKey)).toString('base64');
  const publicKeyPem = `-----BEGIN PUBLIC KEY-----\n${(der.match(/.{1,64}/g) ?? []).join('\n')}\n-----END PUBLIC KEY-----\n`;
  let origin = '';
  let down = false;
  const served: string[] = [];
  const carol = createServer((req, res) => {
    req.resume();
    served.push(`${down ? 'down' : 'up'} ${req.url}`);
    if (down) return void res.writeHead(503).end();
    if (req.url !== '/users/carol') return void res.writeHead(404).end();
    const actor = `${origin}/users/carol`;
    res.writeHead(200, { 'content-type': 'application/activity+json' });
    res.end(JSON.stringify({ '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: actor, type: 'Person', preferredUsername: 'carol', inbox: `${actor}/inbox`, publicKey: { id: `${actor}#main-key`, owner: actor, publicKeyPem } }));
  });
  await new Promise<void>((ready) => carol.listen(0, '127.0.0.1', () => ready()));
  t.teardown(() => new Promise<void>((done) => carol.close(() => done())));
  const address = carol.address();
  origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const dir = mkdtempSync(join(tmpdir(), 'rookery-fed-unreadable-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'b.sqlite3');
  const web = await harness({ listen: true, storage: openSqliteStorage({ path }), plugins: [federationPlugin({ allowPrivateAddress: true })], worker: false });
  const worker = await harness({ storage: openSqliteStorage({ path }), plugins: [federationPlugin({ allowPrivateAddress: true })] });
  t.teardown(async () => {
    await web.close();
    await worker.close();
  });
  await web.user('bob');

  const note = `${origin}/users/carol/statuses/1`;
  const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${note}/activity`, type: 'Create', actor: `${origin}/users/carol`, to: [PUBLIC], object: { id: note, type: 'Note', attributedTo: `${origin}/users/carol`, to: [PUBLIC], content: '<p>hello from afar</p>', published: '2026-11-24T00:00:00Z' } });
  const request = new Request(`${web.core.config.baseUrl}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body });
  const posted = await fetch(await signRequest(request, keys.privateKey as Parameters<typeof signRequest>[1], new URL(`${origin}/users/carol#main-key`)));
  t.equal(posted.status, 202, 'accepted: the signature checked with the key carol served');
  await posted.body?.cancel();

  // Carol's server goes down; the worker runs the job after the actor left the cache (5 min).
  down = true;
  worker.clock.advance(6 * 60_000);
  await worker.rookery.drain();
  t.ok(served.includes('down /users/carol'), 'the job asked for the actor again');
  t.equal(await worker.core.storage.statuses.findByUri(note), null, 'nothing stored yet');
  const waiting = await worker.core.queue.nextDue();
  t.ok(waiting !== null && waiting > worker.clock.now(), 'the job waits for its retry instead of being dropped');

  down = false;
  worker.clock.advance(60 * 60_000);
  await worker.rookery.drain();
  const stored = await worker.core.storage.statuses.findByUri(note);
  t.equal(stored?.content, '<p>hello from afar</p>', 'applied once carol answers again');
});
