// No side effect of an acknowledged write is lost to a crash: the standalone instance takes a
// write load (mentions and favourites, each of which must notify the author) and is killed
// with SIGKILL at random moments, twelve times, restarting on the same data each time. At the
// end the store is opened here, the jobs left behind run to completion, and every write that
// was acknowledged has its notification, exactly once.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createInProcessBus } from '../../core/domain/bus.ts';
import { createNodeSecrets } from '../../adapters/node/secrets.ts';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import { resolveConfig } from '../../core/domain/config.ts';
import type { Notification } from '../../core/domain/model.ts';
import { createRookery } from '../../core/mastodon/rookery.ts';
import { standalonePlugins } from '../../examples/standalone/plugins.ts';
import { TestClock } from '../helpers/harness.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { cli, killInstance, startInstance } from '../helpers/standalone.ts';

t.setTimeout(240_000);
const dataDir = mkdtempSync(join(tmpdir(), 'rookery-crash-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

const CYCLES = 12;
const CONCURRENCY = 8;
const FANS = 6;

/** A small seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

t.test(`${CYCLES} kills under load: every acknowledged write keeps its notification`, async (t) => {
  const port = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), STREAMING_PORT: String(await freePort()), BIND: '127.0.0.1' });
  cli(env, 'accounts', 'create', 'author', '--email', 'author@example.com', '--password', 'a long password');
  const authorToken = cli(env, 'tokens', 'issue', 'author', '--scopes', 'read write');
  const fanTokens: string[] = [];
  for (let i = 0; i < FANS; i++) {
    cli(env, 'accounts', 'create', `fan${i}`, '--email', `fan${i}@example.com`, '--password', 'a long password');
    fanTokens.push(cli(env, 'tokens', 'issue', `fan${i}`, '--scopes', 'read write'));
  }
  const base = `http://127.0.0.1:${port}`;
  const json = { 'content-type': 'application/json' };
  let server = await startInstance(env);
  // Statuses of the author for the fans to favourite: each favourite notifies once.
  const targets: string[] = [];
  for (let i = 0; i < 40; i++) {
    const res = await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers: { ...json, authorization: `Bearer ${authorToken}` }, body: JSON.stringify({ status: `target ${i}` }) });
    targets.push(((await res.json()) as { id: string }).id);
  }

  const mentions = new Set<string>(); // acknowledged status ids that mention the author
  const favourites = new Set<string>(); // acknowledged "fan:status" favourites
  const next = random(20261123);
  let sequence = 0;
  let favouriteCursor = 0;

  /** One write: acknowledged (recorded) only on a 200 that arrived whole. */
  async function write(): Promise<void> {
    const n = sequence++;
    const fan = n % FANS;
    const token = fanTokens[fan] as string;
    try {
      if (n % 3 === 2 && favouriteCursor < targets.length * FANS) {
        const slot = favouriteCursor++;
        const status = targets[slot % targets.length] as string;
        const who = Math.floor(slot / targets.length);
        const res = await fetch(`${base}/api/v1/statuses/${status}/favourite`, { method: 'POST', headers: { authorization: `Bearer ${fanTokens[who]}` } });
        if (res.status === 200) {
          await res.json();
          favourites.add(`${who}:${status}`);
        }
        return;
      }
      const res = await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers: { ...json, authorization: `Bearer ${token}` }, body: JSON.stringify({ status: `@author hello ${n}` }) });
      if (res.status === 200) mentions.add(((await res.json()) as { id: string }).id);
    } catch {
      // In flight when the instance died: never acknowledged, so nothing is owed.
    }
  }

  for (let cycle = 0; cycle < CYCLES; cycle++) {
    const stopAfter = 5 + Math.floor(next() * 60);
    let acknowledged = 0;
    let killing: Promise<void> | null = null;
    const before = () => mentions.size + favourites.size;
    const startCount = before();
    const workers = Array.from({ length: CONCURRENCY }, async () => {
      while (killing === null) {
        await write();
        acknowledged = before() - startCount;
        if (acknowledged >= stopAfter && killing === null) killing = killInstance(server);
      }
    });
    await Promise.all(workers);
    await killing;
    t.ok(acknowledged >= stopAfter, `cycle ${cycle + 1}: killed after ${acknowledged} acknowledged writes`);
    server = await startInstance(env);
  }
  await killInstance(server);

  // Open the same data here, let the lease of whatever the last instance held run out, and run
  // every job left.
  const clock = new TestClock();
  clock.advance(10 * 60_000);
  const rookery = await createRookery({
    config: resolveConfig({ domain: `localhost:${port}`, baseUrl: `http://localhost:${port}` }),
    storage: openSqliteStorage({ path: join(dataDir, 'rookery.sqlite3') }),
    bus: createInProcessBus(),
    clock,
    secrets: createNodeSecrets({ scryptN: 1024 }),
    plugins: standalonePlugins(dataDir),
  });
  await rookery.drain();
  const author = await rookery.core.storage.accounts.findByUsername('author', null);
  const all: Notification[] = [];
  let maxId: string | undefined;
  for (;;) {
    const page = await rookery.core.storage.notifications.list(author?.id ?? '', {}, { maxId, limit: 500 });
    all.push(...page);
    if (page.length < 500) break;
    maxId = page[page.length - 1]?.id;
  }
  const fanIds = new Map<string, number>();
  for (let i = 0; i < FANS; i++) fanIds.set((await rookery.core.storage.accounts.findByUsername(`fan${i}`, null))?.id ?? '', i);
  const mentioned = all.filter((n) => n.type === 'mention').map((n) => n.statusId ?? '');
  const favourited = all.filter((n) => n.type === 'favourite').map((n) => `${fanIds.get(n.fromAccountId)}:${n.statusId}`);
  const missingMentions = [...mentions].filter((id) => !mentioned.includes(id));
  const missingFavourites = [...favourites].filter((key) => !favourited.includes(key));
  t.ok(mentions.size + favourites.size > CYCLES * 5, `${mentions.size} mentions and ${favourites.size} favourites acknowledged`);
  t.strictSame(missingMentions, [], 'every acknowledged mention notified the author');
  t.strictSame(missingFavourites, [], 'every acknowledged favourite notified the author');
  t.equal(new Set(mentioned).size, mentioned.length, 'no mention notified twice');
  t.equal(new Set(favourited).size, favourited.length, 'no favourite notified twice');
  t.equal(await rookery.core.queue.size(), 0, 'no job left behind');
  t.strictSame(await rookery.core.queue.deadLetters(10), [], 'and none died');
  await rookery.close();
});
