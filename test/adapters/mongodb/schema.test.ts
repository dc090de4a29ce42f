// adapters/mongodb/schema.ts without a server: every index definition, the conflict rules of the
// unique ones, and the migration runner's bookkeeping on a fake meta collection.

import t from 'tap';
import {
  C,
  INDEXES,
  IndexRegistry,
  MIGRATIONS,
  PENDING_JOB_COLLECTIONS,
  SCHEMA_VERSION,
  duplicateName,
  extensionTooNew,
  indexSpec,
  indexesByCollection,
  pendingJobsIndex,
  runMigrations,
  schemaTooNew,
  type MetaCollection,
} from '../../../adapters/mongodb/schema.ts';
import { CARD_INDEXES } from '../../../plugins/cards/storage/mongodb.ts';
import { MEDIA_INDEXES } from '../../../plugins/media/storage/mongodb.ts';
import { POLL_INDEXES } from '../../../plugins/polls/storage/mongodb.ts';
import { SCHEDULED_INDEXES } from '../../../plugins/scheduled/storage/mongodb.ts';

type Row = [collection: string, name: string, key: Record<string, 1 | -1>, options?: Record<string, unknown>];

const pending = (c: string): Row => [c, `${c}_pending_jobs`, { '_jobs._id': 1 }, { partialFilterExpression: { '_jobs._id': { $exists: true } } }];

/** Every index the core's collections get, written out: a change to one must show here. */
const EXPECTED: Row[] = [
  ['accounts', 'accounts_acct', { usernameKey: 1, domainKey: 1 }, { unique: true, rule: 'username' }],
  ['accounts', 'accounts_email', { 'user.emailKey': 1 }, { unique: true, partialFilterExpression: { 'user.emailKey': { $type: 'string' } }, rule: 'email' }],
  ['accounts', 'accounts_uri', { uri: 1 }, { unique: true, partialFilterExpression: { uri: { $type: 'string' } }, rule: 'uri' }],
  ['accounts', 'accounts_pins', { 'pins.statusId': 1 }, { partialFilterExpression: { 'pins.statusId': { $exists: true } } }],
  ['statuses', 'statuses_num', { num: -1 }],
  ['statuses', 'statuses_uri', { uri: 1 }, { unique: true, partialFilterExpression: { uri: { $type: 'string' } }, rule: 'uri' }],
  ['statuses', 'statuses_account', { accountId: 1, num: -1 }],
  ['statuses', 'statuses_reply', { inReplyToId: 1, num: 1 }, { partialFilterExpression: { inReplyToId: { $type: 'string' } } }],
  ['statuses', 'statuses_reblog', { reblogOfId: 1, num: -1 }, { partialFilterExpression: { reblogOfId: { $type: 'string' } } }],
  ['statuses', 'statuses_live_boost', { accountId: 1, liveBoostOf: 1 }, { unique: true, partialFilterExpression: { liveBoostOf: { $exists: true } }, rule: 'reblog' }],
  ['statuses', 'statuses_mentions', { mentionIds: 1, num: -1 }],
  ['statuses', 'statuses_tags', { tags: 1, num: -1 }],
  ['statuses', 'statuses_created', { createdAt: -1 }],
  ['status_edits', 'status_edits_status', { statusId: 1, createdAt: 1, num: 1 }],
  ['idempotency_keys', 'idempotency_keys_expiry', { expireAt: 1 }, { expireAfterSeconds: 0 }],
  ['favourites', 'favourites_pair', { accountId: 1, statusId: 1 }, { unique: true, rule: 'favourite' }],
  ['favourites', 'favourites_account', { accountId: 1, num: -1 }],
  ['favourites', 'favourites_status', { statusId: 1, num: -1 }],
  ['bookmarks', 'bookmarks_pair', { accountId: 1, statusId: 1 }, { unique: true, rule: 'bookmark' }],
  ['bookmarks', 'bookmarks_account', { accountId: 1, num: -1 }],
  ['conversation_mutes', 'conversation_mutes_conversation', { conversationId: 1, accountId: 1 }],
  ['follows', 'follows_pair', { accountId: 1, targetAccountId: 1 }, { unique: true, rule: 'follow' }],
  ['follows', 'follows_account', { accountId: 1, kind: 1, num: -1 }],
  ['follows', 'follows_target', { targetAccountId: 1, kind: 1, num: -1 }],
  ['follows', 'follows_notified', { targetAccountId: 1, kind: 1, num: -1 }, { partialFilterExpression: { notify: true } }],
  ['blocks', 'blocks_pair', { accountId: 1, targetAccountId: 1 }, { unique: true, rule: 'block' }],
  ['blocks', 'blocks_account', { accountId: 1, num: -1 }],
  ['blocks', 'blocks_target', { targetAccountId: 1, accountId: 1 }],
  ['mutes', 'mutes_pair', { accountId: 1, targetAccountId: 1 }, { unique: true, rule: 'mute' }],
  ['mutes', 'mutes_account', { accountId: 1, num: -1 }],
  ['domain_blocks', 'domain_blocks_pair', { accountId: 1, domain: 1 }, { unique: true, rule: 'domainBlock' }],
  ['domain_blocks', 'domain_blocks_account', { accountId: 1, num: -1 }],
  ['suggestion_dismissals', 'suggestion_dismissals_account', { accountId: 1, targetAccountId: 1 }],
  ['notifications', 'notifications_account', { accountId: 1, num: -1 }],
  ['notifications', 'notifications_dedupe', { accountId: 1, dedupeKey: 1 }, { unique: true, partialFilterExpression: { dedupeKey: { $type: 'string' } }, rule: 'notification' }],
  ['notifications', 'notifications_group', { accountId: 1, groupKey: 1, num: -1 }, { partialFilterExpression: { groupKey: { $type: 'string' } } }],
  ['notifications', 'notifications_grouped_type', { accountId: 1, type: 1, statusId: 1, num: -1 }, { partialFilterExpression: { groupKey: { $type: 'string' } } }],
  ['notifications', 'notifications_filtered', { accountId: 1, fromAccountId: 1, num: -1 }, { partialFilterExpression: { filtered: true } }],
  ['notifications', 'notifications_from', { fromAccountId: 1 }],
  ['notification_requests', 'notification_requests_account', { accountId: 1, num: -1 }],
  ['notification_requests', 'notification_requests_sender', { accountId: 1, fromAccountId: 1 }, { unique: true, rule: 'notificationRequest' }],
  ['account_conversations', 'account_conversations_key', { accountId: 1, conversationId: 1, participantsKey: 1 }, { unique: true, rule: 'accountConversation' }],
  ['account_conversations', 'account_conversations_last', { accountId: 1, lastNum: -1 }],
  ['account_conversations', 'account_conversations_status', { statusIds: 1 }],
  ['lists', 'lists_account', { accountId: 1, num: 1 }],
  ['lists', 'lists_members', { 'members.accountId': 1 }],
  ['filters', 'filters_account', { accountId: 1, num: 1 }],
  ['tag_follows', 'tag_follows_account', { accountId: 1, num: -1 }],
  ['tag_follows', 'tag_follows_tag', { tag: 1, accountId: 1 }],
  ['endorsements', 'endorsements_account', { accountId: 1, num: -1 }],
  ['account_notes', 'account_notes_target', { accountId: 1, targetId: 1 }],
  ['quotes', 'quotes_quoted', { quotedStatusId: 1, num: -1 }],
  ['quotes', 'quotes_authorization', { authorizationUri: 1 }],
  ['quotes', 'quotes_request', { requestUri: 1 }],
  ['applications', 'applications_client_id', { clientId: 1 }, { unique: true, rule: 'clientId' }],
  ['access_tokens', 'access_tokens_token_hash', { tokenHash: 1 }, { unique: true, rule: 'tokenHash' }],
  ['access_tokens', 'access_tokens_refresh_token_hash', { refreshTokenHash: 1 }, { unique: true, partialFilterExpression: { refreshTokenHash: { $type: 'string' } }, rule: 'refreshTokenHash' }],
  ['authorization_codes', 'authorization_codes_code_hash', { codeHash: 1 }, { unique: true, rule: 'codeHash' }],
  ['authorization_codes', 'authorization_codes_purge', { purgeAt: 1 }, { expireAfterSeconds: 0 }],
  ['web_sessions', 'web_sessions_id_hash', { idHash: 1 }, { unique: true, rule: 'idHash' }],
  ['web_sessions', 'web_sessions_purge', { purgeAt: 1 }, { expireAfterSeconds: 0 }],
  ['jobs', 'jobs_queue', { state: 1, seq: 1 }],
  ['jobs', 'jobs_ordering', { orderingKey: 1, seq: 1 }, { partialFilterExpression: { orderingKey: { $type: 'string' }, state: 'queued' } }],
  ['jobs', 'jobs_dead', { state: 1, diedAt: -1, _id: -1 }],
  ['reports', 'reports_num', { num: -1 }],
  ['reports', 'reports_target', { targetAccountId: 1, num: -1 }],
  ['server_blocks', 'server_blocks_key', { kind: 1, key: 1 }, { unique: true, rule: 'serverBlockKey' }],
  ['server_blocks', 'server_blocks_kind', { kind: 1, num: -1 }],
  ['admin_actions', 'admin_actions_num', { num: -1 }],
  ['account_activity', 'account_activity_day', { day: 1 }],
  ['account_activity', 'account_activity_account', { accountId: 1, day: -1 }],
  ['reports', 'reports_created', { createdAt: 1 }],
  ['favourites', 'favourites_created', { createdAt: 1 }],
  ['accounts', 'accounts_domain', { domain: 1, createdAt: 1 }, { partialFilterExpression: { domain: { $type: 'string' } } }],
  ['reports', 'reports_actions', { 'actions.num': -1 }, { partialFilterExpression: { 'actions.num': { $exists: true } } }],
  pending('accounts'),
  pending('follows'),
  pending('mutes'),
  pending('domain_blocks'),
  pending('notifications'),
  pending('filters'),
  pending('access_tokens'),
  pending('reports'),
];

const definition = ([collection, name, key, options = {}]: Row) => ({ collection, name, key, ...options });

t.test('every index of the core, exactly', async (t) => {
  t.strictSame(INDEXES, EXPECTED.map(definition));
  t.equal(INDEXES.length, 83, 'eighty-three indexes besides the _id ones');
});

t.test('the plugins\' indexes, exactly', async (t) => {
  t.strictSame(MEDIA_INDEXES, [{ collection: 'media_attachments', name: 'media_attachments_status', key: { statusId: 1, createdAt: 1, num: 1 } }]);
  t.strictSame(POLL_INDEXES, [
    { collection: 'poll_votes', name: 'poll_votes_account', key: { accountId: 1, pollId: 1 } },
    { collection: 'poll_votes', name: 'poll_votes_poll', key: { pollId: 1 } },
  ]);
  t.strictSame(SCHEDULED_INDEXES, [
    { collection: 'scheduled_statuses', name: 'scheduled_statuses_account', key: { accountId: 1, scheduledAt: 1 } },
    { collection: 'scheduled_statuses', name: 'scheduled_statuses_account_num', key: { accountId: 1, num: -1 } },
    { collection: 'scheduled_statuses', name: 'scheduled_statuses_due', key: { scheduledAt: 1, num: 1 } },
  ]);
  t.strictSame(CARD_INDEXES, [{ collection: 'preview_cards', name: 'preview_cards_url', key: { url: 1 }, unique: true, rule: 'url' }]);
});

t.test('index definitions are well formed', async (t) => {
  const all = [...INDEXES, ...MEDIA_INDEXES, ...POLL_INDEXES, ...SCHEDULED_INDEXES, ...CARD_INDEXES];
  t.equal(new Set(all.map((d) => d.name)).size, all.length, 'every name once, across collections: a duplicate names its index alone');
  t.strictSame(all.filter((d) => !d.name.startsWith(`${d.collection}_`)).map((d) => d.name), [], 'each name starts with its collection');
  t.strictSame(all.filter((d) => d.unique === true && d.rule === undefined).map((d) => d.name), [], 'every unique index has its rule');
  t.strictSame(all.filter((d) => d.unique !== true && d.rule !== undefined).map((d) => d.name), [], 'only unique indexes have one');
  // Partial filters may use what every supported server accepts: equality, $exists: true, $type.
  const allowed = (expr: unknown): boolean =>
    typeof expr !== 'object' || expr === null
      ? true
      : Object.entries(expr).every(([k, v]) =>
          k === '$exists' ? v === true : k === '$type' ? typeof v === 'string' : !k.startsWith('$') && (typeof v !== 'object' || v === null || allowed(v)),
        );
  t.strictSame(all.filter((d) => d.partialFilterExpression !== undefined && !allowed(d.partialFilterExpression)).map((d) => d.name), [], 'partial filters: equality, $exists: true, $type only');
  t.strictSame(
    all.filter((d) => d.expireAfterSeconds !== undefined).map((d) => [d.name, Object.keys(d.key), d.expireAfterSeconds]),
    [
      ['idempotency_keys_expiry', ['expireAt'], 0],
      ['authorization_codes_purge', ['purgeAt'], 0],
      ['web_sessions_purge', ['purgeAt'], 0],
    ],
    'TTL indexes: one date field each, removed at that date',
  );
  t.strictSame([...PENDING_JOB_COLLECTIONS], ['accounts', 'follows', 'mutes', 'domain_blocks', 'notifications', 'filters', 'access_tokens', 'reports']);
  t.strictSame(pendingJobsIndex('x'), { collection: 'x', name: 'x_pending_jobs', key: { '_jobs._id': 1 }, partialFilterExpression: { '_jobs._id': { $exists: true } } });
});

t.test('what createIndexes is given', async (t) => {
  t.strictSame(indexSpec({ collection: 'a', name: 'a_x', key: { x: 1 } }), { key: { x: 1 }, name: 'a_x' }, 'a plain index');
  t.strictSame(
    indexSpec({ collection: 'a', name: 'a_y', key: { y: 1, z: -1 }, unique: true, rule: 'why', partialFilterExpression: { y: { $type: 'string' } } }),
    { key: { y: 1, z: -1 }, name: 'a_y', unique: true, partialFilterExpression: { y: { $type: 'string' } } },
    'unique and partial; the rule stays here',
  );
  t.strictSame(indexSpec({ collection: 'a', name: 'a_t', key: { at: 1 }, expireAfterSeconds: 0 }), { key: { at: 1 }, name: 'a_t', expireAfterSeconds: 0 }, 'TTL');
  const grouped = indexesByCollection(INDEXES);
  t.strictSame([...grouped.keys()], ['accounts', 'statuses', 'status_edits', 'idempotency_keys', 'favourites', 'bookmarks', 'conversation_mutes', 'follows', 'blocks', 'mutes', 'domain_blocks', 'suggestion_dismissals', 'notifications', 'notification_requests', 'account_conversations', 'lists', 'filters', 'tag_follows', 'endorsements', 'account_notes', 'quotes', 'applications', 'access_tokens', 'authorization_codes', 'web_sessions', 'jobs', 'reports', 'server_blocks', 'admin_actions', 'account_activity'], 'one createIndexes per collection');
  t.strictSame(grouped.get('accounts')?.map((s) => s.name), ['accounts_acct', 'accounts_email', 'accounts_uri', 'accounts_pins', 'accounts_domain', 'accounts_pending_jobs']);
});

t.test('the registry: the rule of a duplicate, by index name or key pattern', async (t) => {
  const registry = new IndexRegistry();
  registry.add(INDEXES);
  registry.add(CARD_INDEXES);
  const dup = (collection: string | null, index: string | null, keyPattern: Record<string, unknown> | null = null) => ({ collection, index, keyPattern, message: '' });
  const rules = EXPECTED.filter(([, , , o]) => o?.['unique']).map(([c, n]) => [n, registry.ruleFor(dup(c, n))]);
  t.strictSame(rules, [
    ['accounts_acct', 'username'],
    ['accounts_email', 'email'],
    ['accounts_uri', 'uri'],
    ['statuses_uri', 'uri'],
    ['statuses_live_boost', 'reblog'],
    ['favourites_pair', 'favourite'],
    ['bookmarks_pair', 'bookmark'],
    ['follows_pair', 'follow'],
    ['blocks_pair', 'block'],
    ['mutes_pair', 'mute'],
    ['domain_blocks_pair', 'domainBlock'],
    ['notifications_dedupe', 'notification'],
    ['notification_requests_sender', 'notificationRequest'],
    ['account_conversations_key', 'accountConversation'],
    ['applications_client_id', 'clientId'],
    ['access_tokens_token_hash', 'tokenHash'],
    ['access_tokens_refresh_token_hash', 'refreshTokenHash'],
    ['authorization_codes_code_hash', 'codeHash'],
    ['web_sessions_id_hash', 'idHash'],
    ['server_blocks_key', 'serverBlockKey'],
  ]);
  t.equal(registry.ruleFor(dup('preview_cards', 'preview_cards_url')), 'url', "an extension's index");
  t.equal(registry.ruleFor(dup('statuses', '_id_')), 'id', 'a taken _id, in any collection');
  t.equal(registry.ruleFor(dup('jobs', '_id_')), 'id');
  t.equal(registry.ruleFor(dup('accounts', 'nobody_knows')), null, 'an index it does not know: no rule');
  t.equal(registry.ruleFor(dup('statuses', 'accounts_acct')), null, 'a name in the wrong collection is not that index');
  t.equal(registry.ruleFor(dup(null, 'applications_client_id')), 'clientId', 'no collection in the message: the name decides');
  t.equal(registry.ruleFor(dup('accounts', null, { usernameKey: 1, domainKey: 1 })), 'username', 'no name: the key pattern');
  t.equal(registry.ruleFor(dup('accounts', null, { 'user.emailKey': 1 })), 'email');
  t.equal(registry.ruleFor(dup('accounts', null, { _id: 1 })), 'id');
  t.equal(registry.ruleFor(dup('accounts', null, { username: 1 })), null);
  t.equal(registry.ruleFor(dup('accounts', null, null)), null);
  t.equal(duplicateName(registry, dup('favourites', 'favourites_pair')), 'favourites.favourites_pair', 'race lists name "collection.index"');
  t.equal(duplicateName(registry, dup('poll_votes', '_id_')), 'poll_votes._id_');
  t.equal(duplicateName(registry, dup(null, '_id_')), null, 'an _id of an unknown collection is no known race');
  t.equal(duplicateName(registry, dup('x', 'y')), null);

  registry.add(CARD_INDEXES);
  t.equal(registry.definitions().length, INDEXES.length + CARD_INDEXES.length, 'the same definition twice is one');
  t.throws(() => registry.add([{ collection: 'preview_cards', name: 'preview_cards_url', key: { url: 1 }, unique: true, rule: 'other' }]), {
    message: 'two different definitions of the index preview_cards.preview_cards_url',
  });
});

// ---- migrations ----------------------------------------------------------------------------------

/** The meta collection in memory: exactly the filters and updates the runner sends. */
class FakeMeta implements MetaCollection {
  readonly docs = new Map<string, Record<string, unknown>>();
  readonly log: string[] = [];
  /** Runs before the next conditional update lands: another process's step. */
  beforeNextAdvance: (() => void) | null = null;

  async findOne(filter: { _id: string }) {
    const d = this.docs.get(filter._id);
    return d === undefined ? null : structuredClone(d);
  }

  async updateOne(filter: Record<string, unknown>, update: Record<string, unknown>, options: { upsert?: boolean } = {}) {
    const hook = this.beforeNextAdvance;
    if (hook && 'version' in filter) {
      this.beforeNextAdvance = null;
      hook();
    }
    const id = filter['_id'] as string;
    const doc = this.docs.get(id);
    const matches = doc !== undefined && Object.entries(filter).every(([k, v]) => (k === '_id' ? true : doc[k] === v));
    this.log.push(`update ${JSON.stringify(filter)} ${matches ? 'matched' : 'missed'}`);
    if (!matches) {
      if (doc === undefined && options.upsert) this.docs.set(id, { _id: id, ...((update['$setOnInsert'] as object) ?? {}) });
      return { matchedCount: 0 };
    }
    const set = (update['$set'] as Record<string, unknown> | undefined) ?? {};
    for (const [k, v] of Object.entries(set)) doc[k] = v;
    const push = (update['$push'] as Record<string, unknown> | undefined) ?? {};
    for (const [k, v] of Object.entries(push)) (doc[k] as unknown[]).push(v);
    return { matchedCount: 1 };
  }
}

const steps = (names: string[]) => names.map((n) => ({ name: n }));

t.test('migrations: a new database gets every version, recorded once each', async (t) => {
  const meta = new FakeMeta();
  const ran: string[] = [];
  const reached = await runMigrations(meta, 'schema', steps(['one', 'two', 'three']), async (m, v) => void ran.push(`${v}:${m.name}`), schemaTooNew, () => 42);
  t.equal(reached, 3);
  t.strictSame(ran, ['1:one', '2:two', '3:three'], 'in order');
  t.strictSame(meta.docs.get('schema'), {
    _id: 'schema',
    version: 3,
    applied: [
      { version: 1, at: 42 },
      { version: 2, at: 42 },
      { version: 3, at: 42 },
    ],
  });
  t.strictSame(meta.log, [
    'update {"_id":"schema"} missed',
    'update {"_id":"schema","version":0} matched',
    'update {"_id":"schema","version":1} matched',
    'update {"_id":"schema","version":2} matched',
  ], 'the record is created once, then each version is a conditional update from the one before');
});

t.test('migrations: an up-to-date database runs nothing; an old one runs the missing versions', async (t) => {
  const meta = new FakeMeta();
  meta.docs.set('schema', { _id: 'schema', version: 2, applied: [] });
  const ran: number[] = [];
  t.equal(await runMigrations(meta, 'schema', steps(['a', 'b']), async (_m, v) => void ran.push(v), schemaTooNew), 2);
  t.strictSame(ran, [], 'nothing to run');
  t.equal(await runMigrations(meta, 'schema', steps(['a', 'b', 'c', 'd']), async (_m, v) => void ran.push(v), schemaTooNew), 4);
  t.strictSame(ran, [3, 4], 'only the missing versions');
});

t.test('migrations: a database a newer Rookery wrote is refused, with the versions', async (t) => {
  const meta = new FakeMeta();
  meta.docs.set('schema', { _id: 'schema', version: 5, applied: [] });
  await t.rejects(runMigrations(meta, 'schema', steps(['a']), async () => undefined, schemaTooNew), {
    message: 'this database has schema version 5; this Rookery knows versions up to 1',
  });
  meta.docs.set('extension:polls', { _id: 'extension:polls', version: 3, applied: [] });
  await t.rejects(runMigrations(meta, 'extension:polls', steps(['a', 'b']), async () => undefined, extensionTooNew('polls')), {
    message: 'this database has version 3 of the "polls" storage; this plugin knows versions up to 2',
  });
});

t.test('migrations: another process moving the version on between two steps', async (t) => {
  const meta = new FakeMeta();
  const ran: number[] = [];
  // While this runner applies version 1, another one applies 1 and 2 and records them.
  meta.beforeNextAdvance = () => {
    const d = meta.docs.get('schema') as Record<string, unknown>;
    d['version'] = 2;
  };
  const reached = await runMigrations(meta, 'schema', steps(['a', 'b', 'c']), async (_m, v) => void ran.push(v), schemaTooNew);
  t.equal(reached, 3);
  t.strictSame(ran, [1, 3], 'its own version 1 (harmless: migrations may run twice), then what is still missing');
  t.equal(meta.docs.get('schema')?.['version'], 3);
  t.strictSame(meta.log.slice(-2), ['update {"_id":"schema","version":0} missed', 'update {"_id":"schema","version":2} matched'], 'its stale record update missed; it read again');
});

t.test('migrations: a failing step records nothing; the next open runs it again', async (t) => {
  const meta = new FakeMeta();
  const fail = async (_m: unknown, v: number) => {
    if (v === 2) throw new Error('disk full');
  };
  await t.rejects(runMigrations(meta, 'schema', steps(['a', 'b']), fail, schemaTooNew), { message: 'disk full' });
  t.equal(meta.docs.get('schema')?.['version'], 1, 'version 1 stays recorded');
  const ran: number[] = [];
  t.equal(await runMigrations(meta, 'schema', steps(['a', 'b']), async (_m, v) => void ran.push(v), schemaTooNew), 2);
  t.strictSame(ran, [2]);
});

t.test('the schema version and its migrations', async (t) => {
  t.equal(SCHEMA_VERSION, MIGRATIONS.length);
  t.equal(SCHEMA_VERSION, 10);
  t.equal(MIGRATIONS[0]?.description, 'every collection of the storage port, and the job sequence');
  t.equal(MIGRATIONS[1]?.description, 'notification policies, requests and permissions, and private conversations');
  t.equal(MIGRATIONS[2]?.description, 'follow suggestions an account dismissed');
  t.equal(MIGRATIONS[3]?.description, 'followed and featured hashtags, and endorsed accounts');
  t.equal(MIGRATIONS[4]?.description, 'private notes about other accounts');
  t.equal(MIGRATIONS[5]?.description, 'reports to the moderators, with the audit log of what they did to each');
  t.equal(MIGRATIONS[6]?.description, "the admin API's blocks and allows, and the audit log of what was done to them");
  t.equal(MIGRATIONS[7]?.description, 'the days each local account was active, for the admin dashboard');
  t.equal(MIGRATIONS[8]?.description, 'what moderators did to an account: suspended, silenced, sensitized');
  t.equal(MIGRATIONS[9]?.description, 'quote posts and the quote policy of each status');
  t.strictSame(Object.values(C).length, 38, 'collections created up front (a transaction cannot create one on a sharded cluster)');
});
