// The render cache across processes and restarts: two web processes of one instance share a
// store (a SQLite file, then a PostgreSQL database) and Redis, each keeping its own rendered
// fragments. A write acknowledged by one is seen by the next read of the other, for every reader,
// with no wait: counts, edits, profile changes, deletes, each reader's own flags; and the
// signed-in path's facts: a block, a mute and a revoked token take effect at once in the other
// process. Then one process restarts and reads the same.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { childEnv, freePort } from '../helpers/processes.ts';
import { testPostgres } from '../helpers/postgres.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from '../helpers/redis.ts';
import { cli, startInstance, stopInstance, type Instance } from '../helpers/standalone.ts';

t.setTimeout(300_000);

interface Answer {
  status: number;
  body: any;
}

async function call(base: string, token: string | null, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = token === null ? {} : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() };
}

async function twoProcesses(t: Test, store: Record<string, string>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rookery-render-cache-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const prefix = testPrefix('render-cache');
  t.teardown(() => dropPrefix(prefix));
  const running = new Set<Instance>();
  t.teardown(async () => {
    for (const instance of running) await stopInstance(instance);
  });
  const [portA, portB] = [await freePort(), await freePort()];
  const common = childEnv({
    DATA_DIR: dataDir,
    ...store,
    BIND: '127.0.0.1',
    REDIS_URL: SHARED_REDIS,
    REDIS_NAMESPACE: prefix.slice(0, -1),
    LOCAL_DOMAIN: `localhost:${portA}`,
    LOCAL_HTTPS: 'false',
    LOG_LEVEL: 'warn',
  });
  const start = async (port: number) => {
    const instance = await startInstance({ ...common, ROOKERY_ROLE: 'web', PORT: String(port) }, 'Rookery is up');
    running.add(instance);
    return instance;
  };
  const created = (name: string) => /\(id (\d+)\)/.exec(cli(common, 'accounts', 'create', name, '--email', `${name}@example.com`, '--password', 'a long password'))?.[1] ?? '';
  const aliceId = created('alice');
  created('bob');
  created('carol');
  const alice = cli(common, 'tokens', 'issue', 'alice', '--scopes', 'read write follow');
  const bob = cli(common, 'tokens', 'issue', 'bob', '--scopes', 'read write follow');
  const carol = cli(common, 'tokens', 'issue', 'carol', '--scopes', 'read write follow');
  await start(portA);
  let webB = await start(portB);
  const a = `http://127.0.0.1:${portA}`;
  const b = `http://127.0.0.1:${portB}`;
  const readers: [string, string | null][] = [
    ['anonymous', null],
    ['bob', bob],
    ['carol', carol],
  ];

  /** The status as `token` sees it through `base`: itself, in the public timeline, in the batch read. */
  const seen = async (base: string, token: string | null, id: string): Promise<any[]> => {
    const single = await call(base, token, 'GET', `/api/v1/statuses/${id}`);
    const timeline = await call(base, token, 'GET', '/api/v1/timelines/public?limit=40');
    const batch = await call(base, token, 'GET', `/api/v1/statuses?id[]=${id}`);
    return [single.status === 200 ? single.body : null, timeline.body.find((s: any) => s.id === id) ?? null, batch.body.find((s: any) => s.id === id) ?? null];
  };
  /** Every reader reads through both processes: each keeps its fragments. */
  const warm = async (id: string) => {
    for (const [, token] of readers) for (const base of [a, b]) await seen(base, token, id);
  };

  const status = (await call(a, alice, 'POST', '/api/v1/statuses', { status: 'version one' })).body;
  await warm(status.id);

  await t.test('a favourite and a bookmark through A: counts and flags through B at once', async (t) => {
    t.equal((await call(a, bob, 'POST', `/api/v1/statuses/${status.id}/favourite`)).status, 200);
    t.equal((await call(a, carol, 'POST', `/api/v1/statuses/${status.id}/bookmark`)).status, 200);
    for (const [name, token] of readers) {
      for (const json of await seen(b, token, status.id)) {
        t.equal(json.favourites_count, 1, `${name}: the count`);
        if (token !== null) t.same([json.favourited, json.bookmarked], [token === bob, token === carol], `${name}: own flags only`);
      }
    }
    t.equal((await call(b, bob, 'POST', `/api/v1/statuses/${status.id}/unfavourite`)).status, 200);
    for (const [name, token] of readers) for (const json of await seen(a, token, status.id)) t.equal(json.favourites_count, 0, `${name}: the count back through A`);
  });

  await t.test('an edit and a profile change through B: the new text and name through A at once', async (t) => {
    t.equal((await call(b, alice, 'PUT', `/api/v1/statuses/${status.id}`, { status: 'version two' })).status, 200);
    t.equal((await call(b, alice, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: 'Alice Two' })).status, 200);
    for (const [name, token] of readers) {
      for (const json of await seen(a, token, status.id)) t.same([json.content, json.account.display_name], ['<p>version two</p>', 'Alice Two'], `${name}: as stored`);
    }
  });

  await t.test('a block, a mute and a revocation through A take effect in B at once', async (t) => {
    const other = (await call(a, alice, 'POST', '/api/v1/statuses', { status: 'seen until blocked' })).body;
    await warm(other.id);
    t.equal((await call(a, alice, 'POST', `/api/v1/accounts/${aliceId}/block`)).status, 403, 'no blocking oneself');
    const bobId = (await call(a, bob, 'GET', '/api/v1/accounts/verify_credentials')).body.id;
    t.equal((await call(a, alice, 'POST', `/api/v1/accounts/${bobId}/block`)).status, 200);
    const blocked = await call(b, bob, 'GET', `/api/v1/statuses/${other.id}`);
    t.equal(blocked.status, 404, 'blocked by the author: gone for bob through B');
    t.equal((await call(b, bob, 'GET', '/api/v1/timelines/public?limit=40')).body.some((s: any) => s.id === other.id), false, 'and from his timeline');
    t.equal((await call(b, carol, 'GET', `/api/v1/statuses/${other.id}`)).status, 200, 'carol still sees it');
    t.equal((await call(a, carol, 'POST', `/api/v1/accounts/${aliceId}/mute`)).status, 200);
    t.equal((await call(b, carol, 'GET', '/api/v1/timelines/public?limit=40')).body.some((s: any) => s.id === other.id), false, 'muted: gone from carol\'s timeline through B');
    t.equal((await call(a, alice, 'POST', `/api/v1/accounts/${bobId}/unblock`)).status, 200);
    t.equal((await call(a, carol, 'POST', `/api/v1/accounts/${aliceId}/unmute`)).status, 200);
    t.equal((await call(b, bob, 'GET', `/api/v1/statuses/${other.id}`)).status, 200, 'unblocked: back for bob through B');
    t.equal((await call(b, carol, 'GET', '/api/v1/timelines/public?limit=40')).body.some((s: any) => s.id === other.id), true, 'unmuted: back in carol\'s timeline through B');

    // A token of an application, revoked through A, is refused by B on its next request.
    const app = (await call(a, null, 'POST', '/api/v1/apps', { client_name: 'Revoker', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' })).body;
    const grant = await fetch(`${a}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'password', username: 'carol@example.com', password: 'a long password', client_id: app.client_id, client_secret: app.client_secret, scope: 'read' }),
    });
    const token = ((await grant.json()) as { access_token: string }).access_token;
    t.equal((await call(b, token, 'GET', `/api/v1/statuses/${status.id}`)).status, 200, 'the new token works through B');
    const revoked = await fetch(`${a}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, client_id: app.client_id, client_secret: app.client_secret }) });
    t.equal(revoked.status, 200);
    const refused = await call(b, token, 'GET', `/api/v1/statuses/${status.id}`);
    t.same([refused.status, refused.body], [401, { error: 'The access token is invalid' }], 'refused through B at once');
  });

  await t.test('a delete through A: gone through B; and after B restarts, everything as stored', async (t) => {
    const doomed = (await call(a, alice, 'POST', '/api/v1/statuses', { status: 'about to go' })).body;
    await warm(doomed.id);
    t.equal((await call(a, alice, 'DELETE', `/api/v1/statuses/${doomed.id}`)).status, 200);
    for (const [name, token] of readers) t.same(await seen(b, token, doomed.id), [null, null, null], `${name}: gone through B`);

    await stopInstance(webB);
    running.delete(webB);
    // Changed while B is down: B starts with nothing kept and reads it as stored.
    t.equal((await call(a, carol, 'POST', `/api/v1/statuses/${status.id}/favourite`)).status, 200);
    webB = await start(portB);
    for (const [name, token] of readers) {
      for (const json of await seen(b, token, status.id)) {
        t.same([json.content, json.favourites_count], ['<p>version two</p>', 1], `${name}: after the restart`);
        if (token !== null) t.same([json.favourited, json.bookmarked], [token === carol, token === carol], `${name}: own flags after the restart`);
      }
      t.same(await seen(b, token, doomed.id), [null, null, null], `${name}: still gone`);
    }
  });
}

t.test('two web processes on one SQLite file and Redis', (t) => twoProcesses(t, {}));

t.test('two web processes on one PostgreSQL database and Redis', async (t) => {
  const postgres = await testPostgres(t.teardown.bind(t));
  await twoProcesses(t, { DATABASE_URL: postgres.url });
});
