// The core's schema, as numbered migrations applied on open inside one write transaction (so
// two processes opening a new file at once cannot both apply them). schema_migrations records
// every version applied; never edit a released migration, append a new one. The one exception
// was made once, on purpose: version 1 used to create the plugins' tables too (media, polls,
// scheduled statuses, cards); each plugin's own migration 1 creates the same table IF NOT EXISTS,
// so a file made before keeps them as they are and a new file gets them from the plugins
// installed. The core's migrations create only the core's tables.
//
// Conventions: ids are INTEGER (64-bit), timestamps INTEGER epoch ms, booleans 0/1, arrays and
// objects that are never queried JSON TEXT. What is queried (mentions, tags, marks, follows,
// list members …) has its own table and index. Tables are STRICT, so a value of the wrong type
// is an error instead of a silent conversion.

import type { Db } from './db.ts';

export const MIGRATIONS: readonly string[] = [
  // 1: the tables of the storage port (the plugins' tables are their own: see above).
  `
  CREATE TABLE accounts (
    id INTEGER PRIMARY KEY,
    username TEXT NOT NULL,
    domain TEXT,
    display_name TEXT NOT NULL,
    note TEXT NOT NULL,
    locked INTEGER NOT NULL,
    bot INTEGER NOT NULL,
    discoverable INTEGER NOT NULL,
    fields TEXT NOT NULL,
    avatar_url TEXT,
    header_url TEXT,
    url TEXT,
    uri TEXT,
    created_at INTEGER NOT NULL,
    statuses_count INTEGER NOT NULL,
    followers_count INTEGER NOT NULL,
    following_count INTEGER NOT NULL,
    last_status_at INTEGER
  ) STRICT;
  -- lower() is ASCII-only in SQLite: exactly the port's "case-insensitive (ASCII)".
  CREATE UNIQUE INDEX accounts_acct ON accounts (lower(username), ifnull(lower(domain), ''));

  CREATE TABLE users (
    account_id INTEGER PRIMARY KEY,
    email TEXT NOT NULL,
    password_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    confirmed_at INTEGER,
    approved INTEGER NOT NULL,
    disabled INTEGER NOT NULL,
    locale TEXT NOT NULL,
    created_by_application_id INTEGER,
    settings TEXT NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX users_email ON users (lower(email));

  CREATE TABLE statuses (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    local INTEGER NOT NULL,
    uri TEXT,
    url TEXT,
    text TEXT NOT NULL,
    content TEXT NOT NULL,
    spoiler_text TEXT NOT NULL,
    sensitive INTEGER NOT NULL,
    visibility TEXT NOT NULL,
    language TEXT,
    in_reply_to_id INTEGER,
    in_reply_to_account_id INTEGER,
    reblog_of_id INTEGER,
    conversation_id INTEGER NOT NULL,
    application_id INTEGER,
    mention_ids TEXT NOT NULL,
    tags TEXT NOT NULL,
    media_ids TEXT NOT NULL,
    has_media INTEGER NOT NULL,
    poll_id INTEGER,
    created_at INTEGER NOT NULL,
    edited_at INTEGER,
    deleted_at INTEGER,
    replies_count INTEGER NOT NULL,
    reblogs_count INTEGER NOT NULL,
    favourites_count INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX statuses_account ON statuses (account_id, id) WHERE deleted_at IS NULL;
  CREATE INDEX statuses_reply ON statuses (in_reply_to_id, id) WHERE deleted_at IS NULL;
  CREATE INDEX statuses_reblog ON statuses (reblog_of_id, id) WHERE deleted_at IS NULL;
  -- One live boost per (booster, status).
  CREATE UNIQUE INDEX statuses_live_boost ON statuses (account_id, reblog_of_id)
    WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL;

  CREATE TABLE status_mentions (
    status_id INTEGER NOT NULL REFERENCES statuses (id),
    account_id INTEGER NOT NULL,
    PRIMARY KEY (status_id, account_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX status_mentions_account ON status_mentions (account_id, status_id);

  CREATE TABLE status_tags (
    status_id INTEGER NOT NULL REFERENCES statuses (id),
    tag TEXT NOT NULL,
    PRIMARY KEY (status_id, tag)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX status_tags_tag ON status_tags (tag, status_id);

  CREATE TABLE status_edits (
    id INTEGER PRIMARY KEY,
    status_id INTEGER NOT NULL REFERENCES statuses (id),
    account_id INTEGER NOT NULL,
    text TEXT NOT NULL,
    content TEXT NOT NULL,
    spoiler_text TEXT NOT NULL,
    sensitive INTEGER NOT NULL,
    media_ids TEXT NOT NULL,
    poll_options TEXT,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX status_edits_status ON status_edits (status_id, created_at, id);

  CREATE TABLE idempotency_keys (
    account_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    status_id INTEGER NOT NULL,
    used_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, key)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE favourites (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    status_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, status_id)
  ) STRICT;
  CREATE INDEX favourites_account ON favourites (account_id, id);
  CREATE INDEX favourites_status ON favourites (status_id, id);

  CREATE TABLE bookmarks (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    status_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, status_id)
  ) STRICT;
  CREATE INDEX bookmarks_account ON bookmarks (account_id, id);

  CREATE TABLE pins (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    status_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, status_id)
  ) STRICT;
  CREATE INDEX pins_account ON pins (account_id, id);
  CREATE INDEX pins_status ON pins (status_id);

  CREATE TABLE conversation_mutes (
    account_id INTEGER NOT NULL,
    conversation_id INTEGER NOT NULL,
    PRIMARY KEY (account_id, conversation_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX conversation_mutes_conversation ON conversation_mutes (conversation_id, account_id);

  CREATE TABLE follows (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    target_account_id INTEGER NOT NULL,
    show_reblogs INTEGER NOT NULL,
    notify INTEGER NOT NULL,
    languages TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, target_account_id)
  ) STRICT;
  CREATE INDEX follows_account ON follows (account_id, id);
  CREATE INDEX follows_target ON follows (target_account_id, id);

  CREATE TABLE follow_requests (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    target_account_id INTEGER NOT NULL,
    show_reblogs INTEGER NOT NULL,
    notify INTEGER NOT NULL,
    languages TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, target_account_id)
  ) STRICT;
  CREATE INDEX follow_requests_target ON follow_requests (target_account_id, id);

  CREATE TABLE blocks (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    target_account_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, target_account_id)
  ) STRICT;
  CREATE INDEX blocks_account ON blocks (account_id, id);
  CREATE INDEX blocks_target ON blocks (target_account_id, account_id);

  CREATE TABLE mutes (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    target_account_id INTEGER NOT NULL,
    notifications INTEGER NOT NULL,
    expires_at INTEGER,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, target_account_id)
  ) STRICT;
  CREATE INDEX mutes_account ON mutes (account_id, id);

  CREATE TABLE notifications (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    type TEXT NOT NULL,
    from_account_id INTEGER NOT NULL,
    status_id INTEGER,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX notifications_account ON notifications (account_id, id);

  CREATE TABLE lists (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    title TEXT NOT NULL,
    replies_policy TEXT NOT NULL,
    exclusive INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX lists_account ON lists (account_id, id);

  CREATE TABLE list_members (
    id INTEGER PRIMARY KEY,
    list_id INTEGER NOT NULL,
    account_id INTEGER NOT NULL,
    UNIQUE (list_id, account_id)
  ) STRICT;
  CREATE INDEX list_members_list ON list_members (list_id, id);
  CREATE INDEX list_members_account ON list_members (account_id);

  CREATE TABLE filters (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    title TEXT NOT NULL,
    context TEXT NOT NULL,
    action TEXT NOT NULL,
    expires_at INTEGER,
    keywords TEXT NOT NULL,
    statuses TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX filters_account ON filters (account_id, id);

  CREATE TABLE markers (
    account_id INTEGER NOT NULL,
    timeline TEXT NOT NULL,
    last_read_id INTEGER NOT NULL,
    version INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, timeline)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE applications (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    website TEXT,
    redirect_uris TEXT NOT NULL,
    scopes TEXT NOT NULL,
    client_id TEXT NOT NULL UNIQUE,
    client_secret_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE access_tokens (
    id INTEGER PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    application_id INTEGER NOT NULL,
    account_id INTEGER,
    scopes TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
  ) STRICT;

  CREATE TABLE authorization_codes (
    id INTEGER PRIMARY KEY,
    code_hash TEXT NOT NULL UNIQUE,
    application_id INTEGER NOT NULL,
    account_id INTEGER NOT NULL,
    redirect_uri TEXT NOT NULL,
    scopes TEXT NOT NULL,
    code_challenge TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  ) STRICT;

  CREATE TABLE web_sessions (
    id INTEGER PRIMARY KEY,
    id_hash TEXT NOT NULL UNIQUE,
    account_id INTEGER,
    csrf_token TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
  ) STRICT;

  `,
  // 2: refresh tokens (opt-in) belong to the access token they were issued with.
  `
  ALTER TABLE access_tokens ADD COLUMN refresh_token_hash TEXT;
  CREATE UNIQUE INDEX access_tokens_refresh_token_hash ON access_tokens (refresh_token_hash) WHERE refresh_token_hash IS NOT NULL;
  `,
  // 3: the job queue and outbox (AUTOINCREMENT: an id is never reused, so id order is enqueue
  // order), its dead letters, notifications made once per key, and domain blocks.
  `
  CREATE TABLE jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    payload TEXT NOT NULL,
    ordering_key TEXT,
    run_at INTEGER NOT NULL,
    lease_until INTEGER,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX jobs_ordering ON jobs (ordering_key, id) WHERE ordering_key IS NOT NULL;

  CREATE TABLE dead_jobs (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    payload TEXT NOT NULL,
    ordering_key TEXT,
    run_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    died_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX dead_jobs_died ON dead_jobs (died_at, id);

  ALTER TABLE notifications ADD COLUMN dedupe_key TEXT;
  CREATE UNIQUE INDEX notifications_dedupe ON notifications (account_id, dedupe_key) WHERE dedupe_key IS NOT NULL;

  CREATE TABLE domain_blocks (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    domain TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, domain)
  ) STRICT;
  `,
  // 4: plugins' own migrations, numbered per storage extension (SqliteExtensionContext.migrate).
  `
  CREATE TABLE extension_migrations (
    extension TEXT NOT NULL,
    version INTEGER NOT NULL,
    applied_at INTEGER NOT NULL,
    PRIMARY KEY (extension, version)
  ) STRICT;
  `,
  // 5: the code a token was issued for (a replayed code revokes it), and expired web sessions
  // found by their expiry when they are pruned.
  `
  ALTER TABLE access_tokens ADD COLUMN authorization_code_id INTEGER;
  CREATE INDEX access_tokens_authorization_code ON access_tokens (authorization_code_id) WHERE authorization_code_id IS NOT NULL;
  CREATE INDEX web_sessions_expires ON web_sessions (expires_at);
  `,
  // 6: remote accounts and statuses found by their ActivityPub id, each id stored once.
  `
  CREATE UNIQUE INDEX accounts_uri ON accounts (uri) WHERE uri IS NOT NULL;
  CREATE UNIQUE INDEX statuses_uri ON statuses (uri) WHERE uri IS NOT NULL;
  `,
  // 7: grouped and filtered notifications, notification policies and requests, and private
  // conversations (each account's view of its direct threads).
  `
  ALTER TABLE notifications ADD COLUMN group_key TEXT;
  ALTER TABLE notifications ADD COLUMN filtered INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX notifications_group ON notifications (account_id, group_key, id) WHERE group_key IS NOT NULL;
  CREATE INDEX notifications_grouped_type ON notifications (account_id, type, status_id, id) WHERE group_key IS NOT NULL;
  CREATE INDEX notifications_filtered ON notifications (account_id, from_account_id, id) WHERE filtered = 1;

  CREATE TABLE notification_policies (
    account_id INTEGER PRIMARY KEY,
    for_not_following TEXT NOT NULL,
    for_not_followers TEXT NOT NULL,
    for_new_accounts TEXT NOT NULL,
    for_private_mentions TEXT NOT NULL,
    for_limited_accounts TEXT NOT NULL
  ) STRICT;
  CREATE TABLE notification_requests (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    from_account_id INTEGER NOT NULL,
    last_status_id INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (account_id, from_account_id)
  ) STRICT;
  CREATE INDEX notification_requests_account ON notification_requests (account_id, id);
  CREATE TABLE notification_permissions (
    account_id INTEGER NOT NULL,
    from_account_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, from_account_id)
  ) STRICT;

  CREATE TABLE account_conversations (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    conversation_id INTEGER NOT NULL,
    participant_ids TEXT NOT NULL,
    last_status_id INTEGER NOT NULL,
    unread INTEGER NOT NULL,
    UNIQUE (account_id, conversation_id, participant_ids)
  ) STRICT;
  CREATE INDEX account_conversations_last ON account_conversations (account_id, last_status_id);
  CREATE TABLE account_conversation_statuses (
    account_conversation_id INTEGER NOT NULL,
    status_id INTEGER NOT NULL,
    PRIMARY KEY (account_conversation_id, status_id)
  ) STRICT;
  CREATE INDEX account_conversation_statuses_status ON account_conversation_statuses (status_id);
  `,
  // 8: follow suggestions an account dismissed.
  `
  CREATE TABLE suggestion_dismissals (
    account_id INTEGER NOT NULL,
    target_account_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, target_account_id)
  ) STRICT;
  `,
  // 9: followed and featured hashtags, endorsed accounts, and statuses by creation time (the
  // hashtags' history and trends read the recent ones).
  `
  CREATE TABLE tag_follows (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    tag TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, tag)
  ) STRICT;
  CREATE INDEX tag_follows_tag ON tag_follows (tag, account_id);
  CREATE TABLE featured_tags (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    tag TEXT NOT NULL,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, tag)
  ) STRICT;
  CREATE TABLE endorsements (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    target_account_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (account_id, target_account_id)
  ) STRICT;
  CREATE INDEX statuses_created ON statuses (created_at) WHERE deleted_at IS NULL;
  `,
  // 10: private notes about other accounts.
  `
  CREATE TABLE account_notes (
    account_id INTEGER NOT NULL,
    target_account_id INTEGER NOT NULL,
    comment TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, target_account_id)
  ) STRICT, WITHOUT ROWID;
  `,
  // 11: staff roles (Moderator, Admin, Owner) on local accounts.
  `
  ALTER TABLE accounts ADD COLUMN role TEXT;
  CREATE INDEX accounts_role ON accounts (role) WHERE role IS NOT NULL;
  `,
  // 12: reports to the moderators, the audit log of what they did, and the report an
  // 'admin.report' notification is about.
  `
  CREATE TABLE reports (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    target_account_id INTEGER NOT NULL,
    status_ids TEXT NOT NULL,
    comment TEXT NOT NULL,
    category TEXT NOT NULL,
    rule_ids TEXT,
    forwarded INTEGER NOT NULL,
    assigned_account_id INTEGER,
    action_taken_at INTEGER,
    action_taken_by_account_id INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX reports_target ON reports (target_account_id, id);
  CREATE INDEX reports_account ON reports (account_id, id);
  CREATE TABLE admin_actions (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  ALTER TABLE notifications ADD COLUMN report_id INTEGER;
  `,
  // 13: the admin API's blocks and allows (e-mail domains, canonical e-mail hashes, IP ranges,
  // allowed domains), one table told apart by kind.
  `
  CREATE TABLE server_blocks (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    severity TEXT,
    comment TEXT NOT NULL,
    expires_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE UNIQUE INDEX server_blocks_key ON server_blocks (kind, key);
  CREATE INDEX server_blocks_kind ON server_blocks (kind, id);
  `,
  // 14: the days each local account was active (the admin dashboard's active users and
  // retention), and what the dashboard's other figures group by.
  `
  CREATE TABLE account_activity (
    day INTEGER NOT NULL,
    account_id INTEGER NOT NULL,
    PRIMARY KEY (day, account_id)
  ) STRICT, WITHOUT ROWID;
  CREATE INDEX account_activity_account ON account_activity (account_id, day);
  CREATE INDEX users_created ON users (created_at);
  CREATE INDEX reports_created ON reports (created_at);
  CREATE INDEX favourites_created ON favourites (created_at);
  CREATE INDEX accounts_domain ON accounts (domain, created_at) WHERE domain IS NOT NULL;
  `,
  // 15: what moderators did to an account (suspended, silenced, sensitized; a user's `disabled`
  // exists already).
  `
  ALTER TABLE accounts ADD COLUMN suspended_at INTEGER;
  ALTER TABLE accounts ADD COLUMN silenced_at INTEGER;
  ALTER TABLE accounts ADD COLUMN sensitized_at INTEGER;
  `,
  // 16: an account's lifecycle: deleted (the row stays, its username reserved), moved to
  // another account, and its aliases; the notifications an account sent, found to delete them.
  `
  ALTER TABLE accounts ADD COLUMN deleted_at INTEGER;
  ALTER TABLE accounts ADD COLUMN moved_to_account_id INTEGER;
  ALTER TABLE accounts ADD COLUMN also_known_as TEXT;
  CREATE INDEX notifications_from ON notifications (from_account_id);
  `,
  // 17: quote posts (Mastodon 4.5, FEP-044f): one quote per quoting status, and each status's
  // quote policy.
  `
  CREATE TABLE quotes (
    id INTEGER PRIMARY KEY,
    status_id INTEGER NOT NULL UNIQUE,
    account_id INTEGER NOT NULL,
    quoted_status_id INTEGER,
    quoted_account_id INTEGER,
    state TEXT NOT NULL,
    authorization_uri TEXT,
    request_uri TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX quotes_quoted ON quotes (quoted_status_id, id);
  CREATE INDEX quotes_authorization ON quotes (authorization_uri);
  CREATE INDEX quotes_request ON quotes (request_uri);
  CREATE TABLE quote_policies (
    status_id INTEGER PRIMARY KEY,
    policy TEXT NOT NULL
  ) STRICT;
  `,
  // 18: statuses_account carries the visibility too, so that the home timeline, which walks
  // every followed account's statuses through it, tests each status's visibility without
  // reading its row (statuses.ts, query).
  `
  DROP INDEX statuses_account;
  CREATE INDEX statuses_account ON statuses (account_id, id, visibility) WHERE deleted_at IS NULL;
  `,
  // 19: the follows that asked to be told of an account's posts, found without walking all of
  // its followers (relationships.ts, notifiedFollowers).
  `
  CREATE INDEX follows_notified ON follows (target_account_id, id) WHERE notify = 1;
  `,
  // 20: the replies' and the boosts' indexes hold only replies and boosts, as Mastodon's (and
  // the MongoDB adapter's) do: most statuses are neither, and each such publish wrote a page of
  // both for an entry no query reads (every query on these columns asks for a value).
  `
  DROP INDEX statuses_reply;
  CREATE INDEX statuses_reply ON statuses (in_reply_to_id, id) WHERE in_reply_to_id IS NOT NULL AND deleted_at IS NULL;
  DROP INDEX statuses_reblog;
  CREATE INDEX statuses_reblog ON statuses (reblog_of_id, id) WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the file to SCHEMA_VERSION; refuses a file written by a newer schema. */
export function migrate(db: Db, now: () => number = Date.now): void {
  db.writeNow(() => {
    db.raw.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT');
    const row = db.get('SELECT max(version) AS v FROM schema_migrations');
    const current = row?.v === null || row?.v === undefined ? 0 : Number(row.v);
    if (current > SCHEMA_VERSION) {
      throw new Error(`this database has schema version ${current}; this Rookery knows versions up to ${SCHEMA_VERSION}`);
    }
    for (let v = current + 1; v <= SCHEMA_VERSION; v += 1) {
      db.raw.exec(MIGRATIONS[v - 1] as string);
      db.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', v, now());
    }
  });
}

/** Brings one storage extension's own tables to its latest migration, in one write transaction
 * (two processes opening the file at once apply each version once); refuses a file on which a
 * newer version of the extension ran. */
export function migrateExtension(db: Db, extension: string, migrations: readonly string[], now: () => number = Date.now): void {
  db.writeNow(() => {
    const row = db.get('SELECT max(version) AS v FROM extension_migrations WHERE extension = ?', extension);
    const current = row?.v === null || row?.v === undefined ? 0 : Number(row.v);
    if (current > migrations.length) {
      throw new Error(`this database has version ${current} of the "${extension}" storage; this plugin knows versions up to ${migrations.length}`);
    }
    for (let v = current + 1; v <= migrations.length; v += 1) {
      db.raw.exec(migrations[v - 1] as string);
      db.run('INSERT INTO extension_migrations (extension, version, applied_at) VALUES (?, ?, ?)', extension, v, now());
    }
  });
}
