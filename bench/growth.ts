// BENCH_PARTS=growth: how the server's cost per request grows with the data. One store is
// loaded directly (through the storage adapter's repositories, never the API) to each size in
// turn (default 10k, 100k and 1M statuses, growing incrementally), the standalone instance is
// started on it (core 0), and each workload is loaded with autocannon (core 1) while the
// server's CPU time is read from /proc. Then, on the largest store, one status is published to
// 100, 10k and 100k followers (local ones: stream fan-out to their home feeds; remote ones:
// federation delivery) and the server's CPU time until its queue is empty is divided by the
// followers reached. Each point is one line, exactly `growth <workload> <size> <server CPU µs>`;
// everything else it prints starts with '#'.
//
// The data (docs/performance.md, "Growth"): one account per 50 statuses, one in five of them
// local (with a user); 100 follows by every local account; of the statuses, 10% boosts, 20%
// replies (mentioning the author replied to), the rest new threads; 75% public, 15% unlisted,
// 10% private; 10% carry a hashtag (popularity falling as 1/rank over 100 tags); one
// notification per 5 statuses to a local account (mention, favourite with its favourite row,
// boost, follow). Ids come from the core's snowflake generator on a clock that walks through
// the 30 days before the run, so ids and created_at grow together as in a real store.
//
// BENCH_GROWTH_SIZES (default 10000,100000,1000000), BENCH_GROWTH_FOLLOWERS (default
// 100,10000,100000), BENCH_GROWTH_SECONDS (default 3) and BENCH_GROWTH_WARMUP_SECONDS (default
// 1) make it smaller or longer; BENCH_STORE=postgres runs it on PostgreSQL.

import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeRookery } from '../adapters/node/index.ts';
import { idAt, snowflakeIds } from '../core/domain/ids.ts';
import type { Account, Id, Notification, NotificationType, Status, User, Visibility } from '../core/domain/model.ts';
import type { Storage, StorageExtension } from '../core/domain/ports/storage.ts';
import type { SqliteExtensionContext } from '../adapters/sqlite/index.ts';
import type { PostgresExtensionContext } from '../adapters/postgres/index.ts';
import { federationStorage, rookeryKvStore } from '../plugins/federation/index.ts';
import { benchStore, cpuMicrosFine, freePort, measure, root, startOnCore0, stop, type BenchStore, type Request } from './lib.ts';

const numbers = (value: string | undefined, fallback: number[]): number[] =>
  value ? value.split(',').map((n) => Number(n.trim())).filter((n) => Number.isInteger(n) && n > 0) : fallback;
const SIZES = numbers(process.env['BENCH_GROWTH_SIZES'], [10_000, 100_000, 1_000_000]).sort((a, b) => a - b);
const FOLLOWERS = numbers(process.env['BENCH_GROWTH_FOLLOWERS'], [100, 10_000, 100_000]).sort((a, b) => a - b);
const TIMING = { duration: Number(process.env['BENCH_GROWTH_SECONDS'] ?? 3), warmup: Number(process.env['BENCH_GROWTH_WARMUP_SECONDS'] ?? 1) };

// The proportions (stated in docs/performance.md).
const STATUSES_PER_ACCOUNT = 50;
const LOCAL_EVERY = 5; // one account in five is local
const FOLLOWS_PER_LOCAL = 100;
const STATUSES_PER_NOTIFICATION = 5;
const BOOST_SHARE = 0.1;
const REPLY_SHARE = 0.2;
const TAGGED_SHARE = 0.1;
const TAGS = 100;
const REMOTE_SERVERS = 500;
/** Remote followers of the delivery authors share one inbox per server, this many per server. */
const FOLLOWERS_PER_SERVER = 50;
/** The data spans the 30 days before the run. */
const SPAN_MS = 30 * 86_400_000;
/** Writes sent together: the SQLite adapter commits those of one turn in one transaction. */
const BATCH = 2000;
/** The most used tag (about 2% of statuses), and a rare one that only the 10 replies to the
 * measured status carry (among the oldest statuses of the store). */
const MEASURED_TAG = 't0';
const RARE_TAG = 'rare';

/** A small seeded generator (mulberry32): every run loads the same data. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Tag ranks with weight 1/rank. */
function tagPicker(random: () => number): () => string {
  const cumulative: number[] = [];
  let sum = 0;
  for (let rank = 1; rank <= TAGS; rank++) cumulative.push((sum += 1 / rank));
  return () => {
    const x = random() * sum;
    let i = 0;
    while ((cumulative[i] ?? Infinity) < x) i++;
    return `t${i}`;
  };
}

interface Known {
  id: Id;
  accountId: Id;
  conversationId: Id;
  visibility: Visibility;
}

/** Writes the synthetic data through the store's repositories, in batches. */
class Loader {
  readonly random = seeded(22);
  readonly tag = tagPicker(this.random);
  private now: number;
  readonly ids;
  private pending: Promise<unknown>[] = [];
  private fresh: Known[] = [];
  /** Statuses of earlier batches that replies and boosts may point at (the newest 10,000). */
  private pool: Known[] = [];
  readonly accounts: Account[] = [];
  readonly locals: Account[] = [];
  statuses = 0;
  private accountSerial = 0;

  readonly storage: Storage;
  readonly baseUrl: string;
  private readonly step: number;

  constructor(storage: Storage, baseUrl: string, start: number, step: number) {
    this.storage = storage;
    this.baseUrl = baseUrl;
    this.step = step;
    this.now = start;
    this.ids = snowflakeIds({ now: () => this.now }, () => Math.floor(this.random() * 65536));
  }

  private pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }

  /** Adds a write to the current batch (sent at once), flushing when the batch is full. */
  queue(write: Promise<unknown>): Promise<void> | null {
    this.pending.push(write);
    return this.pending.length >= BATCH ? this.flush() : null;
  }

  async flush(): Promise<void> {
    const writes = this.pending;
    this.pending = [];
    await Promise.all(writes);
    this.pool.push(...this.fresh);
    this.fresh = [];
    if (this.pool.length > 20_000) this.pool = this.pool.slice(-10_000);
  }

  /** An account (and its user when local), written in the current batch. */
  async account(kind: { local: boolean; prefix?: string; domain?: string; uri?: string }): Promise<Account> {
    const n = this.accountSerial++;
    const username = `${kind.prefix ?? 'user'}${n}`;
    const domain = kind.local ? null : (kind.domain ?? `s${n % REMOTE_SERVERS}.example`);
    const account: Account = {
      id: this.ids.next(),
      username,
      domain,
      displayName: `User ${n}`,
      note: 'A bio of a few words, as most have.',
      locked: false,
      bot: false,
      discoverable: true,
      fields: [],
      avatarUrl: null,
      headerUrl: null,
      url: domain === null ? null : `https://${domain}/@${username}`,
      uri: domain === null ? null : (kind.uri ?? `https://${domain}/users/${username}`),
      createdAt: this.now,
      statusesCount: 0,
      followersCount: 0,
      followingCount: 0,
      lastStatusAt: null,
      role: null,
      deletedAt: null,
      movedToAccountId: null,
      alsoKnownAs: [],
    };
    const user: User | undefined = kind.local
      ? {
          accountId: account.id,
          email: `${username}@example.com`,
          passwordHash: 'not a hash: bench accounts never sign in',
          createdAt: this.now,
          confirmedAt: this.now,
          approved: true,
          disabled: false,
          locale: 'en',
          createdByApplicationId: null,
          settings: { defaultVisibility: 'public', defaultSensitive: false, defaultLanguage: null, expandMedia: 'default', expandSpoilers: false },
        }
      : undefined;
    await this.queue(this.storage.accounts.create(account, user));
    return account;
  }

  async follow(accountId: Id, targetAccountId: Id): Promise<void> {
    await this.queue(
      this.storage.relationships.follow({ id: this.ids.next(), accountId, targetAccountId, showReblogs: true, notify: false, languages: null, createdAt: this.now }),
    );
  }

  /** Accounts up to one per STATUSES_PER_ACCOUNT statuses of `size`; every new local account
   * follows FOLLOWS_PER_LOCAL others. */
  async growAccounts(size: number): Promise<void> {
    const target = Math.max(LOCAL_EVERY * 2, Math.ceil(size / STATUSES_PER_ACCOUNT));
    const added: Account[] = [];
    while (this.accounts.length < target) {
      const local = this.accounts.length % LOCAL_EVERY === 0;
      const account = await this.account({ local });
      this.accounts.push(account);
      if (local) {
        this.locals.push(account);
        added.push(account);
      }
    }
    await this.flush();
    for (const account of added) await this.followSome(account);
    await this.flush();
  }

  async followSome(account: Account, count = FOLLOWS_PER_LOCAL): Promise<void> {
    const targets = new Set<Id>();
    const want = Math.min(count, this.accounts.length - 1);
    while (targets.size < want) {
      const target = this.pick(this.accounts).id;
      if (target !== account.id) targets.add(target);
    }
    for (const target of targets) await this.follow(account.id, target);
  }

  private html(text: string, tag: string | null): string {
    const link = tag === null ? '' : ` <a href="${this.baseUrl}/tags/${tag}" class="mention hashtag" rel="tag">#<span>${tag}</span></a>`;
    return `<p>${text}${link}</p>`;
  }

  /** A status as the core would store it (its counters' effects included). */
  async status(author: Account, fields: { visibility: Visibility; replyTo?: Known | undefined; tag?: string | null; text?: string; pooled?: boolean }): Promise<Known> {
    const id = this.ids.next();
    const tag = fields.tag ?? null;
    const replyTo = fields.replyTo;
    const text = fields.text ?? `Status number ${this.statuses} of the growth bench, a line or two long as most are`;
    const status: Status = {
      id,
      accountId: author.id,
      local: author.domain === null,
      uri: author.uri === null ? null : `${author.uri}/statuses/${id}`,
      url: author.url === null ? null : `${author.url}/${id}`,
      text: tag === null ? text : `${text} #${tag}`,
      content: this.html(text, tag),
      spoilerText: '',
      sensitive: false,
      visibility: fields.visibility,
      language: 'en',
      inReplyToId: replyTo?.id ?? null,
      inReplyToAccountId: replyTo?.accountId ?? null,
      reblogOfId: null,
      conversationId: replyTo?.conversationId ?? id,
      applicationId: null,
      mentionIds: replyTo !== undefined && replyTo.accountId !== author.id ? [replyTo.accountId] : [],
      tags: tag === null ? [] : [tag],
      mediaIds: [],
      pollId: null,
      createdAt: this.now,
      editedAt: null,
      deletedAt: null,
      repliesCount: 0,
      reblogsCount: 0,
      favouritesCount: 0,
    };
    this.statuses++;
    const known = { id, accountId: author.id, conversationId: status.conversationId, visibility: status.visibility };
    if (fields.pooled !== false) this.fresh.push(known);
    await this.queue(this.storage.statuses.create(status, { countForAuthor: true, countReplyOf: replyTo?.id ?? null }));
    return known;
  }

  async boost(author: Account, original: Known): Promise<void> {
    const id = this.ids.next();
    const boost: Status = {
      id,
      accountId: author.id,
      local: author.domain === null,
      uri: author.uri === null ? null : `${author.uri}/statuses/${id}/activity`,
      url: null,
      text: '',
      content: '',
      spoilerText: '',
      sensitive: false,
      visibility: 'public',
      language: null,
      inReplyToId: null,
      inReplyToAccountId: null,
      reblogOfId: original.id,
      conversationId: original.conversationId,
      applicationId: null,
      mentionIds: [],
      tags: [],
      mediaIds: [],
      pollId: null,
      createdAt: this.now,
      editedAt: null,
      deletedAt: null,
      repliesCount: 0,
      reblogsCount: 0,
      favouritesCount: 0,
    };
    this.statuses++;
    await this.queue(this.storage.statuses.reblog(boost));
  }

  async notification(recipient: Account): Promise<void> {
    const types: NotificationType[] = ['mention', 'favourite', 'reblog', 'follow'];
    const type = this.pick(types);
    const from = this.pick(this.accounts);
    const about = this.pool.length > 0 ? this.pick(this.pool) : null;
    const statusId = type === 'follow' ? null : (about?.id ?? null);
    if (type !== 'follow' && statusId === null) return;
    const hour = Math.floor(this.now / 3_600_000);
    const groupKey = type === 'follow' ? `follow-${hour}` : type === 'mention' ? null : `${type}-${statusId}-${hour}`;
    const notification: Notification = { id: this.ids.next(), accountId: recipient.id, type, fromAccountId: from.id, statusId, createdAt: this.now, groupKey, filtered: false };
    if (type === 'favourite' && statusId !== null) {
      await this.queue(this.storage.interactions.favourite({ id: this.ids.next(), accountId: from.id, statusId, createdAt: this.now }));
    }
    await this.queue(this.storage.notifications.create(notification));
  }

  /** Statuses (with their notifications) until there are `size`, the clock walking on. */
  async growStatuses(size: number): Promise<void> {
    while (this.statuses < size) {
      this.now += this.step;
      const author = this.pick(this.accounts);
      const roll = this.random();
      const publicPool = this.pool.length > 0 ? this.pick(this.pool) : undefined;
      if (roll < BOOST_SHARE && publicPool !== undefined && publicPool.visibility === 'public') {
        await this.boost(author, publicPool);
      } else {
        const replyTo = roll < BOOST_SHARE + REPLY_SHARE ? publicPool : undefined;
        const v = this.random();
        const visibility: Visibility = v < 0.75 ? 'public' : v < 0.9 ? 'unlisted' : 'private';
        await this.status(author, { visibility, replyTo, tag: this.random() < TAGGED_SHARE ? this.tag() : null });
      }
      if (this.statuses % STATUSES_PER_NOTIFICATION === 0) await this.notification(this.pick(this.locals));
    }
    await this.flush();
  }

  /** A thread of 5 ancestors, the status measured (public, with a hashtag and a mention) and
   * 20 replies below it (10 to it, 10 to those). Kept out of the pool that later replies and
   * boosts pick from, so that the thread is the same at every size. */
  async thread(): Promise<Id> {
    let parent: Known | undefined;
    for (let i = 0; i < 5; i++) {
      parent = await this.status(this.pick(this.accounts), { visibility: 'public', replyTo: parent, pooled: false });
      await this.flush();
    }
    const measured = await this.status(this.pick(this.locals), { visibility: 'public', replyTo: parent, tag: MEASURED_TAG, text: 'The status the growth bench reads', pooled: false });
    await this.flush();
    const children: Known[] = [];
    for (let i = 0; i < 10; i++) children.push(await this.status(this.pick(this.accounts), { visibility: 'public', replyTo: measured, tag: RARE_TAG, pooled: false }));
    await this.flush();
    for (const child of children) await this.status(this.pick(this.accounts), { visibility: 'public', replyTo: child, pooled: false });
    await this.flush();
    return measured.id;
  }
}

/** One statement on the store's own connection ($1, $2 … for parameters, all ids): what the
 * bench needs beyond the storage port, the same SQL on both engines. */
type RawStatement = (sql: string, ids: readonly Id[]) => Promise<number>;
const rawStatements: StorageExtension<RawStatement> = {
  name: 'growth-bench',
  engines: {
    sqlite: (context: SqliteExtensionContext) => async (sql, ids) => context.db.writeNow(() => context.db.run(sql.replace(/\$\d+/g, '?'), ...ids.map((id) => BigInt(id)))),
    postgres: (context: PostgresExtensionContext) => (sql, ids) => context.sql.run(sql, ids),
  },
};

/** Takes away the statuses the publish workload made (the viewer's, from `since` on), so that
 * they do not sit on top of the timelines measured at the next size: the loaded statuses are
 * all older than them. They have no tags, mentions or links, so their row is all there is. */
async function removePublished(storage: Storage, viewerId: Id, since: Id): Promise<number> {
  const run = storage.extend(rawStatements);
  const removed = await run('DELETE FROM statuses WHERE account_id = $1 AND id >= $2', [viewerId, since]);
  await run(`UPDATE accounts SET statuses_count = statuses_count - ${removed} WHERE id = $1`, [viewerId]);
  return removed;
}

interface Points {
  print(workload: string, size: number, micros: number): void;
}

const points: Points = {
  print(workload, size, micros) {
    console.log(`growth ${workload} ${size} ${micros.toFixed(1)}`);
  },
};

/** Tokens and delivery authors, made through the public surface before anything is loaded. */
async function prepare(storage: Storage, baseUrl: string, domain: string) {
  const rookery = await createNodeRookery({ config: { domain, baseUrl }, storage, worker: false });
  try {
    const viewer = await rookery.accounts.create({ username: 'viewer', email: 'viewer@example.com', password: 'growth bench password' });
    const token = await rookery.tokens.issue(viewer.id, ['read', 'write']);
    const authors: { kind: 'stream' | 'federation'; followers: number; account: Account; token: string }[] = [];
    for (const followers of [0, ...FOLLOWERS]) {
      for (const kind of ['stream', 'federation'] as const) {
        const account = await rookery.accounts.create({ username: `${kind}${followers}`, email: `${kind}${followers}@example.com`, password: 'growth bench password' });
        authors.push({ kind, followers, account, token: await rookery.tokens.issue(account.id, ['read', 'write']) });
      }
    }
    return { viewer, token, authors };
  } finally {
    await rookery.close();
  }
}

const seconds = (since: number): string => ((performance.now() - since) / 1000).toFixed(1);

export async function runGrowth(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'rookery-growth-'));
  const port = await freePort();
  const domain = `localhost:${port}`;
  const baseUrl = `http://${domain}`;
  const store: BenchStore = await benchStore(dataDir);
  const sink = await inboxSink();
  let storage: Storage | null = null;
  try {
    // prepare's Rookery closes the store it is given.
    const { viewer, token, authors } = await prepare(await store.open(), baseUrl, domain);
    storage = await store.open(true);
    const largest = SIZES[SIZES.length - 1] ?? 0;
    const loader = new Loader(storage, baseUrl, Date.now() - SPAN_MS, Math.floor(SPAN_MS / Math.max(1, largest)));
    loader.accounts.push(viewer);
    loader.locals.push(viewer);
    console.log(`# growth: ${store.label}; sizes ${SIZES.join(', ')} statuses; deliveries to ${FOLLOWERS.join(', ')} followers; ${TIMING.warmup} s warm-up + ${TIMING.duration} s per point`);
    let measuredId: Id | null = null;
    const env = { ...process.env, ...store.env, PORT: String(port), STREAMING_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn', RATE_LIMITS: 'false', ALLOW_PRIVATE_ADDRESS: 'true' };
    for (const size of SIZES) {
      const started = performance.now();
      await loader.growAccounts(size);
      if (measuredId === null) {
        await loader.followSome(viewer);
        await loader.flush();
        measuredId = await loader.thread();
      }
      await loader.growStatuses(size);
      // PostgreSQL's autovacuum would have analyzed tables that grew this much before long: its
      // plans depend on those statistics. (SQLite's never does: its adapter runs no ANALYZE.)
      if (storage.engine === 'postgres') await storage.extend(rawStatements)('ANALYZE', []);
      console.log(`# growth: loaded ${size} statuses, ${loader.accounts.length} accounts in ${seconds(started)} s (this step)`);
      const since = idAt(Date.now());
      const server = await startOnCore0([join(root, 'examples/standalone/server.ts')], env, 'Rookery is up');
      try {
        await measureSize(server, port, size, token, measuredId, store);
      } finally {
        await stop(server);
      }
      console.log(`# growth: removed the ${await removePublished(storage, viewer.id, since)} statuses the publish workload made`);
    }
    const started = performance.now();
    const followers = await loadFollowers(loader, storage, authors, sink.port);
    if (storage.engine === 'postgres') await storage.extend(rawStatements)('ANALYZE', []);
    console.log(`# growth: loaded ${followers} followers of the delivery authors in ${seconds(started)} s`);
    const server = await startOnCore0([join(root, 'examples/standalone/server.ts')], env, 'Rookery is up');
    try {
      await measureDeliveries(server, port, storage, authors, sink.received);
    } finally {
      await stop(server);
    }
  } finally {
    await storage?.close();
    await store.remove();
    sink.server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function measureSize(server: ChildProcess, port: number, size: number, token: string, measuredId: Id, store: BenchStore): Promise<void> {
  server.stdout?.removeAllListeners('data');
  server.stdout?.resume();
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const workloads: [string, Request][] = [
    ['status-anonymous', { method: 'GET', path: `/api/v1/statuses/${measuredId}`, headers: {} }],
    ['status-signed-in', { method: 'GET', path: `/api/v1/statuses/${measuredId}`, headers: auth }],
    ['home', { method: 'GET', path: '/api/v1/timelines/home?limit=20', headers: auth }],
    ['public', { method: 'GET', path: '/api/v1/timelines/public?limit=20', headers: {} }],
    ['hashtag', { method: 'GET', path: `/api/v1/timelines/tag/${MEASURED_TAG}?limit=20`, headers: {} }],
    ['hashtag-rare', { method: 'GET', path: `/api/v1/timelines/tag/${RARE_TAG}?limit=20`, headers: {} }],
    ['notifications', { method: 'GET', path: '/api/v1/notifications?limit=20', headers: auth }],
    ['context', { method: 'GET', path: `/api/v1/statuses/${measuredId}/context`, headers: auth }],
    ['favourite', { method: 'POST', path: `/api/v1/statuses/${measuredId}/favourite`, headers: auth }],
    ['publish', { method: 'POST', path: '/api/v1/statuses', headers: auth, body: JSON.stringify({ status: 'A new status from the growth bench' }) }],
  ];
  for (const [workload, request] of workloads) {
    const init: RequestInit = { method: request.method, headers: request.headers };
    if (request.body !== undefined) init.body = request.body;
    const response = await fetch(`${base}${request.path}`, init);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`growth ${workload}: ${request.method} ${request.path} answered ${response.status}`);
    const measured = await measure(server.pid ?? 0, base, request, () => store.serverPids(), TIMING);
    points.print(workload, size, measured.cpu);
    if (measured.errors > 0) console.log(`# growth ${workload} ${size}: ${measured.errors} requests failed`);
    if (measured.requests < 100) console.log(`# growth ${workload} ${size}: only ${measured.requests} requests answered in ${TIMING.duration} s: a rough figure`);
    if (measured.dbCpu > 0) console.log(`# growth ${workload} ${size}: PostgreSQL's processes ${measured.dbCpu.toFixed(1)} µs per request`);
  }
}

/** Followers of the delivery authors: `stream<n>` is followed by n local accounts, and
 * `federation<n>` by n remote ones, FOLLOWERS_PER_SERVER to a server sharing one inbox (a
 * path on the sink), whose addresses the federation plugin's store already knows. */
async function loadFollowers(loader: Loader, storage: Storage, authors: Awaited<ReturnType<typeof prepare>>['authors'], sinkPort: number): Promise<number> {
  const most = FOLLOWERS[FOLLOWERS.length - 1] ?? 0;
  const kv = rookeryKvStore(storage.extend(federationStorage));
  const locals: Account[] = [];
  const remotes: Account[] = [];
  for (let i = 0; i < most; i++) {
    locals.push(await loader.account({ local: true, prefix: 'reader' }));
    const server = `f${Math.floor(i / FOLLOWERS_PER_SERVER)}.example`;
    const remote = await loader.account({ local: false, prefix: 'remote', domain: server });
    remotes.push(remote);
    const inbox = `http://127.0.0.1:${sinkPort}/${server}`;
    await loader.queue(kv.set(['rookery', 'inbox', remote.uri ?? ''], { inbox: `${inbox}/users/${remote.username}/inbox`, sharedInbox: `${inbox}/inbox` }));
  }
  await loader.flush();
  let follows = 0;
  for (const author of authors) {
    const pool = author.kind === 'stream' ? locals : remotes;
    for (const follower of pool.slice(0, author.followers)) {
      await loader.follow(follower.id, author.account.id);
      follows++;
    }
  }
  await loader.flush();
  return follows;
}

/** Publishes one status as each delivery author and reads the server's CPU time until its queue
 * is empty; the cost of the author without followers is taken off, and the
 * rest divided by the followers reached. */
async function measureDeliveries(
  server: ChildProcess,
  port: number,
  storage: Storage,
  authors: Awaited<ReturnType<typeof prepare>>['authors'],
  received: () => number,
): Promise<void> {
  server.stdout?.removeAllListeners('data');
  server.stdout?.resume();
  const base = `http://127.0.0.1:${port}`;
  const pid = server.pid ?? 0;
  /** Until the queue is empty: every job the publish caused has run (deliveries to the sink
   * succeed, so none waits for a retry). A claimed job stays queued until it completes. */
  const idle = async (): Promise<void> => {
    const deadline = Date.now() + 600_000;
    for (;;) {
      storage.freshen?.();
      if ((await storage.jobs.size()) === 0) return;
      if (Date.now() > deadline) throw new Error('growth delivery: the queue did not empty within 10 minutes');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const publishCost = async (author: (typeof authors)[number]): Promise<number> => {
    await idle();
    const before = cpuMicrosFine(pid);
    const response = await fetch(`${base}/api/v1/statuses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'A status to many followers, from the growth bench' }),
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`growth delivery: publishing as ${author.account.username} answered ${response.status}`);
    await idle();
    return cpuMicrosFine(pid) - before;
  };
  // The actor documents first: their key pairs are made then, not while measuring.
  for (const author of authors) {
    const response = await fetch(`${base}/users/${author.account.username}`, { headers: { accept: 'application/activity+json' } });
    await response.arrayBuffer();
  }
  const buried = new Set<Id>();
  for (const kind of ['stream', 'federation'] as const) {
    const zero = authors.find((a) => a.kind === kind && a.followers === 0);
    if (zero === undefined) continue;
    // Several runs of each: one publish costs about a millisecond, and neighbours' noise more.
    let base0 = 0;
    const runs = 10;
    await publishCost(zero);
    for (let i = 0; i < runs; i++) base0 += await publishCost(zero);
    base0 /= runs;
    for (const author of authors.filter((a) => a.kind === kind && a.followers > 0)) {
      const repeats = Math.max(1, Math.min(10, Math.round(100_000 / author.followers)));
      let total = 0;
      const deliveries = received();
      for (let i = 0; i < repeats; i++) total += await publishCost(author);
      points.print(`delivery-${kind}`, author.followers, Math.max(0, total / repeats - base0) / author.followers);
      if (kind === 'federation') console.log(`# growth delivery-federation ${author.followers}: ${(received() - deliveries) / repeats} deliveries per status reached the inboxes`);
      for (const dead of await storage.jobs.deadLetters(100)) {
        if (!buried.has(dead.id)) console.log(`# growth delivery-${kind} ${author.followers}: a job failed for good: ${dead.name}: ${dead.lastError?.slice(0, 500)}`);
        buried.add(dead.id);
      }
    }
  }
}

/** Where the remote followers' inboxes are: a node:http server in this process (core 1) that
 * takes every delivery with 202, as a remote server would. */
async function inboxSink(): Promise<{ server: Server; port: number; received: () => number }> {
  let received = 0;
  const server = createServer((req, res) => {
    received++;
    req.resume();
    req.once('end', () => {
      res.writeHead(202);
      res.end();
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const address = server.address();
  return { server, port: typeof address === 'object' && address !== null ? address.port : 0, received: () => received };
}
