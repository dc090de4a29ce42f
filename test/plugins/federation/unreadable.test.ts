// An activity whose sender, or whose object named by URL, cannot be read when its job runs (its
// server down, or too slow for the fetch time limit) is not dropped: the inbox job fails and is
// retried, and the activity is applied once the sender's server answers again. B's web process takes the POST; a worker on
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

t.test('a sender or an object that cannot be read is tried again, not dropped', async (t) => {
  const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const der = Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey as webcrypto.CryptoKey)).toString('base64');
  const publicKeyPem = `-----BEGIN PUBLIC KEY-----\n${(der.match(/.{1,64}/g) ?? []).join('\n')}\n-----END PUBLIC KEY-----\n`;
  let origin = '';
  // Paths answered 503 (all of them while `down`), and the documents served.
  let down = false;
  const failing = new Set<string>();
  const documents = new Map<string, unknown>();
  const served: string[] = [];
  const carol = createServer((req, res) => {
    req.resume();
    const path = req.url ?? '';
    const unavailable = down || failing.has(path);
    served.push(`${unavailable ? 'down' : 'up'} ${path}`);
    if (unavailable) return void res.writeHead(503).end();
    const actor = `${origin}/users/carol`;
    const document = path === '/users/carol' ? { '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: actor, type: 'Person', preferredUsername: 'carol', inbox: `${actor}/inbox`, publicKey: { id: `${actor}#main-key`, owner: actor, publicKeyPem } } : documents.get(path);
    if (document === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/activity+json' });
    res.end(JSON.stringify(document));
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

  const send = async (activity: Record<string, unknown>) => {
    const request = new Request(`${web.core.config.baseUrl}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body: JSON.stringify(activity) });
    const response = await fetch(await signRequest(request, keys.privateKey as Parameters<typeof signRequest>[1], new URL(`${origin}/users/carol#main-key`)));
    await response.body?.cancel();
    return response.status;
  };
  const note = `${origin}/users/carol/statuses/1`;
  const body = ({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${note}/activity`, type: 'Create', actor: `${origin}/users/carol`, to: [PUBLIC], object: { id: note, type: 'Note', attributedTo: `${origin}/users/carol`, to: [PUBLIC], content: '<p>hello from afar</p>', published: '2026-11-24T00:00:00Z' } });
  t.equal(await send(body), 202, 'accepted: the signature checked with the key carol served');

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

  // A Create that names its Note by URL only, which cannot be fetched when the job runs.
  const second = `${origin}/users/carol/statuses/2`;
  documents.set('/users/carol/statuses/2', { '@context': 'https://www.w3.org/ns/activitystreams', id: second, type: 'Note', attributedTo: `${origin}/users/carol`, to: [PUBLIC], content: '<p>named by its address</p>', published: '2026-11-24T00:00:00Z' });
  failing.add('/users/carol/statuses/2');
  t.equal(await send({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${second}/activity`, type: 'Create', actor: `${origin}/users/carol`, to: [PUBLIC], object: second }), 202);
  await worker.rookery.drain();
  t.ok(served.includes('down /users/carol/statuses/2'), 'the job asked for the note');
  t.equal(await worker.core.storage.statuses.findByUri(second), null, 'nothing stored yet');
  failing.clear();
  worker.clock.advance(60 * 60_000);
  await worker.rookery.drain();
  t.equal((await worker.core.storage.statuses.findByUri(second))?.content, '<p>named by its address</p>', 'stored on the retry');
});
