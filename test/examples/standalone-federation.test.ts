// The standalone instance's federation settings and the operator CLI's relays (`npm run
// rookery -- relays …`), run as processes on a DATA_DIR, as operators run them: exact output and
// exit codes; then with the server running in secure mode (AUTHORIZED_FETCH=true), unsigned
// fetches refused and signed ones answered, a relay subscribed from the CLI gets the server's
// Follow and its Accept makes the subscription live, and `relays remove` makes the server send
// the Undo. The relay is written here (test/helpers/ap-peer.ts), on loopback, with its own
// signatures.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startPeer, type Peer } from '../helpers/ap-peer.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { cli, runCli, startInstance, stopInstance } from '../helpers/standalone.ts';
import { readSettings } from '../../examples/standalone/env.ts';
import { eventually } from '../helpers/eventually.ts';

t.setTimeout(180_000);
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

const dataDir = mkdtempSync(join(tmpdir(), 'rookery-relays-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const port = await freePort();
const env = childEnv({
  DATA_DIR: dataDir,
  PORT: String(port),
  BIND: '127.0.0.1',
  STREAMING_PORT: String(await freePort()),
  ALLOW_PRIVATE_ADDRESS: 'true',
  AUTHORIZED_FETCH: 'true',
  FEDERATION_FIRST_KNOCK: 'draft-cavage-http-signatures-12',
  LOG_LEVEL: 'warn',
});
const base = `http://localhost:${port}`;

const run = (...args: string[]) => {
  const result = runCli(env, 'relays', ...args);
  return { code: result.status, out: result.stdout, err: result.stderr };
};

t.test('the settings', async (t) => {
  t.strictSame(readSettings({}).federation, { enabled: true, allowPrivateAddress: false, authorizedFetch: false, firstKnock: 'draft-cavage-http-signatures-12' }, 'the defaults');
  t.strictSame(readSettings({ AUTHORIZED_FETCH: 'true', FEDERATION_FIRST_KNOCK: 'rfc9421' }).federation, { enabled: true, allowPrivateAddress: false, authorizedFetch: true, firstKnock: 'rfc9421' });
  t.throws(() => readSettings({ FEDERATION_FIRST_KNOCK: 'cavage' }), { message: 'FEDERATION_FIRST_KNOCK must be draft-cavage-http-signatures-12 or rfc9421, got "cavage"' });
});

t.test('secure mode and relays from the CLI, with a running server', async (t) => {
  t.strictSame(run('list'), { code: 0, out: 'No relays.\n', err: '' });
  t.strictSame(run('add', 'relay.example/inbox'), { code: 1, out: '', err: 'A relay is named by the http(s) URL of its inbox\n' });
  t.strictSame(run('remove', 'https://relay.example/inbox'), { code: 1, out: '', err: 'Not subscribed to https://relay.example/inbox.\n' });
  const missing = run('add');
  t.equal(missing.code, 2);
  t.match(missing.err, /^Which relay\? relays add needs the URL of its inbox\.\nUsage: npm run rookery/);
  const unknown = run('frobnicate');
  t.equal(unknown.code, 2);
  t.match(unknown.err, /^Unknown command: relays frobnicate\nUsage: npm run rookery/);

  let answered: (status: number) => void = () => undefined;
  const accepted = new Promise<number>((done) => (answered = done));
  const relay: Peer = await startPeer({
    actors: [{ name: 'relay', path: '/actor', type: 'Application' }],
    async onDelivery(delivery, verdict) {
      const activity = delivery.activity;
      if (!verdict.ok || activity.type !== 'Follow' || activity.object !== PUBLIC) return;
      const follower = await relay.get(activity.actor, 'relay');
      const res = await relay.post('relay', follower.json.endpoints?.sharedInbox ?? follower.json.inbox, { '@context': 'https://www.w3.org/ns/activitystreams', id: `${relay.actor('relay')}#accept`, type: 'Accept', actor: relay.actor('relay'), object: activity });
      answered(res.status);
    },
  });
  t.teardown(() => relay.close());
  const inbox = `${relay.origin}/inbox`;

  cli(env, 'accounts', 'create', 'alice', '--email', 'alice@example.com', '--password', 'a long password');
  const instance = await startInstance(env);
  t.teardown(() => stopInstance(instance));
  // AUTHORIZED_FETCH=true: an actor only to a signed fetch; the instance actor to anyone.
  t.strictSame(await relay.get(`${base}/users/alice`, null).then((r) => ({ status: r.status, json: r.json })), { status: 401, json: { error: 'Request not signed' } });
  t.equal((await relay.get(`${base}/users/alice`, 'relay')).json?.preferredUsername, 'alice', 'answered when signed');
  t.equal((await relay.get(`${base}/actor`, null)).status, 200);

  t.strictSame(run('add', inbox), { code: 0, out: `Subscribing to ${inbox}: the server sends the Follow.\n`, err: '' });
  const follow = await relay.delivery((a) => a.type === 'Follow');
  t.strictSame({ ok: follow.verdict.ok, keyId: follow.verdict.keyId }, { ok: true, keyId: `${base}/actor#main-key` }, 'the server sent it, signed by its instance actor');
  t.equal(await accepted, 202, 'the relay\'s Accept was taken');
  const listed = await eventually(async () => run('list').out, (out) => out.includes('accepted'), 'the relay accepted');
  t.match(listed, new RegExp(`^${inbox}  accepted  \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\n$`));
  t.strictSame(run('add', inbox), { code: 0, out: `Already subscribed to ${inbox} (accepted): the Follow is sent again.\n`, err: '' });

  t.strictSame(run('remove', inbox), { code: 0, out: `Unsubscribed from ${inbox}.\n`, err: '' });
  const undo = await relay.delivery((a) => a.type === 'Undo');
  t.ok(undo.verdict.ok, 'the server sent the Undo');
  t.match(undo.delivery.activity, { object: { type: 'Follow', object: PUBLIC } });
  t.strictSame(run('list'), { code: 0, out: 'No relays.\n', err: '' });
});
