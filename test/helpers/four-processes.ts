// One instance as four processes, the way the README's deployment runs it: two web processes,
// one streaming process and one worker, sharing one store (the SQLite file in DATA_DIR, or the
// PostgreSQL database of DATABASE_URL) and one Redis. A status published through web A reaches
// a WebSocket client of the streaming process and the home timeline read through web B; a
// favourite through B notifies over the stream; a scheduled status is published once; and a
// kill -9 of web A under a write load loses no write it had acknowledged. Every status, favourite,
// notification and stream event arrives exactly once. test/e2e/processes*.test.ts run it on
// each engine.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { childEnv, freePort } from './processes.ts';
import { dropPrefix, SHARED_REDIS, testPrefix } from './redis.ts';
import { cli, killInstance, startInstance, stopInstance, type Instance } from './standalone.ts';
import { WsReader } from './uws.ts';

interface Answer {
  status: number;
  body: any;
}

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const send = () => fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  let res: Response;
  try {
    res = await send();
  } catch (err) {
    // A kept-alive connection the server closed as idle while this loaded client had not
    // noticed yet: a GET is sent again, as browsers do; a write never is.
    if (method !== 'GET' || (err as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw err;
    res = await send();
  }
  return { status: res.status, body: await res.json() };
}

/** The scenario, on the store `store` names (extra environment, e.g. DATABASE_URL; none: SQLite). */
export async function fourProcesses(t: Test, store: Record<string, string>): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rookery-processes-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  // REDIS_NAMESPACE is the prefix without its colon.
  const prefix = testPrefix('processes');
  const namespace = prefix.slice(0, -1);
  t.teardown(() => dropPrefix(prefix));
  const running: Instance[] = [];
  t.teardown(async () => {
    for (const instance of running) await stopInstance(instance);
  });
  const start = async (env: NodeJS.ProcessEnv, ready: string): Promise<Instance> => {
    const instance = await startInstance(env, ready);
    running.push(instance);
    return instance;
  };

  const [portA, portB, streamingPort] = [await freePort(), await freePort(), await freePort()];
  // What every process of the instance is told alike: where the data is, what Redis, its name.
  const common = childEnv({
    DATA_DIR: dataDir,
    ...store,
    BIND: '127.0.0.1',
    REDIS_URL: SHARED_REDIS,
    REDIS_NAMESPACE: namespace,
    LOCAL_DOMAIN: `localhost:${portA}`,
    LOCAL_HTTPS: 'false',
    STREAMING_API_BASE_URL: `ws://localhost:${streamingPort}`,
    LOG_LEVEL: 'warn',
  });
  const created = (name: string) => /\(id (\d+)\)/.exec(cli(common, 'accounts', 'create', name, '--email', `${name}@example.com`, '--password', 'a long password'))?.[1] ?? '';
  const aliceId = created('alice');
  const bobId = created('bob');
  const alice = cli(common, 'tokens', 'issue', 'alice', '--scopes', 'read write follow');
  const bob = cli(common, 'tokens', 'issue', 'bob', '--scopes', 'read write follow');

  // The worker runs an hour ahead, so that a status scheduled minutes ahead is due for it
  // at once (the web processes, on the real clock, accept only times at least 5 minutes ahead).
  await start({ ...common, ROOKERY_ROLE: 'worker', ROOKERY_TEST_CLOCK_OFFSET_MS: String(3_600_000) }, 'Rookery worker is up');
  await start({ ...common, ROOKERY_ROLE: 'streaming', STREAMING_PORT: String(streamingPort) }, 'Rookery streaming is up');
  const webA = await start({ ...common, ROOKERY_ROLE: 'web', PORT: String(portA) }, 'Rookery is up');
  await start({ ...common, ROOKERY_ROLE: 'web', PORT: String(portB) }, 'Rookery is up');
  const a = `http://127.0.0.1:${portA}`;
  const b = `http://127.0.0.1:${portB}`;

  const followed = await call(a, bob, 'POST', `/api/v1/accounts/${aliceId}/follow`);
  t.same([followed.status, followed.body.following], [200, true], 'bob follows alice through A');

  // Subscribed through the streaming process; sync() returns once the subscription stands
  // (in Redis too: the presence the worker checks before rendering).
  const open = async (token: string) => {
    const reader = await WsReader.open(`ws://127.0.0.1:${streamingPort}/api/v1/streaming?access_token=${token}`);
    reader.send({ type: 'subscribe', stream: 'user' });
    await reader.sync();
    t.teardown(() => reader.socket.close());
    return reader;
  };
  const bobStream = await open(bob);
  const aliceStream = await open(alice);

  await t.test('publish through A: on the stream of the streaming process, in home through B', async (t) => {
    const published = await call(a, alice, 'POST', '/api/v1/statuses', { status: 'across processes' });
    t.equal(published.status, 200);
    await bobStream.until((r) => r.names().includes(`update ${published.body.id}`), 'the status on bob\'s stream');
    const update = bobStream.messages.find((m) => m.event === 'update' && JSON.parse(m.payload).id === published.body.id);
    t.same(update.stream, ['user']);
    t.equal(JSON.parse(update.payload).content, '<p>across processes</p>');
    const home = await call(b, bob, 'GET', '/api/v1/timelines/home');
    t.equal(home.status, 200);
    t.equal(home.body[0]?.id, published.body.id, 'the home timeline read through B');
    await bobStream.sync();
    t.equal(bobStream.messages.filter((m) => m.event === 'update' && JSON.parse(m.payload).id === published.body.id).length, 1, 'streamed once');
  });

  await t.test('favourite through B: the author is notified over the stream', async (t) => {
    const status = await call(a, alice, 'POST', '/api/v1/statuses', { status: 'like me' });
    const favourited = await call(b, bob, 'POST', `/api/v1/statuses/${status.body.id}/favourite`);
    t.same([favourited.status, favourited.body.favourited, favourited.body.favourites_count], [200, true, 1]);
    const about = (m: any) => m.event === 'notification' && JSON.parse(m.payload).status?.id === status.body.id;
    await aliceStream.until((r) => r.messages.some(about), 'the notification');
    const notification = JSON.parse(aliceStream.messages.find(about).payload);
    t.same([notification.type, notification.account.id], ['favourite', bobId]);
    await aliceStream.sync();
    t.equal(aliceStream.messages.filter(about).length, 1, 'notified once on the stream');
    const listed = await call(b, alice, 'GET', '/api/v1/notifications?types[]=favourite');
    t.same(listed.body.filter((n: any) => n.status?.id === status.body.id).map((n: any) => n.account.id), [bobId], 'and once in the notifications');
    const counted = await call(a, alice, 'GET', `/api/v1/statuses/${status.body.id}`);
    t.equal(counted.body.favourites_count, 1, 'counted once');
  });

  await t.test('a scheduled status is published once', async (t) => {
    const at = new Date(Date.now() + 6 * 60_000).toISOString();
    const scheduled = await call(a, alice, 'POST', '/api/v1/statuses', { status: 'later, once', scheduled_at: at });
    t.equal(scheduled.status, 200);
    t.equal(scheduled.body.params.text, 'later, once');
    const isIt = (m: any) => m.event === 'update' && JSON.parse(m.payload).content === '<p>later, once</p>';
    await bobStream.until((r) => r.messages.some(isIt), 'the scheduled status on bob\'s stream');
    const statuses = await call(b, bob, 'GET', `/api/v1/accounts/${aliceId}/statuses?limit=40`);
    t.equal(statuses.body.filter((s: any) => s.content === '<p>later, once</p>').length, 1, 'one status, published by the worker');
    const left = await call(b, alice, 'GET', '/api/v1/scheduled_statuses');
    t.same(left.body, [], 'no longer scheduled');
    // Its stream event came once: the job ran once.
    await bobStream.sync();
    t.equal(bobStream.messages.filter(isIt).length, 1);
  });

  await t.test('kill -9 of web A under load: every acknowledged write stays, notified once', async (t) => {
    const acknowledged: { id: string; via: string }[] = [];
    let killed = false;
    let killing: Promise<void> | null = null;
    // Four writers on each web process; A is killed once it acknowledged 40 writes.
    const writer = async (base: string, label: string, count: number) => {
      for (let i = 0; i < count; i++) {
        if (base === a && killed) return;
        try {
          const res = await call(base, alice, 'POST', '/api/v1/statuses', { status: `@bob load ${label} ${i}` });
          if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
          acknowledged.push({ id: res.body.id, via: base });
          if (base === a && !killed && acknowledged.filter((w) => w.via === a).length >= 40) {
            killed = true;
            killing = killInstance(webA);
          }
        } catch (err) {
          // Only A may fail, and only once it is being killed: its writes were not acknowledged.
          if (base !== a || !killed) throw err;
          return;
        }
      }
    };
    const writers: Promise<void>[] = [];
    for (let w = 0; w < 4; w++) writers.push(writer(a, `a${w}`, 1000), writer(b, `b${w}`, 25));
    await Promise.all(writers);
    await killing;
    t.ok(killed, 'A was killed mid-load');
    const viaA = acknowledged.filter((w) => w.via === a).length;
    t.ok(viaA >= 40, `${viaA} writes acknowledged by A before it died, ${acknowledged.length - viaA} by B`);

    for (const { id } of acknowledged) {
      const read = await call(b, bob, 'GET', `/api/v1/statuses/${id}`);
      if (read.status !== 200) t.fail(`acknowledged status ${id} is gone (${read.status})`);
    }
    t.pass(`all ${acknowledged.length} acknowledged statuses read back through B`);

    // Each one mentions bob: the worker notifies him of each, exactly once.
    const mentioned = new Set(acknowledged.map((w) => w.id));
    const notifiedOf = (r: WsReader) => new Set(r.messages.filter((m) => m.event === 'notification').map((m) => JSON.parse(m.payload).status?.id));
    await bobStream.until((r) => [...mentioned].every((id) => notifiedOf(r).has(id)), 'a mention notification for every acknowledged write');
    // On bob's stream, each acknowledged status once as an update and once as a notification.
    await bobStream.sync();
    const times = (event: string, id: string) => bobStream.messages.filter((m) => m.event === event && (event === 'update' ? JSON.parse(m.payload).id : JSON.parse(m.payload).status?.id) === id).length;
    t.same([...mentioned].filter((id) => times('update', id) !== 1), [], 'each status streamed once');
    t.same([...mentioned].filter((id) => times('notification', id) !== 1), [], 'each mention notified once on the stream');
    const seen = new Map<string, number>();
    let after: string | null = null;
    for (;;) {
      const page = await call(b, bob, 'GET', `/api/v1/notifications?types[]=mention&limit=80${after === null ? '' : `&max_id=${after}`}`);
      if (page.body.length === 0) break;
      for (const n of page.body) seen.set(n.status.id, (seen.get(n.status.id) ?? 0) + 1);
      after = page.body[page.body.length - 1].id;
    }
    t.same([...mentioned].filter((id) => seen.get(id) !== 1), [], 'one notification per acknowledged write');
  });
}
