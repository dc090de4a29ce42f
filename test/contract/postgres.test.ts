// The storage contract, the job queue contract and every plugin's storage contract on
// PostgreSQL (the machine's server, or a private one: test/helpers/postgres.ts), then what only
// this adapter promises: its schema versions, migrations raced by two processes, its options.
//
// Each contract test gets a fresh schema of this file's database; `connect` is a second,
// independent pool on it (what a second process would have), so the atomic operations are also
// raced across connections; `reopen` closes the pool and opens the same data again.

import t from 'tap';
import pg from 'pg';
import { openPostgresStorage, SCHEMA_VERSION, type PostgresStorageOptions } from '../../adapters/postgres/index.ts';
import { MIGRATIONS } from '../../adapters/postgres/schema.ts';
import { queueContract, storageContract, type OpenQueue, type OpenStore } from '../../adapters/testing/index.ts';
import { IdSeq, POST, T0, account, application, boost, code, follow, mark, poll, scheduled, status } from '../../adapters/testing/fixtures.ts';
import type { Id } from '../../core/domain/model.ts';
import type { Job } from '../../core/domain/ports/queue.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import { cardStorageContract } from '../../plugins/cards/storage/contract.ts';
import { emojiStorageContract } from '../../plugins/emoji/storage/contract.ts';
import { federationStorageContract } from '../../plugins/federation/storage/contract.ts';
import { mediaStorageContract } from '../../plugins/media/storage/contract.ts';
import { mediaStorage } from '../../plugins/media/storage/index.ts';
import { pollStorageContract } from '../../plugins/polls/storage/contract.ts';
import { pollStorage } from '../../plugins/polls/storage/index.ts';
import { pushStorageContract } from '../../plugins/push/storage/contract.ts';
import { scheduledStorageContract } from '../../plugins/scheduled/storage/contract.ts';
import { scheduledStorage } from '../../plugins/scheduled/storage/index.ts';
import { testPostgres } from '../helpers/postgres.ts';
import { PIN_MAX, hammer, type HammerResult, type HammerSetup } from './sqlite-hammer.ts';

// Some 200 stores, each made from nothing (its whole schema's DDL): longer than the default
// time a test file gets.
t.setTimeout(600_000);

const server = await testPostgres((fn) => t.teardown(fn));

/** Stores on one fresh schema: the first, and any opened later on the same data. */
async function storesOnFreshSchema() {
  const schema = await server.freshSchema();
  const open: Storage[] = [];
  const openOne = async (): Promise<Storage> => {
    const s = await openPostgresStorage({ url: schema.url, pool: 4 });
    open.push(s);
    return s;
  };
  return {
    openOne,
    async cleanup() {
      for (const s of open) await s.close();
      await schema.drop();
    },
  };
}

const openStore: OpenStore = async () => {
  const stores = await storesOnFreshSchema();
  const handle = {
    storage: await stores.openOne(),
    async reopen() {
      await handle.storage.close();
      handle.storage = await stores.openOne();
      return handle.storage;
    },
    connect: stores.openOne,
    cleanup: stores.cleanup,
  };
  return handle;
};

const openQueue: OpenQueue = async () => {
  const stores = await storesOnFreshSchema();
  const first = await stores.openOne();
  return {
    queue: first.jobs,
    connect: async () => (await stores.openOne()).jobs,
    async reopen() {
      await first.close();
      return (await stores.openOne()).jobs;
    },
    cleanup: stores.cleanup,
  };
};

storageContract(t, 'postgres', openStore);
queueContract(t, 'postgres', openQueue);
mediaStorageContract(t, 'postgres', openStore);
pollStorageContract(t, 'postgres', openStore);
scheduledStorageContract(t, 'postgres', openStore);
cardStorageContract(t, 'postgres', openStore);
emojiStorageContract(t, 'postgres', openStore);
pushStorageContract(t, 'postgres', openStore);
federationStorageContract(t, 'postgres', openStore);

// ---- what only the PostgreSQL adapter promises ----------------------------------------------------

async function adminQuery(url: string, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

async function rejection(promise: Promise<unknown>): Promise<string> {
  try {
    const value = await promise;
    if (value !== null && typeof value === 'object' && 'close' in value) await (value as Storage).close();
    return 'no error';
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

t.test('postgres: two pools opening a fresh database at once both succeed, and each migration is applied once', async (t) => {
  const fresh = await server.freshDatabase();
  const [a, b] = await Promise.all([openPostgresStorage({ url: fresh.url }), openPostgresStorage({ url: fresh.url })]);
  try {
    const versions = await adminQuery(fresh.url, 'SELECT version FROM schema_migrations ORDER BY version');
    t.strictSame(versions.map((r) => r['version']), Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1), 'each core version recorded once');
    // Both pools then reach the plugins' migrations at once too.
    await Promise.all([a.extend(mediaStorage).get('1'), b.extend(mediaStorage).get('1')]);
    const media = await adminQuery(fresh.url, "SELECT version FROM extension_migrations WHERE extension = 'media' ORDER BY version");
    t.strictSame(media.map((r) => r['version']), [1], "each of the media plugin's versions recorded once");
    const seq = new IdSeq();
    const alice = account(seq.next());
    await a.accounts.create(alice);
    await b.statuses.create(status(seq.next(), alice.id), POST);
    t.equal((await a.accounts.get(alice.id))?.statusesCount, 1, 'both work on the same tables');
  } finally {
    await a.close();
    await b.close();
  }
});

t.test('postgres: the core creates only its own tables', async (t) => {
  const fresh = await server.freshDatabase();
  const store = await openPostgresStorage({ url: fresh.url });
  await store.close();
  const tables = await adminQuery(fresh.url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
  t.strictSame(
    tables.map((r) => r['tablename']),
    [
      'access_tokens', 'account_activity', 'account_conversation_statuses', 'account_conversations', 'account_notes', 'accounts', 'admin_actions', 'applications', 'authorization_codes', 'blocks',
      'bookmarks', 'conversation_mutes', 'dead_jobs', 'domain_blocks', 'endorsements', 'extension_migrations', 'favourites', 'featured_tags', 'filters',
      'follows', 'idempotency_keys', 'jobs', 'list_members', 'lists', 'markers', 'mutes', 'notification_permissions', 'notification_policies',
      'notification_requests', 'notifications', 'pins', 'quote_policies', 'quotes', 'reports', 'schema_migrations', 'server_blocks', 'status_edits', 'status_mentions', 'status_tags', 'statuses',
      'suggestion_dismissals', 'tag_follows', 'users', 'web_sessions',
    ],
    'no media, polls, scheduled, cards, push or federation table',
  );
  t.equal(MIGRATIONS.length, SCHEMA_VERSION);
});

t.test("postgres: the replies' and the boosts' indexes hold only replies and boosts", async (t) => {
  const fresh = await server.freshDatabase();
  await (await openPostgresStorage({ url: fresh.url })).close();
  const indexes = await adminQuery(fresh.url, "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname IN ('statuses_reply', 'statuses_reblog') ORDER BY indexname");
  t.strictSame(indexes.map((r) => r['indexdef']), [
    'CREATE INDEX statuses_reblog ON public.statuses USING btree (reblog_of_id, id) WHERE ((reblog_of_id IS NOT NULL) AND (deleted_at IS NULL))',
    'CREATE INDEX statuses_reply ON public.statuses USING btree (in_reply_to_id, id) WHERE ((in_reply_to_id IS NOT NULL) AND (deleted_at IS NULL))',
  ]);
  // The adapter's queries on these columns each ask for a value, never NULL: the planner can
  // prove the indexes' condition from them, even in a plan made for any parameter. (Shown on
  // 5,000 statuses, a tenth of them replies and a seventh boosts: on an empty table any plan
  // costs the same.)
  const client = new pg.Client({ connectionString: fresh.url });
  await client.connect();
  try {
    await client.query(`INSERT INTO statuses (id, account_id, local, text, content, spoiler_text, sensitive, visibility, in_reply_to_id, reblog_of_id,
        conversation_id, mention_ids, tags, media_ids, has_media, created_at, replies_count, reblogs_count, favourites_count)
      SELECT g, 1, true, '', '', '', false, 'public', CASE WHEN g % 10 = 0 THEN g - 1 END, CASE WHEN g % 7 = 0 THEN g - 3 END,
        g, '[]', '[]', '[]', false, g, 0, 0, 0 FROM generate_series(10, 5009) AS g`);
    await client.query('ANALYZE statuses');
    await client.query('SET enable_seqscan = off');
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query('PREPARE replies(bigint[]) AS SELECT id FROM statuses WHERE deleted_at IS NULL AND in_reply_to_id = ANY($1::bigint[]) ORDER BY id');
    await client.query('PREPARE boosts(bigint) AS SELECT id FROM statuses WHERE reblog_of_id = $1 AND deleted_at IS NULL');
    const plan = async (sql: string) => (await client.query(sql)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
    t.match(await plan("EXPLAIN (COSTS OFF) EXECUTE replies('{1,2}')"), /Index Only Scan using statuses_reply on statuses/);
    t.match(await plan('EXPLAIN (COSTS OFF) EXECUTE boosts(1)'), /Index (Only )?Scan using statuses_reblog on statuses/);
  } finally {
    await client.end();
  }
});

t.test('postgres: a database written by a newer Rookery is refused, by name', async (t) => {
  const fresh = await server.freshDatabase();
  await (await openPostgresStorage({ url: fresh.url })).close();
  await adminQuery(fresh.url, 'INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 0)', [SCHEMA_VERSION + 1]);
  t.equal(
    await rejection(openPostgresStorage({ url: fresh.url })),
    `Error: the PostgreSQL database "${fresh.database}" has schema version ${SCHEMA_VERSION + 1}, written by a newer Rookery; this Rookery knows versions up to ${SCHEMA_VERSION}`,
  );

  const other = await server.freshDatabase();
  await (await openPostgresStorage({ url: other.url })).close();
  await adminQuery(other.url, "INSERT INTO extension_migrations (extension, version, applied_at) VALUES ('media', 7, 0)");
  const store = await openPostgresStorage({ url: other.url });
  try {
    t.equal(
      await rejection(store.extend(mediaStorage).get('1')),
      `Error: the PostgreSQL database "${other.database}" has version 7 of the "media" storage, written by a newer version of the plugin; this one knows versions up to 1`,
      "a plugin's storage from a newer version of the plugin is refused too",
    );
  } finally {
    await store.close();
  }
});

t.test('postgres: options are checked, each refusal naming its option', async (t) => {
  const cases: [unknown, string][] = [
    [{ url: server.url, poool: 3 }, 'unknown option "poool"'],
    [{}, '"url" is required'],
    [{ url: 'mysql://someone:secret@localhost/x' }, '"url" must be a postgres:// or postgresql:// URL, got another string'],
    [{ url: 'not a url' }, '"url" must be a postgres:// or postgresql:// URL, got another string'],
    [{ url: server.url, pool: 0 }, '"pool" must be a whole number from 1 to 1000, got 0'],
    [{ url: server.url, pool: 2.5 }, '"pool" must be a whole number from 1 to 1000, got 2.5'],
    [{ url: server.url, pool: '4' }, '"pool" must be a whole number from 1 to 1000, got "4"'],
    [{ url: server.url, statementTimeoutMs: -1 }, '"statementTimeoutMs" must be a whole number of milliseconds from 0 (no limit) to 2147483647, got -1'],
    [{ url: server.url, statementTimeoutMs: null }, '"statementTimeoutMs" must be a whole number of milliseconds from 0 (no limit) to 2147483647, got null'],
    [{ url: server.url, applicationName: 'é' }, '"applicationName" must be at most 63 printable ASCII characters, got "é"'],
    [{ url: server.url, applicationName: 7 }, '"applicationName" must be at most 63 printable ASCII characters, got 7'],
    [null, 'options must be an object, got null'],
  ];
  for (const [options, message] of cases) {
    t.equal(await rejection(openPostgresStorage(options as PostgresStorageOptions)), `ConfigError: Invalid config: openPostgresStorage: ${message}`, message);
  }
  t.equal(
    await rejection(openPostgresStorage({ url: 'postgres://someone:secret@127.0.0.1:1/nowhere' })),
    'Error: could not connect to PostgreSQL at 127.0.0.1:1/nowhere: connect ECONNREFUSED 127.0.0.1:1',
    'a server that does not answer is named, its password not',
  );
  const store = await openPostgresStorage({ url: server.url, pool: 2, statementTimeoutMs: 1234, applicationName: 'rookery-test' });
  try {
    const seq = new IdSeq();
    const alice = account(seq.next());
    await store.accounts.create(alice);
    const sessions = await adminQuery(server.url, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'rookery-test' AND datname = current_database()");
    t.equal(sessions[0]?.['n'], 1, 'applicationName names the connections (one opened so far)');
  } finally {
    await store.close();
  }
});

t.test('postgres: text it cannot hold (U+0000) is refused as a 422, and lookups by it miss', async (t) => {
  const handle = await openStore();
  try {
    const s = handle.storage;
    const seq = new IdSeq();
    const alice = account(seq.next());
    await s.accounts.create(alice);
    const outcome = await s.statuses.create(status(seq.next(), alice.id, { text: 'nul \u0000 inside' }), POST).then(
      () => 'stored',
      (error: unknown) => `${(error as { status?: number }).status} ${(error as Error).message}`,
    );
    t.equal(outcome, '422 Validation failed: text must not contain the NUL character', 'a client error, not a server one');
    t.equal((await s.accounts.get(alice.id))?.statusesCount, 0, 'nothing written');
    t.strictSame(
      [
        await s.accounts.findByUsername(`${alice.username}\u0000`, null),
        await s.accounts.findByUri('https://x.example/\u0000'),
        await s.accounts.findUserByEmail('a\u0000@example.org'),
        await s.statuses.findByUri('https://x.example/\u0000'),
        await s.oauth.findTokenByHash('\u0000'),
        await s.oauth.consumeCode('\u0000', 0),
      ],
      [null, null, null, null, null, null],
      'lookups miss',
    );
  } finally {
    await handle.cleanup();
  }
});

function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('expected a value');
  return value;
}

t.test('postgres: atomic across two pools hammering one database', async (t) => {
  // The SQLite adapter's hammer (sqlite-hammer.ts), on two independent pools at once: they flip
  // the same favourites, follows, boosts and pins, bump one marker and race for once-only
  // things; every counter must then equal what exists, and every once-only thing happen once.
  const stores = await storesOnFreshSchema();
  t.teardown(stores.cleanup);
  const storage = await stores.openOne();
  const other = await stores.openOne();
  const seq = new IdSeq();
  const newAccount = async (): Promise<Id> => {
    const a = account(seq.next());
    await storage.accounts.create(a);
    return a.id;
  };
  const authorId = await newAccount();
  const cyclingFanIds: Id[] = [];
  for (let i = 0; i < 4; i += 1) cyclingFanIds.push(await newAccount());
  const voterIds: Id[] = [];
  for (let i = 0; i < 60; i += 1) voterIds.push(await newAccount());
  const s = status(seq.next(), authorId);
  const p = poll(seq.next(), authorId, s.id);
  await storage.statuses.create({ ...s, pollId: p.id }, POST, { writes: [storage.extend(pollStorage).store(p)] });
  const app = application(seq.next());
  await storage.oauth.createApplication(app);
  const codeHashes: string[] = [];
  for (let i = 0; i < 60; i += 1) {
    const c = code(seq.next(), app.id, authorId);
    await storage.oauth.createCode(c);
    codeHashes.push(c.codeHash);
  }
  const scheduledCount = 60;
  for (let i = 0; i < scheduledCount; i += 1) await storage.extend(scheduledStorage).create(scheduled(seq.next(), authorId, T0 + i));
  const pinTargetIds: Id[] = [];
  for (let i = 0; i < 4; i += 1) {
    const target = status(seq.next(), authorId);
    await storage.statuses.create(target, POST);
    pinTargetIds.push(target.id);
  }
  const idempotencyKeys = Array.from({ length: 60 }, (_, i) => `key-${i}`);
  const rounds = 120;
  const setup: HammerSetup = { authorId, statusId: s.id, pollId: p.id, cyclingFanIds, pinTargetIds, voterIds, codeHashes, idempotencyKeys, rounds, idBase: seq.next() };

  const startAt = Date.now();
  const [mine, theirs] = await Promise.all([hammer(storage, setup, 'parent', startAt), hammer(other, setup, 'child', startAt)]);
  const both = (k: keyof HammerResult) => (mine[k] as number) + (theirs[k] as number);
  const won = (r: HammerResult) => r.favouriteAdded + r.favouriteRemoved + r.followAdded + r.followRemoved + r.boostAdded + r.boostRemoved + r.codes.length + r.claimed.length + r.voted + r.created;
  t.ok(won(mine) > 0 && won(theirs) > 0, 'both pools won contested decisions: their transactions really interleaved');

  const st = must(await storage.statuses.get(s.id));
  const author = must(await storage.accounts.get(authorId));
  const fans = await storage.accounts.getMany(cyclingFanIds);
  const favourites = await storage.interactions.favouritesOf(s.id, { limit: 100 });
  const favourited = both('favouriteAdded') - both('favouriteRemoved');
  t.strictSame([st.favouritesCount, favourites.length], [favourited, favourited], 'favouritesCount = adds - removes = favourites stored');
  const followers = await storage.relationships.followersOf(authorId, { limit: 100 });
  const followed = both('followAdded') - both('followRemoved');
  t.strictSame([author.followersCount, followers.length], [followed, followed], 'followersCount = follows - unfollows = follows stored');
  const following = new Set(followers.map((f) => f.accountId));
  t.strictSame(fans.map((f) => f.followingCount), fans.map((f) => (following.has(f.id) ? 1 : 0)), "each fan's followingCount matches its follow");
  const boosts = await storage.statuses.reblogs(s.id, ['public'], { limit: 100 });
  const boosted = both('boostAdded') - both('boostRemoved');
  t.strictSame([st.reblogsCount, boosts.length], [boosted, boosted], 'reblogsCount = boosts - unboosts = live boosts');
  const boosters = new Set(boosts.map((b) => b.accountId));
  t.equal(boosters.size, boosts.length, 'at most one live boost per fan');
  t.strictSame(fans.map((f) => f.statusesCount), fans.map((f) => (boosters.has(f.id) ? 1 : 0)), "each fan's statusesCount matches its live boost");
  const pins = await storage.interactions.pinsBy(authorId);
  t.ok(pins.length <= PIN_MAX, `never more than ${PIN_MAX} pins (${pins.length})`);
  t.equal(pins.length, both('pinAdded') - both('pinRemoved'), 'pins stored = pins added - pins removed');
  const versions = [...mine.markerVersions, ...theirs.markerVersions].sort((x, y) => x - y);
  t.strictSame(versions, Array.from({ length: 2 * rounds }, (_, i) => i), 'marker versions 0..2*rounds-1, none repeated');
  const pl = must(await storage.extend(pollStorage).get(p.id));
  t.strictSame([both('voted'), pl.votersCount, pl.votesCount, pl.votes.reduce((x, y) => x + y, 0)], Array(4).fill(voterIds.length), 'one vote per voter, poll counts exact');
  const codes = [...mine.codes, ...theirs.codes];
  t.strictSame([codes.length, new Set(codes).size], [codeHashes.length, codeHashes.length], 'every code consumed exactly once');
  const claimed = [...mine.claimed, ...theirs.claimed];
  t.strictSame([claimed.length, new Set(claimed).size], [scheduledCount, scheduledCount], 'every scheduled status claimed exactly once');
  t.equal(both('created'), idempotencyKeys.length, 'one status per idempotency key');
  t.equal(author.statusesCount, 1 + pinTargetIds.length + idempotencyKeys.length, "the author's statusesCount exact");
});

t.test('postgres: jobs of one ordering key run one at a time and in order, with writers and workers on two pools', async (t) => {
  const stores = await storesOnFreshSchema();
  t.teardown(stores.cleanup);
  const pools = [await stores.openOne(), await stores.openOne()];
  const seq = new IdSeq();
  const alice = account(seq.next());
  await must(pools[0]).accounts.create(alice);
  const targets: Id[] = [];
  for (let i = 0; i < 4; i += 1) {
    const s = status(seq.next(), alice.id);
    await must(pools[0]).statuses.create(s, POST);
    targets.push(s.id);
  }
  // Writers: favourites on both pools whose outboxes queue a job under one of three keys.
  const keysUsed = ['k0', 'k1', 'k2'];
  let made = 0;
  const writers = pools.map(async (storage, w) => {
    for (let i = 0; i < 60; i += 1) {
      const orderingKey = keysUsed[(i + w) % keysUsed.length] as string;
      const fan = account(seq.next());
      await storage.accounts.create(fan);
      await storage.interactions.favourite(mark(seq.next(), fan.id, targets[i % targets.length] as Id), () => {
        made += 1;
        return [{ name: 'ordered', payload: { w, i }, orderingKey }];
      });
    }
  });
  // Workers: claim on both pools until every job made was run; a claim that hands out a job
  // whose key is still being run is a violation.
  const running = new Set<string>();
  const ran = new Map<string, Id[]>();
  const violations: string[] = [];
  let done = 0;
  let writing = true;
  const workers = pools.flatMap((storage) =>
    [0, 1].map(async () => {
      while (writing || done < made) {
        const jobs: Job[] = await storage.jobs.claim(T0, 3, 60_000);
        for (const job of jobs) {
          const key = job.orderingKey as string;
          if (running.has(key)) violations.push(`${key}: job ${job.id} handed out while an earlier one ran`);
          running.add(key);
          ran.set(key, [...(ran.get(key) ?? []), job.id]);
        }
        for (const job of jobs) {
          running.delete(job.orderingKey as string);
          await storage.jobs.complete([job.id]);
          done += 1;
        }
      }
    }),
  );
  await Promise.all(writers);
  writing = false;
  await Promise.all(workers);
  t.strictSame(violations, [], 'never two jobs of one key at once');
  t.equal(done, 120, 'every job ran once');
  for (const key of keysUsed) {
    const order = ran.get(key) ?? [];
    t.strictSame(order, [...order].sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)), `${key}: run in enqueue order (${order.length} jobs)`);
  }
  t.equal(await must(pools[1]).jobs.size(), 0, 'nothing left');
});

t.test('postgres: a follow request and its acceptance, raced on two pools, leave the follow and no request', async (t) => {
  const stores = await storesOnFreshSchema();
  t.teardown(stores.cleanup);
  const pools = [await stores.openOne(), await stores.openOne()] as const;
  const seq = new IdSeq();
  const target = account(seq.next());
  await pools[0].accounts.create(target);
  const requesters: Id[] = [];
  for (let i = 0; i < 40; i += 1) {
    const a = account(seq.next());
    await pools[0].accounts.create(a);
    requesters.push(a.id);
  }
  // Whichever comes first, the follow stands: a request after it is 'exists', a follow after
  // the request replaces it.
  const outcomes = await Promise.all(
    requesters.map((requester, i) =>
      Promise.all([
        pools[i % 2 === 0 ? 0 : 1].relationships.requestFollow(follow(seq.next(), requester, target.id)),
        pools[i % 2 === 0 ? 1 : 0].relationships.follow(follow(seq.next(), requester, target.id)),
      ]),
    ),
  );
  t.strictSame(outcomes.filter(([, followed]) => followed !== 'created'), [], 'every follow created');
  t.strictSame(await pools[1].relationships.followRequestsTo(target.id, { limit: 100 }), [], 'no request left beside a follow');
  const followers = await pools[1].relationships.followersOf(target.id, { limit: 100 });
  t.strictSame(followers.map((f) => f.accountId).sort(), [...requesters].sort(), 'each requester follows');
  t.equal((await pools[1].accounts.get(target.id))?.followersCount, 40, 'counted once each');
  t.strictSame((await pools[0].accounts.getMany(requesters)).map((a) => a.followingCount), Array(40).fill(1), 'on both sides');
});

t.test('postgres: edits of one status raced on two pools leave exactly the last edit\'s mentions and tags', async (t) => {
  const stores = await storesOnFreshSchema();
  t.teardown(stores.cleanup);
  const pools = [await stores.openOne(), await stores.openOne()] as const;
  const seq = new IdSeq();
  const people: Id[] = [];
  for (let i = 0; i < 6; i += 1) {
    const a = account(seq.next());
    await pools[0].accounts.create(a);
    people.push(a.id);
  }
  const author = people[0] as Id;
  const s = status(seq.next(), author, { visibility: 'direct' });
  await pools[0].statuses.create(s, POST);
  const patchOf = (mentionIds: Id[], tags: string[], at: number) => ({
    text: 't', content: '<p>t</p>', spoilerText: '', sensitive: false, language: 'en', mentionIds, tags, mediaIds: [], pollId: null, editedAt: at,
  });
  for (let round = 0; round < 15; round += 1) {
    const a = people.slice(1, 1 + (round % 5) + 1);
    const b = people.slice(1 + (round % 3));
    await Promise.all([
      pools[0].statuses.update(s.id, patchOf(a, [`a${round}`, 'both'], T0 + round), []),
      pools[1].statuses.update(s.id, patchOf(b, [`b${round}`, 'both'], T0 + round), []),
    ]);
    const final = must(await pools[0].statuses.get(s.id));
    const mentioned: Id[] = [];
    for (const person of people) {
      const found = await pools[0].statuses.query({ visibilities: [], orMentioning: person }, { limit: 5 });
      if (found.length > 0) mentioned.push(person);
    }
    const tagged: string[] = [];
    for (const tag of [`a${round}`, `b${round}`, 'both']) {
      if ((await pools[1].statuses.query({ visibilities: ['direct'], tag }, { limit: 5 })).length > 0) tagged.push(tag);
    }
    t.strictSame([mentioned, tagged.sort()], [[...final.mentionIds].sort(), [...final.tags].sort()], `round ${round}: what is queryable is the last edit's`);
  }
});

t.test('postgres: a delete raced with boosts on two pools removes exactly the boosts it counted', async (t) => {
  const stores = await storesOnFreshSchema();
  t.teardown(stores.cleanup);
  const pools = [await stores.openOne(), await stores.openOne()] as const;
  const seq = new IdSeq();
  const author = account(seq.next());
  await pools[0].accounts.create(author);
  const boosters: Id[] = [];
  for (let i = 0; i < 8; i += 1) {
    const a = account(seq.next());
    await pools[0].accounts.create(a);
    boosters.push(a.id);
  }
  for (let round = 0; round < 12; round += 1) {
    const s = status(seq.next(), author.id);
    await pools[0].statuses.create(s, POST);
    // Boosts on one pool; the delete on the other, started once the first boost committed.
    const boosting = boosters.map((b) => pools[0].statuses.reblog(boost(seq.next(), b, s)));
    await Promise.race(boosting);
    const deleted = must(await pools[1].statuses.delete(s.id, T0 + round, POST));
    const made = await Promise.all(boosting);
    const live = await pools[1].statuses.reblogs(s.id, ['public', 'unlisted', 'private', 'direct'], { limit: 20 });
    const removed = deleted.boosts.map((b) => b.id);
    t.equal(made.filter((r) => r.created).length, boosters.length, `round ${round}: every boost was made`);
    // Linearizable: the boosts the status counted when it was deleted are exactly those removed
    // with it; any made after the delete stand, as a reblog of a deleted status would.
    t.strictSame([deleted.status.reblogsCount, live.filter((b) => removed.includes(b.id))], [removed.length, []], `round ${round}: counted = removed, none of them live`);
    t.equal(removed.length + live.length, boosters.length, `round ${round}: each boost removed with the status or made after it`);
  }
});
