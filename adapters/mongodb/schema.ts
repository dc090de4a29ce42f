// The database's shape: its collections, every index (created, idempotently, each time a store
// opens), and a schema version with forward migrations for what indexes cannot do (moving data).
// The version lives in `rookery_meta` ({_id: 'schema', version}); each storage extension keeps its
// own ({_id: 'extension:<name>'}). Never edit a released migration: append one.
//
// Conventions: ids are string `_id`s plus `num` (Int64) where they are paged (values.ts);
// timestamps are epoch-millisecond numbers; booleans are booleans; what the model nests stays
// nested. Unique indexes carry the StorageConflict rule a duplicate breaks. `_jobs` holds jobs a
// single-document write recorded with itself, until they are moved to `jobs` (jobs.ts).

import type { Db, IndexDescription } from 'mongodb';
import type { DuplicateKey } from './errors.ts';
import type { Doc } from './values.ts';

export const C = {
  meta: 'rookery_meta',
  accounts: 'accounts',
  statuses: 'statuses',
  statusEdits: 'status_edits',
  idempotencyKeys: 'idempotency_keys',
  favourites: 'favourites',
  bookmarks: 'bookmarks',
  conversationMutes: 'conversation_mutes',
  follows: 'follows',
  blocks: 'blocks',
  mutes: 'mutes',
  domainBlocks: 'domain_blocks',
  notifications: 'notifications',
  notificationPolicies: 'notification_policies',
  notificationRequests: 'notification_requests',
  notificationPermissions: 'notification_permissions',
  accountConversations: 'account_conversations',
  lists: 'lists',
  tagFollows: 'tag_follows',
  featuredTags: 'featured_tags',
  endorsements: 'endorsements',
  accountNotes: 'account_notes',
  filters: 'filters',
  markers: 'markers',
  applications: 'applications',
  accessTokens: 'access_tokens',
  authorizationCodes: 'authorization_codes',
  webSessions: 'web_sessions',
  jobs: 'jobs',
  outbox: 'outbox',
  counters: 'counters',
  suggestionDismissals: 'suggestion_dismissals',
  reports: 'reports',
  serverBlocks: 'server_blocks',
  adminActions: 'admin_actions',
  accountActivity: 'account_activity',
  quotes: 'quotes',
  quotePolicies: 'quote_policies',
} as const;

export interface IndexDefinition {
  collection: string;
  name: string;
  key: Record<string, 1 | -1>;
  unique?: boolean;
  partialFilterExpression?: Doc;
  /** A TTL index: documents are removed this many seconds after the date in the key's field. */
  expireAfterSeconds?: number;
  /** For a unique index: the StorageConflict rule a duplicate breaks. */
  rule?: string;
}

/** The index on `_jobs` of a collection whose single-document writes record jobs: what the
 * sweep that finishes interrupted moves reads. */
export function pendingJobsIndex(collection: string): IndexDefinition {
  return { collection, name: `${collection}_pending_jobs`, key: { '_jobs._id': 1 }, partialFilterExpression: { '_jobs._id': { $exists: true } } };
}

const pair = (collection: string, rule: string, second = 'statusId'): IndexDefinition => ({
  collection,
  name: `${collection}_pair`,
  key: { accountId: 1, [second]: 1 },
  unique: true,
  rule,
});

const byAccount = (collection: string, direction: 1 | -1 = -1): IndexDefinition => ({
  collection,
  name: `${collection}_account`,
  key: { accountId: 1, num: direction },
});

/** Collections whose single-document writes carry `_jobs` (the sweep reads these). */
export const PENDING_JOB_COLLECTIONS: readonly string[] = [C.accounts, C.follows, C.mutes, C.domainBlocks, C.notifications, C.filters, C.accessTokens, C.reports];

export const INDEXES: readonly IndexDefinition[] = [
  { collection: C.accounts, name: 'accounts_acct', key: { usernameKey: 1, domainKey: 1 }, unique: true, rule: 'username' },
  {
    collection: C.accounts,
    name: 'accounts_email',
    key: { 'user.emailKey': 1 },
    unique: true,
    partialFilterExpression: { 'user.emailKey': { $type: 'string' } },
    rule: 'email',
  },
  { collection: C.accounts, name: 'accounts_uri', key: { uri: 1 }, unique: true, partialFilterExpression: { uri: { $type: 'string' } }, rule: 'uri' },
  { collection: C.accounts, name: 'accounts_pins', key: { 'pins.statusId': 1 }, partialFilterExpression: { 'pins.statusId': { $exists: true } } },

  { collection: C.statuses, name: 'statuses_num', key: { num: -1 } },
  { collection: C.statuses, name: 'statuses_uri', key: { uri: 1 }, unique: true, partialFilterExpression: { uri: { $type: 'string' } }, rule: 'uri' },
  { collection: C.statuses, name: 'statuses_account', key: { accountId: 1, num: -1 } },
  { collection: C.statuses, name: 'statuses_reply', key: { inReplyToId: 1, num: 1 }, partialFilterExpression: { inReplyToId: { $type: 'string' } } },
  { collection: C.statuses, name: 'statuses_reblog', key: { reblogOfId: 1, num: -1 }, partialFilterExpression: { reblogOfId: { $type: 'string' } } },
  // One live boost per (booster, status): `liveBoostOf` is set on a boost while it is live only.
  {
    collection: C.statuses,
    name: 'statuses_live_boost',
    key: { accountId: 1, liveBoostOf: 1 },
    unique: true,
    partialFilterExpression: { liveBoostOf: { $exists: true } },
    rule: 'reblog',
  },
  { collection: C.statuses, name: 'statuses_mentions', key: { mentionIds: 1, num: -1 } },
  { collection: C.statuses, name: 'statuses_tags', key: { tags: 1, num: -1 } },
  { collection: C.statuses, name: 'statuses_created', key: { createdAt: -1 } },

  { collection: C.statusEdits, name: 'status_edits_status', key: { statusId: 1, createdAt: 1, num: 1 } },
  { collection: C.idempotencyKeys, name: 'idempotency_keys_expiry', key: { expireAt: 1 }, expireAfterSeconds: 0 },

  pair(C.favourites, 'favourite'),
  byAccount(C.favourites),
  { collection: C.favourites, name: 'favourites_status', key: { statusId: 1, num: -1 } },
  pair(C.bookmarks, 'bookmark'),
  byAccount(C.bookmarks),
  { collection: C.conversationMutes, name: 'conversation_mutes_conversation', key: { conversationId: 1, accountId: 1 } },

  // Follows and follow requests share one collection: a pair has a follow or a request, never
  // both, so following removes the request by replacing it.
  pair(C.follows, 'follow', 'targetAccountId'),
  { collection: C.follows, name: 'follows_account', key: { accountId: 1, kind: 1, num: -1 } },
  { collection: C.follows, name: 'follows_target', key: { targetAccountId: 1, kind: 1, num: -1 } },
  // Who asked to be told of an account's posts (relationships.ts, notifiedFollowers).
  { collection: C.follows, name: 'follows_notified', key: { targetAccountId: 1, kind: 1, num: -1 }, partialFilterExpression: { notify: true } },
  pair(C.blocks, 'block', 'targetAccountId'),
  byAccount(C.blocks),
  { collection: C.blocks, name: 'blocks_target', key: { targetAccountId: 1, accountId: 1 } },
  pair(C.mutes, 'mute', 'targetAccountId'),
  byAccount(C.mutes),
  pair(C.domainBlocks, 'domainBlock', 'domain'),
  byAccount(C.domainBlocks),
  // _id is the (account, target) pair; this finds an account's dismissed suggestions.
  { collection: C.suggestionDismissals, name: 'suggestion_dismissals_account', key: { accountId: 1, targetAccountId: 1 } },

  byAccount(C.notifications),
  {
    collection: C.notifications,
    name: 'notifications_dedupe',
    key: { accountId: 1, dedupeKey: 1 },
    unique: true,
    partialFilterExpression: { dedupeKey: { $type: 'string' } },
    rule: 'notification',
  },
  {
    collection: C.notifications,
    name: 'notifications_group',
    key: { accountId: 1, groupKey: 1, num: -1 },
    partialFilterExpression: { groupKey: { $type: 'string' } },
  },
  {
    collection: C.notifications,
    name: 'notifications_grouped_type',
    key: { accountId: 1, type: 1, statusId: 1, num: -1 },
    partialFilterExpression: { groupKey: { $type: 'string' } },
  },
  { collection: C.notifications, name: 'notifications_filtered', key: { accountId: 1, fromAccountId: 1, num: -1 }, partialFilterExpression: { filtered: true } },
  // A deleted account's notifications to others, found to delete them (deleteFrom).
  { collection: C.notifications, name: 'notifications_from', key: { fromAccountId: 1 } },
  byAccount(C.notificationRequests),
  {
    collection: C.notificationRequests,
    name: 'notification_requests_sender',
    key: { accountId: 1, fromAccountId: 1 },
    unique: true,
    rule: 'notificationRequest',
  },
  {
    collection: C.accountConversations,
    name: 'account_conversations_key',
    key: { accountId: 1, conversationId: 1, participantsKey: 1 },
    unique: true,
    rule: 'accountConversation',
  },
  { collection: C.accountConversations, name: 'account_conversations_last', key: { accountId: 1, lastNum: -1 } },
  { collection: C.accountConversations, name: 'account_conversations_status', key: { statusIds: 1 } },
  byAccount(C.lists, 1),
  { collection: C.lists, name: 'lists_members', key: { 'members.accountId': 1 } },
  byAccount(C.filters, 1),
  byAccount(C.tagFollows),
  { collection: C.tagFollows, name: 'tag_follows_tag', key: { tag: 1, accountId: 1 } },
  byAccount(C.endorsements),
  { collection: C.accountNotes, name: 'account_notes_target', key: { accountId: 1, targetId: 1 } },
  { collection: C.quotes, name: 'quotes_quoted', key: { quotedStatusId: 1, num: -1 } },
  { collection: C.quotes, name: 'quotes_authorization', key: { authorizationUri: 1 } },
  { collection: C.quotes, name: 'quotes_request', key: { requestUri: 1 } },

  { collection: C.applications, name: 'applications_client_id', key: { clientId: 1 }, unique: true, rule: 'clientId' },
  { collection: C.accessTokens, name: 'access_tokens_token_hash', key: { tokenHash: 1 }, unique: true, rule: 'tokenHash' },
  {
    collection: C.accessTokens,
    name: 'access_tokens_refresh_token_hash',
    key: { refreshTokenHash: 1 },
    unique: true,
    partialFilterExpression: { refreshTokenHash: { $type: 'string' } },
    rule: 'refreshTokenHash',
  },
  { collection: C.authorizationCodes, name: 'authorization_codes_code_hash', key: { codeHash: 1 }, unique: true, rule: 'codeHash' },
  { collection: C.authorizationCodes, name: 'authorization_codes_purge', key: { purgeAt: 1 }, expireAfterSeconds: 0 },
  { collection: C.webSessions, name: 'web_sessions_id_hash', key: { idHash: 1 }, unique: true, rule: 'idHash' },
  { collection: C.webSessions, name: 'web_sessions_purge', key: { purgeAt: 1 }, expireAfterSeconds: 0 },

  { collection: C.jobs, name: 'jobs_queue', key: { state: 1, seq: 1 } },
  {
    collection: C.jobs,
    name: 'jobs_ordering',
    key: { orderingKey: 1, seq: 1 },
    partialFilterExpression: { orderingKey: { $type: 'string' }, state: 'queued' },
  },
  { collection: C.jobs, name: 'jobs_dead', key: { state: 1, diedAt: -1, _id: -1 } },

  { collection: C.reports, name: 'reports_num', key: { num: -1 } },
  { collection: C.reports, name: 'reports_target', key: { targetAccountId: 1, num: -1 } },
  { collection: C.serverBlocks, name: 'server_blocks_key', key: { kind: 1, key: 1 }, unique: true, rule: 'serverBlockKey' },
  { collection: C.serverBlocks, name: 'server_blocks_kind', key: { kind: 1, num: -1 } },
  { collection: C.adminActions, name: 'admin_actions_num', key: { num: -1 } },
  { collection: C.accountActivity, name: 'account_activity_day', key: { day: 1 } },
  { collection: C.accountActivity, name: 'account_activity_account', key: { accountId: 1, day: -1 } },
  { collection: C.reports, name: 'reports_created', key: { createdAt: 1 } },
  { collection: C.favourites, name: 'favourites_created', key: { createdAt: 1 } },
  { collection: C.accounts, name: 'accounts_domain', key: { domain: 1, createdAt: 1 }, partialFilterExpression: { domain: { $type: 'string' } } },
  { collection: C.reports, name: 'reports_actions', key: { 'actions.num': -1 }, partialFilterExpression: { 'actions.num': { $exists: true } } },

  ...PENDING_JOB_COLLECTIONS.map(pendingJobsIndex),
];

/** What createIndexes is given for a definition. */
export function indexSpec(def: IndexDefinition): IndexDescription {
  const spec: IndexDescription = { key: def.key, name: def.name };
  if (def.unique) spec.unique = true;
  if (def.partialFilterExpression !== undefined) spec.partialFilterExpression = def.partialFilterExpression;
  if (def.expireAfterSeconds !== undefined) spec.expireAfterSeconds = def.expireAfterSeconds;
  return spec;
}

/** The index definitions grouped by collection, in their order: one createIndexes per collection. */
export function indexesByCollection(defs: readonly IndexDefinition[]): Map<string, IndexDescription[]> {
  const out = new Map<string, IndexDescription[]>();
  for (const def of defs) {
    const list = out.get(def.collection) ?? [];
    list.push(indexSpec(def));
    out.set(def.collection, list);
  }
  return out;
}

/** The indexes of one store (the core's and its extensions'): which rule a duplicate breaks. */
export class IndexRegistry {
  readonly #defs: IndexDefinition[] = [];

  add(defs: readonly IndexDefinition[]): void {
    for (const def of defs) {
      const existing = this.#defs.find((d) => d.collection === def.collection && d.name === def.name);
      if (existing !== undefined) {
        if (JSON.stringify(existing) !== JSON.stringify(def)) throw new Error(`two different definitions of the index ${def.collection}.${def.name}`);
        continue;
      }
      this.#defs.push(def);
    }
  }

  definitions(): readonly IndexDefinition[] {
    return this.#defs;
  }

  /** The index a duplicate broke: by name, or else by its key pattern. */
  find(duplicate: DuplicateKey): IndexDefinition | '_id' | null {
    const { collection, index, keyPattern } = duplicate;
    if (index === '_id_') return '_id';
    const inCollection = (d: IndexDefinition) => collection === null || d.collection === collection;
    if (index !== null) return this.#defs.find((d) => d.name === index && inCollection(d)) ?? null;
    if (keyPattern === null) return null;
    const fields = Object.keys(keyPattern).join(',');
    if (fields === '_id') return '_id';
    return this.#defs.find((d) => d.unique === true && inCollection(d) && Object.keys(d.key).join(',') === fields) ?? null;
  }

  /** The StorageConflict rule of a duplicate: 'id' for a taken `_id`, else the index's rule. */
  ruleFor(duplicate: DuplicateKey): string | null {
    const found = this.find(duplicate);
    if (found === '_id') return 'id';
    return found?.rule ?? null;
  }
}

/** "collection.index" of a duplicate, as the race lists of the repositories name them. */
export function duplicateName(registry: IndexRegistry, duplicate: DuplicateKey): string | null {
  const found = registry.find(duplicate);
  if (found === null) return null;
  if (found === '_id') return duplicate.collection === null ? null : `${duplicate.collection}._id_`;
  return `${found.collection}.${found.name}`;
}

// ---- migrations ---------------------------------------------------------------------------------

export interface MongoMigration {
  description: string;
  /** Must be safe to run twice: two processes opening an old database at once may both run it. */
  up(db: Db): Promise<void>;
}

const NAMESPACE_EXISTS = 48;

/** Creates collections that do not exist yet (an existing one is left as it is). */
export async function createCollections(db: Db, names: readonly string[]): Promise<void> {
  for (const name of names) {
    try {
      await db.createCollection(name);
    } catch (error) {
      if ((error as { code?: unknown }).code !== NAMESPACE_EXISTS) throw error;
    }
  }
}

export const MIGRATIONS: readonly MongoMigration[] = [
  {
    description: 'every collection of the storage port, and the job sequence',
    async up(db) {
      // Made up front: a collection cannot be created by the first write of a transaction on
      // every deployment (sharded clusters refuse it).
      await createCollections(db, Object.values(C));
      await db.collection<{ _id: string; seq: number }>(C.counters).updateOne({ _id: 'jobs' }, { $setOnInsert: { seq: 0 } }, { upsert: true });
    },
  },
  {
    description: 'notification policies, requests and permissions, and private conversations',
    async up(db) {
      await createCollections(db, [C.notificationPolicies, C.notificationRequests, C.notificationPermissions, C.accountConversations]);
    },
  },
  {
    description: 'follow suggestions an account dismissed',
    async up(db) {
      await createCollections(db, [C.suggestionDismissals]);
    },
  },
  {
    description: 'followed and featured hashtags, and endorsed accounts',
    async up(db) {
      await createCollections(db, [C.tagFollows, C.featuredTags, C.endorsements]);
    },
  },
  {
    description: 'private notes about other accounts',
    async up(db) {
      await createCollections(db, [C.accountNotes]);
    },
  },
  {
    description: 'reports to the moderators, with the audit log of what they did to each',
    async up(db) {
      await createCollections(db, [C.reports]);
    },
  },
  {
    description: "the admin API's blocks and allows, and the audit log of what was done to them",
    async up(db) {
      await createCollections(db, [C.serverBlocks, C.adminActions]);
    },
  },
  {
    description: 'the days each local account was active, for the admin dashboard',
    async up(db) {
      await createCollections(db, [C.accountActivity]);
    },
  },
  {
    description: 'what moderators did to an account: suspended, silenced, sensitized',
    async up(db) {
      // Written before moderation existed: none of it (the field absent reads as null too).
      await db.collection(C.accounts).updateMany({ suspendedAt: { $exists: false } }, { $set: { suspendedAt: null, silencedAt: null, sensitizedAt: null } });
    },
  },
  {
    description: 'quote posts and the quote policy of each status',
    async up(db) {
      await createCollections(db, [C.quotes, C.quotePolicies]);
    },
  },
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** What the migration runner needs of the meta collection (the driver's Collection fits). */
export interface MetaCollection {
  findOne(filter: { _id: string }): Promise<Doc | null>;
  updateOne(filter: Doc, update: Doc, options?: { upsert?: boolean }): Promise<{ matchedCount: number }>;
}

function versionOf(doc: Doc | null): number {
  const v = doc?.['version'];
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
}

/** Brings one version record (`id` in the meta collection) to `migrations.length`, applying each
 * missing version in order and recording it; refuses a database on which a newer version ran.
 * Two processes may run it at once: each version is recorded once (a conditional update), and a
 * runner that finds the record moved on reads it again. Returns the version reached. */
export async function runMigrations<M>(
  meta: MetaCollection,
  id: string,
  migrations: readonly M[],
  apply: (migration: M, version: number) => Promise<void>,
  tooNew: (found: number, known: number) => string,
  now: () => number = Date.now,
): Promise<number> {
  await meta.updateOne({ _id: id }, { $setOnInsert: { version: 0, applied: [] } }, { upsert: true });
  for (;;) {
    const current = versionOf(await meta.findOne({ _id: id }));
    if (current > migrations.length) throw new Error(tooNew(current, migrations.length));
    if (current === migrations.length) return current;
    const next = current + 1;
    await apply(migrations[next - 1] as M, next);
    await meta.updateOne({ _id: id, version: current }, { $set: { version: next }, $push: { applied: { version: next, at: now() } } });
  }
}

export const schemaTooNew = (found: number, known: number): string => `this database has schema version ${found}; this Rookery knows versions up to ${known}`;
export const extensionTooNew =
  (name: string) =>
  (found: number, known: number): string =>
    `this database has version ${found} of the "${name}" storage; this plugin knows versions up to ${known}`;

/** Creates the indexes (createIndexes is a no-op for one that exists with the same definition). */
export async function ensureIndexes(db: Db, defs: readonly IndexDefinition[]): Promise<void> {
  for (const [collection, specs] of indexesByCollection(defs)) {
    await db.collection(collection).createIndexes(specs);
  }
}
