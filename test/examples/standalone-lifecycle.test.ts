// `npm run rookery -- accounts delete` against a running standalone instance: the CLI marks the
// account and records its jobs in the store; the server's workers remove its statuses and tell
// the follower's server (an independent ActivityPub peer) with the Delete of the actor.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startPeer } from '../helpers/ap-peer.ts';
import { eventually } from '../helpers/eventually.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { cli, startInstance, stopInstance } from '../helpers/standalone.ts';

t.setTimeout(120_000);

const dataDir = mkdtempSync(join(tmpdir(), 'rookery-lifecycle-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
const port = await freePort();
const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), BIND: '127.0.0.1', STREAMING_PORT: String(await freePort()), ALLOW_PRIVATE_ADDRESS: 'true', LOG_LEVEL: 'warn' });
const base = `http://localhost:${port}`;

t.test('the CLI deletes an account a running server then purges and federates', async (t) => {
  const peer = await startPeer({ actors: [{ name: 'bob' }] });
  t.teardown(() => peer.close());
  cli(env, 'accounts', 'create', 'alice', '--email', 'alice@example.com', '--password', 'a long password');
  const token = cli(env, 'tokens', 'issue', 'alice');
  const instance = await startInstance(env);
  t.teardown(() => stopInstance(instance));
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  const bob = peer.actor('bob');
  const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${bob}#follows/1`, type: 'Follow', actor: bob, object: `${base}/users/alice` };
  t.equal((await peer.post('bob', `${base}/users/alice/inbox`, follow)).status, 202);
  await peer.delivery((a) => a.type === 'Accept');
  const posted = (await (await api('POST', '/api/v1/statuses', { status: 'hello' })).json()) as { id: string };

  t.equal(cli(env, 'accounts', 'delete', 'alice'), '@alice is deleted; the server removes its data in the background.');
  const { verdict } = await peer.delivery((a) => a.type === 'Delete' && a.object === `${base}/users/alice`);
  t.equal(verdict.ok, true, "the follower's server got the Delete of the actor, signed");
  t.equal((await api('GET', '/api/v1/accounts/verify_credentials')).status, 401, 'her token is refused');
  const gone = await eventually(
    async () => (await fetch(`http://127.0.0.1:${port}/api/v1/statuses/${posted.id}`)).status,
    (status) => status === 404,
    'her status removed by the server',
  );
  t.equal(gone, 404);
});
