import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Id, Status } from '../../core/domain/model.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import { SCHEMA_VERSION, openSqliteStorage } from '../../adapters/sqlite/index.ts';
import { MIGRATIONS } from '../../adapters/sqlite/schema.ts';
import { openDb, type Db } from '../../adapters/sqlite/db.ts';
import { IdSeq, POST, T0, account, application, boost, code, mark, poll, replyTo, scheduled, status } from '../../adapters/testing/fixtures.ts';
import { PIN_MAX, hammer, type HammerResult, type HammerSetup } from './sqlite-hammer.ts';
import { storageContract } from '../../adapters/testing/index.ts';
import { pollStorage } from '../../plugins/polls/storage/index.ts';
import { scheduledStorage } from '../../plugins/scheduled/storage/index.ts';
import { mediaStorage } from '../../plugins/media/storage/index.ts';
import { media } from '../../adapters/testing/fixtures.ts';
import { endsWithTest } from '../helpers/processes.ts';

/** Version 1 of the schema as released, the plugins' tables included (see schema.ts). */
const RELEASED_V1 = readFileSync(fileURLToPath(new URL('../fixtures/sqlite/schema-v1.sql', import.meta.url)), 'utf8');

function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('expected a value');
  return value;
}

const dir = mkdtempSync(join(tmpdir(), 'rookery-sqlite-contract-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

storageContract(t, 'sqlite file', async () => {
  files += 1;
  const path = join(dir, `store-${files}.db`);
  const open: Storage[] = [];
  const openOne = (): Storage => {
    const s = openSqliteStorage({ path });
    open.push(s);
    return s;
  };
  const handle = {
    storage: openOne(),
    async reopen() {
      await handle.storage.close();
      handle.storage = openOne();
      return handle.storage;
    },
    async connect() {
      return openOne();
    },
    async cleanup() {
      for (const s of open) await s.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
    },
  };
  return handle;
});

storageContract(t, 'sqlite :memory:', async () => {
  const storage = openSqliteStorage({ path: ':memory:', synchronous: 'normal' });
  return { storage, cleanup: () => storage.close() };
});

// ---- what only the SQLite adapter promises ------------------------------------------------------

t.test('sqlite: pragmas of every connection', async (t) => {
  const path = join(dir, 'pragmas.db');
  const pragma = (db: Db, name: string) => Object.values(must(db.get(`PRAGMA ${name}`)))[0];
  const db = openDb({ path });
  t.strictSame(
    ['journal_mode', 'synchronous', 'foreign_keys', 'busy_timeout'].map((p) => pragma(db, p)),
    ['wal', 2n, 1n, 5000n],
    'WAL, synchronous=FULL by default, foreign keys on, busy timeout 5 s',
  );
  db.close();
  const fast = openDb({ path, synchronous: 'normal' });
  t.equal(pragma(fast, 'synchronous'), 1n, "synchronous: 'normal' gives NORMAL");
  fast.close();
});

t.test('sqlite: schema migrations are recorded and applied once', async (t) => {
  const path = join(dir, 'schema.db');
  for (let i = 0; i < 3; i += 1) await openSqliteStorage({ path }).close();
  const raw = new DatabaseSync(path, { readBigInts: true });
  t.strictSame(raw.prepare('SELECT version FROM schema_migrations ORDER BY version').all().map((r) => r.version), Array.from({ length: SCHEMA_VERSION }, (_, i) => BigInt(i + 1)), 'each version once, after three opens');
  raw.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)').run(SCHEMA_VERSION + 1);
  raw.close();
  t.throws(() => openSqliteStorage({ path }), { message: new RegExp(`schema version ${SCHEMA_VERSION + 1}`) }, 'a file from a newer schema is refused');
});

t.test("sqlite: the replies' and the boosts' indexes hold only replies and boosts", async (t) => {
  const path = join(dir, 'partial-indexes.db');
  const storage = openSqliteStorage({ path });
  const seq = new IdSeq();
  const [alice, bob] = [account(seq.next()), account(seq.next())];
  for (const a of [alice, bob]) await storage.accounts.create(a);
  const [p1, p2, p3] = [status(seq.next(), alice.id), status(seq.next(), alice.id), status(seq.next(), alice.id)];
  for (const p of [p1, p2, p3]) await storage.statuses.create(p, POST);
  const reply = status(seq.next(), bob.id, { inReplyToId: p1.id, inReplyToAccountId: alice.id, conversationId: p1.conversationId });
  await storage.statuses.create(reply, replyTo(p1.id));
  const reblog = boost(seq.next(), bob.id, p2);
  t.equal((await storage.statuses.reblog(reblog)).created, true);
  t.strictSame((await storage.statuses.replies([p1.id, p2.id])).map((s) => s.id), [reply.id]);
  t.strictSame((await storage.statuses.reblogs(p2.id, ['public'], { limit: 10 })).map((s) => s.id), [reblog.id]);
  await storage.close();
  const raw = new DatabaseSync(path, { readOnly: true });
  const entries = (name: string) => Number((raw.prepare("SELECT sum(ncell) AS n FROM dbstat WHERE name = ? AND pagetype = 'leaf'").get(name) as { n: number }).n);
  t.strictSame(
    ['statuses', 'statuses_reply', 'statuses_reblog'].map(entries),
    [5, 1, 1],
    'five statuses; one entry in the replies\' index (the reply), one in the boosts\' (the boost)',
  );
  // The adapter's queries on these columns each ask for a value, never NULL: SQLite can use the
  // indexes for them.
  const plan = (sql: string) => raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all().map((r) => r['detail']).join(' | ');
  t.match(plan('SELECT id FROM statuses WHERE deleted_at IS NULL AND in_reply_to_id IN (SELECT value FROM json_each(?)) ORDER BY id'), /SEARCH statuses USING (COVERING )?INDEX statuses_reply/);
  t.match(plan('SELECT id FROM statuses WHERE reblog_of_id = ? AND deleted_at IS NULL ORDER BY id'), /SEARCH statuses USING (COVERING )?INDEX statuses_reblog/);
  raw.close();
});

t.test('sqlite: a version-1 file is upgraded in place and keeps its data', async (t) => {
  const path = join(dir, 'v1.db');
  const raw = new DatabaseSync(path);
  raw.exec(RELEASED_V1);
  raw.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT');
  raw.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (1, 0)').run();
  raw.prepare("INSERT INTO access_tokens (id, token_hash, application_id, account_id, scopes, created_at, revoked_at) VALUES (5, 'old-token', 6, NULL, '[\"read\"]', 1, NULL)").run();
  raw.close();
  const storage = openSqliteStorage({ path });
  t.strictSame(await storage.oauth.findTokenByHash('old-token'), {
    id: '5', tokenHash: 'old-token', applicationId: '6', accountId: null, scopes: ['read'], refreshTokenHash: null, createdAt: 1, revokedAt: null,
  }, 'the old token reads with refreshTokenHash null');
  await storage.close();
});

t.test('sqlite: a file written before the plugins owned their tables keeps its rows; extension migrations run once', async (t) => {
  const path = join(dir, 'v3.db');
  const raw = new DatabaseSync(path);
  raw.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT');
  for (let v = 1; v <= 3; v += 1) {
    raw.exec(v === 1 ? RELEASED_V1 : must(MIGRATIONS[v - 1]));
    raw.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)').run(v);
  }
  const old = media('777', '5');
  raw.prepare(`INSERT INTO media_attachments (id, account_id, status_id, type, url, preview_url, remote_url, description, blurhash, original, small, focus, extra, processed, created_at)
    VALUES (777, 5, NULL, 'image', ?, ?, NULL, NULL, ?, ?, ?, NULL, '{}', 1, ?)`).run(old.url, old.previewUrl, old.blurhash, JSON.stringify(old.original), JSON.stringify(old.small), old.createdAt);
  raw.close();
  for (let i = 0; i < 2; i += 1) {
    const storage = openSqliteStorage({ path });
    t.strictSame(await storage.extend(mediaStorage).get('777'), old, `open ${i + 1}: the upload made under core migration 1 reads through the plugin`);
    await storage.close();
  }
  const check = new DatabaseSync(path, { readBigInts: true });
  t.strictSame(
    check.prepare("SELECT extension, version FROM extension_migrations ORDER BY extension, version").all().map((r) => `${r.extension}@${r.version}`),
    ['media@1', 'media@2'],
    'each of the plugin\'s migrations recorded once',
  );
  check.prepare("INSERT INTO extension_migrations (extension, version, applied_at) VALUES ('media', 3, 0)").run();
  check.close();
  const storage = openSqliteStorage({ path });
  t.throws(() => storage.extend(mediaStorage), { message: 'this database has version 3 of the "media" storage; this plugin knows versions up to 2' }, 'a newer plugin schema is refused');
  await storage.close();
});

t.test('sqlite: ids are stored as 64-bit INTEGERs', async (t) => {
  const path = join(dir, 'ids.db');
  const storage = openSqliteStorage({ path });
  const max = '9223372036854775807';
  await storage.accounts.create(account(max));
  await storage.statuses.create(status('9223372036854775806', max, { conversationId: max }), { countForAuthor: true, countReplyOf: null });
  await storage.close();
  const raw = new DatabaseSync(path, { readBigInts: true });
  t.strictSame(
    { ...raw.prepare('SELECT typeof(id) AS t, id, typeof(account_id) AS ta, account_id, typeof(conversation_id) AS tc FROM statuses').get() },
    { t: 'integer', id: 9223372036854775806n, ta: 'integer', account_id: 9223372036854775807n, tc: 'integer' },
    'INTEGER columns holding the exact values',
  );
  raw.close();
});

const HAMMER = fileURLToPath(new URL('./sqlite-hammer.ts', import.meta.url));

/** Starts sqlite-hammer.ts as a child process; `next(prefix)` resolves with the rest of the
 * first stdout line starting with `prefix`, even when it arrived earlier. */
function startChild(args: string[]) {
  const { NODE_OPTIONS: _ignored, ...env } = process.env;
  const child = endsWithTest(spawn(process.execPath, [HAMMER, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const seen: string[] = [];
  const waiting: { prefix: string; resolve: (rest: string) => void }[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    seen.push(line);
    for (const w of [...waiting]) {
      if (line.startsWith(w.prefix)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(line.slice(w.prefix.length));
      }
    }
  });
  const next = (prefix: string) =>
    new Promise<string>((resolve, reject) => {
      const hit = seen.find((l) => l.startsWith(prefix));
      if (hit !== undefined) return resolve(hit.slice(prefix.length));
      waiting.push({ prefix, resolve });
      void closed.then((code) => reject(new Error(`child exited (${code}) before "${prefix}": ${stderr}`)));
    });
  return { stdin: child.stdin, next, closed, stderr: () => stderr };
}

t.test('sqlite: a decision waits for a write transaction held by another process, then sees it', async (t) => {
  const path = join(dir, 'held.db');
  const storage = openSqliteStorage({ path });
  const seq = new IdSeq();
  const [alice, bob, carol] = [account(seq.next()), account(seq.next()), account(seq.next())];
  for (const a of [alice, bob, carol]) await storage.accounts.create(a);
  const posts: Status[] = [];
  for (let i = 0; i < 6; i += 1) {
    const s = status(seq.next(), alice.id);
    await storage.statuses.create(s, POST);
    posts.push(s);
  }
  const [p1, p2, p3, p4, p5, p6] = posts as [Status, Status, Status, Status, Status, Status];
  for (const p of [p1, p2, p3, p4]) await storage.interactions.pin(mark(seq.next(), alice.id, p.id), 5);
  const scheduledRepo = storage.extend(scheduledStorage);
  const polls = storage.extend(pollStorage);
  const sc = scheduled(seq.next(), alice.id, T0);
  await scheduledRepo.create(sc);
  const pl = poll(seq.next(), alice.id, p1.id);
  await storage.statuses.create(status(seq.next(), alice.id, { pollId: pl.id }), POST, { writes: [polls.store(pl)] });
  const app = application(seq.next());
  await storage.oauth.createApplication(app);
  const c = code(seq.next(), app.id, alice.id);
  await storage.oauth.createCode(c);

  const HOLD_MS = 400;
  /** Another process holds `sql` uncommitted for HOLD_MS while `op` runs here. */
  const whileHeld = async <T>(what: string, sql: string, op: () => Promise<T>): Promise<T> => {
    const holder = startChild(['hold', path, String(HOLD_MS), sql]);
    await holder.next('holding');
    const started = performance.now();
    const result = await op();
    const waited = performance.now() - started;
    t.ok(waited >= HOLD_MS * 0.6, `${what}: waited for the other process's transaction (${Math.round(waited)} ms)`);
    t.equal(await holder.closed, 0, `${what}: the other process committed${holder.stderr() ? `: ${holder.stderr()}` : ""}`);
    return result;
  };

  const pinned = await whileHeld('pin', `INSERT INTO pins (id, account_id, status_id, created_at) VALUES (${seq.next()}, ${alice.id}, ${p5.id}, 0)`, () =>
    storage.interactions.pin(mark(seq.next(), alice.id, p6.id), 5),
  );
  t.equal(pinned, 'limit', "pin: the other process's fifth pin counts: limit");
  t.equal((await storage.interactions.pinsBy(alice.id)).length, 5, 'pin: five pins, not six');

  const claimed = await whileHeld('claimDue', `UPDATE scheduled_statuses SET claimed_until = ${T0 + 10 * 3_600_000} WHERE id = ${sc.id}`, () =>
    scheduledRepo.claimDue(T0 + 3_600_000, 60_000, 10),
  );
  t.strictSame(claimed, [], 'claimDue: the row leased by the other process is not claimed twice');

  const voted = await whileHeld(
    'vote',
    `INSERT INTO poll_votes (poll_id, account_id, choices) VALUES (${pl.id}, ${carol.id}, '[1]');
     UPDATE polls SET votes = '[0,1,0]', votes_count = votes_count + 1, voters_count = voters_count + 1 WHERE id = ${pl.id}`,
    () => polls.vote(pl.id, bob.id, [0]),
  );
  t.equal(voted, 'voted', 'vote: recorded');
  const after = await polls.get(pl.id);
  t.strictSame([after?.votes, after?.votesCount, after?.votersCount], [[1, 1, 0], 2, 2], "vote: no lost update of the other process's vote");

  const boostId = seq.next();
  const reblogged = await whileHeld(
    'reblog',
    `INSERT INTO statuses (id, account_id, local, uri, url, text, content, spoiler_text, sensitive, visibility, language, in_reply_to_id,
       in_reply_to_account_id, reblog_of_id, conversation_id, application_id, mention_ids, tags, media_ids, has_media, poll_id, created_at,
       edited_at, deleted_at, replies_count, reblogs_count, favourites_count)
     VALUES (${boostId}, ${bob.id}, 1, NULL, NULL, '', '', '', 0, 'public', NULL, NULL, NULL, ${p2.id}, ${p2.id}, NULL, '[]', '[]', '[]', 0, NULL, ${T0},
       NULL, NULL, 0, 0, 0);
     UPDATE statuses SET reblogs_count = reblogs_count + 1 WHERE id = ${p2.id};
     UPDATE accounts SET statuses_count = statuses_count + 1 WHERE id = ${bob.id}`,
    () => storage.statuses.reblog(boost(seq.next(), bob.id, p2)),
  );
  t.strictSame([reblogged.created, reblogged.status.id], [false, boostId], "reblog: the other process's boost is returned");
  t.equal((await storage.statuses.get(p2.id))?.reblogsCount, 1, 'reblog: counted once');

  const consumed = await whileHeld('consumeCode', `UPDATE authorization_codes SET used_at = ${T0} WHERE id = ${c.id}`, () => storage.oauth.consumeCode(c.codeHash, T0 + 1));
  t.equal(consumed, null, 'consumeCode: the code used by the other process is not handed out again');
  await storage.close();
});

t.test('sqlite: atomic across two processes hammering one file', async (t) => {
  const path = join(dir, 'hammer.db');
  const storage = openSqliteStorage({ path });
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

  const child = startChild([path, JSON.stringify(setup)]);
  await child.next('ready');
  const startAt = Date.now() + 150;
  child.stdin.write(`go ${startAt}\n`);
  const mine = await hammer(storage, setup, 'parent', startAt);
  const theirs = JSON.parse(await child.next('result ')) as HammerResult;
  t.equal(await child.closed, 0, `the child process finished cleanly ${child.stderr()}`);
  t.ok(theirs.startedAt < mine.endedAt && mine.startedAt < theirs.endedAt, `the two processes ran at the same time (parent ${mine.endedAt - mine.startedAt} ms, child ${theirs.endedAt - theirs.startedAt} ms)`);
  const both = (k: keyof HammerResult) => (mine[k] as number) + (theirs[k] as number);
  const won = (r: HammerResult) => r.favouriteAdded + r.favouriteRemoved + r.followAdded + r.followRemoved + r.boostAdded + r.boostRemoved + r.codes.length + r.claimed.length + r.voted + r.created;
  t.comment(
    `decisions won (parent/child): favourite +${mine.favouriteAdded}-${mine.favouriteRemoved}/+${theirs.favouriteAdded}-${theirs.favouriteRemoved}, ` +
      `follow +${mine.followAdded}-${mine.followRemoved}/+${theirs.followAdded}-${theirs.followRemoved}, boost +${mine.boostAdded}-${mine.boostRemoved}/+${theirs.boostAdded}-${theirs.boostRemoved}, ` +
      `codes ${mine.codes.length}/${theirs.codes.length}, claims ${mine.claimed.length}/${theirs.claimed.length}, votes ${mine.voted}/${theirs.voted}, keys ${mine.created}/${theirs.created}`,
  );
  t.ok(won(mine) > 0 && won(theirs) > 0, 'both processes won contested decisions: their transactions really interleaved');

  const st = must(await storage.statuses.get(s.id));
  const author = must(await storage.accounts.get(authorId));
  const fans = await storage.accounts.getMany(cyclingFanIds);
  const favourites = await storage.interactions.favouritesOf(s.id, { limit: 100 });
  t.strictSame([st.favouritesCount, favourites.length], [both('favouriteAdded') - both('favouriteRemoved'), both('favouriteAdded') - both('favouriteRemoved')], 'favouritesCount = adds - removes = favourites stored');
  const followers = await storage.relationships.followersOf(authorId, { limit: 100 });
  t.strictSame([author.followersCount, followers.length], [both('followAdded') - both('followRemoved'), both('followAdded') - both('followRemoved')], 'followersCount = follows - unfollows = follows stored');
  const following = new Set(followers.map((f) => f.accountId));
  t.strictSame(fans.map((f) => f.followingCount), fans.map((f) => (following.has(f.id) ? 1 : 0)), "each fan's followingCount matches its follow");
  const boosts = await storage.statuses.reblogs(s.id, ['public'], { limit: 100 });
  t.strictSame([st.reblogsCount, boosts.length], [both('boostAdded') - both('boostRemoved'), both('boostAdded') - both('boostRemoved')], 'reblogsCount = boosts - unboosts = live boosts');
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
  await storage.close();
});

// ---- the read cache: never staler than the file ------------------------------------------------

t.test('sqlite: cached reads see every commit, ours and other connections\', and nothing rolled back', async (t) => {
  const path = join(dir, 'cache.db');
  const a = openSqliteStorage({ path });
  const b = openSqliteStorage({ path });
  t.teardown(async () => {
    await a.close();
    await b.close();
  });
  const seq = new IdSeq();
  const alice = account(seq.next());
  await a.accounts.create(alice);
  const s = status(seq.next(), alice.id);
  await a.statuses.create(s, POST);
  const app = application(seq.next());
  await a.oauth.createApplication(app);
  const tok = { id: seq.next(), tokenHash: 'digest', applicationId: app.id, accountId: alice.id, scopes: ['read'], refreshTokenHash: null, createdAt: T0, revokedAt: null };
  await a.oauth.createToken(tok);

  // Warm every cache on a.
  t.equal(must(await a.statuses.get(s.id)).favouritesCount, 0);
  t.equal(must(await a.accounts.get(alice.id)).displayName, alice.displayName);
  t.equal(must(await a.oauth.findTokenByHash('digest')).revokedAt, null);
  t.equal((await a.statuses.getMany([s.id]))[0]?.favouritesCount, 0);

  // Another connection (what another process is) commits.
  await b.interactions.favourite(mark(seq.next(), alice.id, s.id));
  await b.accounts.update(alice.id, { displayName: 'Renamed elsewhere' });
  await b.oauth.revokeToken(tok.id, T0 + 1);
  t.equal(must(await a.statuses.get(s.id)).favouritesCount, 1, "another connection's commit is seen by get");
  t.equal((await a.statuses.getMany([s.id]))[0]?.favouritesCount, 1, 'and by getMany');
  t.equal(must(await a.accounts.get(alice.id)).displayName, 'Renamed elsewhere');
  t.equal(must(await a.oauth.findTokenByHash('digest')).revokedAt, T0 + 1, 'a revocation elsewhere is seen at once');

  // Our own commit.
  await a.interactions.unfavourite(alice.id, s.id);
  t.equal(must(await a.statuses.get(s.id)).favouritesCount, 0, 'our own commit is seen');

  // A write that fails leaves the cached row as it was in the file.
  const other = account(seq.next(), { username: alice.username.toUpperCase() });
  await a.accounts.create(other).catch(() => undefined);
  t.equal(await a.accounts.get(other.id), null, 'a rolled-back create is not cached');

  // Copies: changing what a cached read returned changes nothing.
  const copy = must(await a.statuses.get(s.id));
  copy.tags.push('changed');
  copy.favouritesCount = 99;
  t.strictSame([must(await a.statuses.get(s.id)).tags, must(await a.statuses.get(s.id)).favouritesCount], [[], 0], 'the cache hands out copies');
});

t.test('sqlite: after freshen(), a commit another connection made a moment ago is seen at once', async (t) => {
  const path = join(dir, 'freshen.db');
  const a = openSqliteStorage({ path });
  t.teardown(() => a.close());
  const seq = new IdSeq();
  const alice = account(seq.next());
  await a.accounts.create(alice);
  t.equal(must(await a.accounts.get(alice.id)).displayName, alice.displayName, 'cached');
  // Another process's commit, acknowledged before a request arrives: in the same turn of the
  // event loop as the read that warmed the cache, so only freshen() can tell.
  const other = new DatabaseSync(path);
  t.teardown(() => other.close());
  const checkedThisTurn = must(await a.accounts.get(alice.id));
  other.prepare('UPDATE accounts SET display_name = ? WHERE id = ?').run('Renamed elsewhere', BigInt(alice.id));
  a.freshen?.();
  t.equal(must(await a.accounts.get(alice.id)).displayName, 'Renamed elsewhere', 'the request that begins now sees it');
  t.equal(checkedThisTurn.displayName, alice.displayName);
});

t.test('sqlite: writes that arrive together commit together, and a failing one fails alone', async (t) => {
  const path = join(dir, 'group-commit.db');
  const store = openSqliteStorage({ path });
  t.teardown(() => store.close());
  const seq = new IdSeq();
  const taken = account(seq.next(), { username: 'taken' });
  await store.accounts.create(taken);
  const fresh = Array.from({ length: 40 }, (_, i) => account(seq.next(), { username: `user${i}` }));
  const clash = account(seq.next(), { username: 'TAKEN' });
  // All of these start in one turn of the event loop: one batch, one COMMIT.
  const outcomes = await Promise.allSettled([...fresh.slice(0, 20), clash, ...fresh.slice(20)].map((a) => store.accounts.create(a)));
  const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason);
  t.equal(refused.length, 1, 'only the clash is refused');
  t.equal(refused[0]?.rule, 'username', 'as a StorageConflict');
  t.equal((await store.accounts.getMany(fresh.map((a) => a.id))).length, 40, 'every other write of the batch is there');
  t.equal(await store.accounts.get(clash.id), null, 'the refused one left nothing');
  const reopened = openSqliteStorage({ path });
  t.teardown(() => reopened.close());
  t.equal((await reopened.accounts.getMany(fresh.map((a) => a.id))).length, 40, 'committed for another connection too');
});
