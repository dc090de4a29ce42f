// The core's schema, as numbered forward migrations recorded in schema_migrations. They run in
// one transaction under an advisory lock (per database schema), so two processes opening a new
// database at once apply each version once: the second waits, then finds them applied. DDL is
// transactional here, so a migration that fails leaves nothing half done. Never edit a released
// migration; append a new one.
//
// Only the core's tables: a plugin's tables come from its own migrations (migrateExtension,
// recorded per extension in extension_migrations).
//
// Conventions: ids bigint, times bigint epoch ms, flags boolean, JSON never queried as text.
// Case-insensitive rules compare lower(x COLLATE "C"): lower() under the C collation folds ASCII
// letters only, the port's "ignoring case (ASCII)", whatever the database's locale.

import type { Db, Tx } from './db.ts';

export const MIGRATIONS: readonly string[] = [
  // 1: everything the storage port needs.
  `
  CREATE TABLE accounts (
    id bigint PRIMARY KEY,
    username text NOT NULL,
    domain text,
    display_name text NOT NULL,
    note text NOT NULL,
    locked boolean NOT NULL,
    bot boolean NOT NULL,
    discoverable boolean NOT NULL,
    fields text NOT NULL,
    avatar_url text,
    header_url text,
    url text,
    uri text,
    created_at bigint NOT NULL,
    statuses_count bigint NOT NULL,
    followers_count bigint NOT NULL,
    following_count bigint NOT NULL,
    last_status_at bigint
  );
  CREATE UNIQUE INDEX accounts_acct ON accounts (lower(username COLLATE "C"), lower(coalesce(domain, '') COLLATE "C"));
  CREATE UNIQUE INDEX accounts_uri ON accounts (uri) WHERE uri IS NOT NULL;

  CREATE TABLE users (
    account_id bigint PRIMARY KEY,
    email text NOT NULL,
    password_hash text NOT NULL,
    created_at bigint NOT NULL,
    confirmed_at bigint,
    approved boolean NOT NULL,
    disabled boolean NOT NULL,
    locale text NOT NULL,
    created_by_application_id bigint,
    settings text NOT NULL
  );
  CREATE UNIQUE INDEX users_email ON users (lower(email COLLATE "C"));

  CREATE TABLE statuses (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    local boolean NOT NULL,
    uri text,
    url text,
    text text NOT NULL,
    content text NOT NULL,
    spoiler_text text NOT NULL,
    sensitive boolean NOT NULL,
    visibility text NOT NULL,
    language text,
    in_reply_to_id bigint,
    in_reply_to_account_id bigint,
    reblog_of_id bigint,
    conversation_id bigint NOT NULL,
    application_id bigint,
    mention_ids text NOT NULL,
    tags text NOT NULL,
    media_ids text NOT NULL,
    has_media boolean NOT NULL,
    poll_id bigint,
    created_at bigint NOT NULL,
    edited_at bigint,
    deleted_at bigint,
    replies_count bigint NOT NULL,
    reblogs_count bigint NOT NULL,
    favourites_count bigint NOT NULL
  );
  CREATE INDEX statuses_account ON statuses (account_id, id) WHERE deleted_at IS NULL;
  CREATE INDEX statuses_reply ON statuses (in_reply_to_id, id) WHERE deleted_at IS NULL;
  CREATE INDEX statuses_reblog ON statuses (reblog_of_id, id) WHERE deleted_at IS NULL;
  -- One live boost per (booster, status).
  CREATE UNIQUE INDEX statuses_live_boost ON statuses (account_id, reblog_of_id) WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL;
  -- An ActivityPub id stays taken after a delete.
  CREATE UNIQUE INDEX statuses_uri ON statuses (uri) WHERE uri IS NOT NULL;

  CREATE TABLE status_mentions (
    status_id bigint NOT NULL REFERENCES statuses (id),
    account_id bigint NOT NULL,
    PRIMARY KEY (status_id, account_id)
  );
  CREATE INDEX status_mentions_account ON status_mentions (account_id, status_id);

  CREATE TABLE status_tags (
    status_id bigint NOT NULL REFERENCES statuses (id),
    tag text NOT NULL,
    PRIMARY KEY (status_id, tag)
  );
  CREATE INDEX status_tags_tag ON status_tags (tag, status_id);

  CREATE TABLE status_edits (
    id bigint PRIMARY KEY,
    status_id bigint NOT NULL REFERENCES statuses (id),
    account_id bigint NOT NULL,
    text text NOT NULL,
    content text NOT NULL,
    spoiler_text text NOT NULL,
    sensitive boolean NOT NULL,
    media_ids text NOT NULL,
    poll_options text,
    created_at bigint NOT NULL
  );
  CREATE INDEX status_edits_status ON status_edits (status_id, created_at, id);

  CREATE TABLE idempotency_keys (
    account_id bigint NOT NULL,
    key text NOT NULL,
    status_id bigint NOT NULL,
    used_at bigint NOT NULL,
    PRIMARY KEY (account_id, key)
  );

  CREATE TABLE favourites (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    status_id bigint NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT favourites_mark UNIQUE (account_id, status_id)
  );
  CREATE INDEX favourites_account ON favourites (account_id, id);
  CREATE INDEX favourites_status ON favourites (status_id, id);

  CREATE TABLE bookmarks (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    status_id bigint NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT bookmarks_mark UNIQUE (account_id, status_id)
  );
  CREATE INDEX bookmarks_account ON bookmarks (account_id, id);

  CREATE TABLE pins (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    status_id bigint NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT pins_mark UNIQUE (account_id, status_id)
  );
  CREATE INDEX pins_account ON pins (account_id, id);
  CREATE INDEX pins_status ON pins (status_id);

  CREATE TABLE conversation_mutes (
    account_id bigint NOT NULL,
    conversation_id bigint NOT NULL,
    PRIMARY KEY (account_id, conversation_id)
  );
  CREATE INDEX conversation_mutes_conversation ON conversation_mutes (conversation_id, account_id);

  -- Follows and follow requests share one row per pair (pending: a request), so that a follow
  -- and a request of one pair exclude each other under the pair's unique constraint, with no
  -- lock to take first. created_by_write: whether the write that last touched the row made it a
  -- new follow or request (what an upsert's RETURNING can say of the row it replaced).
  CREATE TABLE follows (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    target_account_id bigint NOT NULL,
    pending boolean NOT NULL,
    show_reblogs boolean NOT NULL,
    notify boolean NOT NULL,
    languages text,
    created_at bigint NOT NULL,
    created_by_write boolean NOT NULL,
    CONSTRAINT follows_pair UNIQUE (account_id, target_account_id)
  );
  CREATE INDEX follows_account ON follows (account_id, id) WHERE NOT pending;
  CREATE INDEX follows_target ON follows (target_account_id, id) WHERE NOT pending;
  CREATE INDEX follow_requests_target ON follows (target_account_id, id) WHERE pending;

  CREATE TABLE blocks (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    target_account_id bigint NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT blocks_pair UNIQUE (account_id, target_account_id)
  );
  CREATE INDEX blocks_account ON blocks (account_id, id);
  CREATE INDEX blocks_target ON blocks (target_account_id, account_id);

  CREATE TABLE mutes (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    target_account_id bigint NOT NULL,
    notifications boolean NOT NULL,
    expires_at bigint,
    created_at bigint NOT NULL,
    CONSTRAINT mutes_pair UNIQUE (account_id, target_account_id)
  );
  CREATE INDEX mutes_account ON mutes (account_id, id);

  CREATE TABLE domain_blocks (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    domain text NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT domain_blocks_pair UNIQUE (account_id, domain)
  );
  CREATE INDEX domain_blocks_account ON domain_blocks (account_id, id);

  CREATE TABLE notifications (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    type text NOT NULL,
    from_account_id bigint NOT NULL,
    status_id bigint,
    created_at bigint NOT NULL,
    dedupe_key text
  );
  CREATE INDEX notifications_account ON notifications (account_id, id);
  CREATE UNIQUE INDEX notifications_dedupe ON notifications (account_id, dedupe_key) WHERE dedupe_key IS NOT NULL;

  CREATE TABLE lists (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    title text NOT NULL,
    replies_policy text NOT NULL,
    exclusive boolean NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX lists_account ON lists (account_id, id);

  CREATE TABLE list_members (
    id bigint PRIMARY KEY,
    list_id bigint NOT NULL,
    account_id bigint NOT NULL,
    CONSTRAINT list_members_pair UNIQUE (list_id, account_id)
  );
  CREATE INDEX list_members_list ON list_members (list_id, id);
  CREATE INDEX list_members_account ON list_members (account_id);

  CREATE TABLE filters (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    title text NOT NULL,
    context text NOT NULL,
    action text NOT NULL,
    expires_at bigint,
    keywords text NOT NULL,
    statuses text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE INDEX filters_account ON filters (account_id, id);

  CREATE TABLE markers (
    account_id bigint NOT NULL,
    timeline text NOT NULL,
    last_read_id bigint NOT NULL,
    version bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (account_id, timeline)
  );

  CREATE TABLE applications (
    id bigint PRIMARY KEY,
    name text NOT NULL,
    website text,
    redirect_uris text NOT NULL,
    scopes text NOT NULL,
    client_id text NOT NULL,
    client_secret_hash text NOT NULL,
    created_at bigint NOT NULL
  );
  CREATE UNIQUE INDEX applications_client_id ON applications (client_id);

  CREATE TABLE access_tokens (
    id bigint PRIMARY KEY,
    token_hash text NOT NULL,
    application_id bigint NOT NULL,
    account_id bigint,
    scopes text NOT NULL,
    refresh_token_hash text,
    created_at bigint NOT NULL,
    revoked_at bigint,
    authorization_code_id bigint
  );
  CREATE UNIQUE INDEX access_tokens_token_hash ON access_tokens (token_hash);
  CREATE UNIQUE INDEX access_tokens_refresh_token_hash ON access_tokens (refresh_token_hash) WHERE refresh_token_hash IS NOT NULL;
  CREATE INDEX access_tokens_authorization_code ON access_tokens (authorization_code_id) WHERE authorization_code_id IS NOT NULL;

  CREATE TABLE authorization_codes (
    id bigint PRIMARY KEY,
    code_hash text NOT NULL,
    application_id bigint NOT NULL,
    account_id bigint NOT NULL,
    redirect_uri text NOT NULL,
    scopes text NOT NULL,
    code_challenge text,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at bigint
  );
  CREATE UNIQUE INDEX authorization_codes_code_hash ON authorization_codes (code_hash);

  CREATE TABLE web_sessions (
    id bigint PRIMARY KEY,
    id_hash text NOT NULL,
    account_id bigint,
    csrf_token text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
  );
  CREATE UNIQUE INDEX web_sessions_id_hash ON web_sessions (id_hash);
  CREATE INDEX web_sessions_expires ON web_sessions (expires_at);

  -- The job queue and outbox. An identity column gives enqueue order; jobs of one ordering key
  -- are inserted under that key's advisory lock (jobs.ts), so their ids also follow commit order.
  CREATE TABLE jobs (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL,
    payload text NOT NULL,
    ordering_key text,
    run_at bigint NOT NULL,
    lease_until bigint,
    attempts integer NOT NULL,
    last_error text,
    created_at bigint NOT NULL
  );
  CREATE INDEX jobs_ordering ON jobs (ordering_key, id) WHERE ordering_key IS NOT NULL;

  CREATE TABLE dead_jobs (
    id bigint PRIMARY KEY,
    name text NOT NULL,
    payload text NOT NULL,
    ordering_key text,
    run_at bigint NOT NULL,
    attempts integer NOT NULL,
    last_error text,
    created_at bigint NOT NULL,
    died_at bigint NOT NULL
  );
  CREATE INDEX dead_jobs_died ON dead_jobs (died_at, id);

  -- Plugins' own migrations, numbered per storage extension (PostgresExtensionContext.migrate).
  CREATE TABLE extension_migrations (
    extension text NOT NULL,
    version integer NOT NULL,
    applied_at bigint NOT NULL,
    PRIMARY KEY (extension, version)
  );
  `,
  // 7: grouped and filtered notifications, notification policies and requests, and private
  // conversations (each account's view of its direct threads).
  `
  ALTER TABLE notifications ADD COLUMN group_key text;
  ALTER TABLE notifications ADD COLUMN filtered boolean NOT NULL DEFAULT false;
  CREATE INDEX notifications_group ON notifications (account_id, group_key, id) WHERE group_key IS NOT NULL;
  CREATE INDEX notifications_grouped_type ON notifications (account_id, type, status_id, id) WHERE group_key IS NOT NULL;
  CREATE INDEX notifications_filtered ON notifications (account_id, from_account_id, id) WHERE filtered;

  CREATE TABLE notification_policies (
    account_id bigint PRIMARY KEY,
    for_not_following text NOT NULL,
    for_not_followers text NOT NULL,
    for_new_accounts text NOT NULL,
    for_private_mentions text NOT NULL,
    for_limited_accounts text NOT NULL
  );
  CREATE TABLE notification_requests (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    from_account_id bigint NOT NULL,
    last_status_id bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    UNIQUE (account_id, from_account_id)
  );
  CREATE INDEX notification_requests_account ON notification_requests (account_id, id);
  CREATE TABLE notification_permissions (
    account_id bigint NOT NULL,
    from_account_id bigint NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (account_id, from_account_id)
  );

  CREATE TABLE account_conversations (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    conversation_id bigint NOT NULL,
    participant_ids text NOT NULL,
    last_status_id bigint NOT NULL,
    unread boolean NOT NULL,
    UNIQUE (account_id, conversation_id, participant_ids)
  );
  CREATE INDEX account_conversations_last ON account_conversations (account_id, last_status_id);
  CREATE TABLE account_conversation_statuses (
    account_conversation_id bigint NOT NULL,
    status_id bigint NOT NULL,
    PRIMARY KEY (account_conversation_id, status_id)
  );
  CREATE INDEX account_conversation_statuses_status ON account_conversation_statuses (status_id);
  `,
  // 8: follow suggestions an account dismissed.
  `
  CREATE TABLE suggestion_dismissals (
    account_id bigint NOT NULL,
    target_account_id bigint NOT NULL,
    created_at bigint NOT NULL,
    PRIMARY KEY (account_id, target_account_id)
  );
  `,
  // 9: followed and featured hashtags, endorsed accounts, and statuses by creation time (the
  // hashtags' history and trends read the recent ones).
  `
  CREATE TABLE tag_follows (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    tag text NOT NULL,
    name text NOT NULL,
    created_at bigint NOT NULL,
    UNIQUE (account_id, tag)
  );
  CREATE INDEX tag_follows_tag ON tag_follows (tag, account_id);
  CREATE TABLE featured_tags (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    tag text NOT NULL,
    name text NOT NULL,
    created_at bigint NOT NULL,
    UNIQUE (account_id, tag)
  );
  CREATE TABLE endorsements (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    target_account_id bigint NOT NULL,
    created_at bigint NOT NULL,
    UNIQUE (account_id, target_account_id)
  );
  CREATE INDEX statuses_created ON statuses (created_at) WHERE deleted_at IS NULL;
  `,
  // 10: private notes about other accounts.
  `
  CREATE TABLE account_notes (
    account_id bigint NOT NULL,
    target_account_id bigint NOT NULL,
    comment text NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (account_id, target_account_id)
  );
  `,
  // 11: staff roles (Moderator, Admin, Owner) on local accounts.
  `
  ALTER TABLE accounts ADD COLUMN role text;
  CREATE INDEX accounts_role ON accounts (role) WHERE role IS NOT NULL;
  `,
  // 12: reports to the moderators, the audit log of what they did, and the report an
  // 'admin.report' notification is about.
  `
  CREATE TABLE reports (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    target_account_id bigint NOT NULL,
    status_ids text NOT NULL,
    comment text NOT NULL,
    category text NOT NULL,
    rule_ids text,
    forwarded boolean NOT NULL,
    assigned_account_id bigint,
    action_taken_at bigint,
    action_taken_by_account_id bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE INDEX reports_target ON reports (target_account_id, id);
  CREATE INDEX reports_account ON reports (account_id, id);
  CREATE TABLE admin_actions (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    action text NOT NULL,
    target_type text NOT NULL,
    target_id bigint NOT NULL,
    created_at bigint NOT NULL
  );
  ALTER TABLE notifications ADD COLUMN report_id bigint;
  `,
  // 13: the admin API's blocks and allows (e-mail domains, canonical e-mail hashes, IP ranges,
  // allowed domains), one table told apart by kind.
  `
  CREATE TABLE server_blocks (
    id bigint PRIMARY KEY,
    kind text NOT NULL,
    key text NOT NULL,
    severity text,
    comment text NOT NULL,
    expires_at bigint,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE UNIQUE INDEX server_blocks_key ON server_blocks (kind, key);
  CREATE INDEX server_blocks_kind ON server_blocks (kind, id);
  `,
  // 14: the days each local account was active (the admin dashboard's active users and
  // retention), and what the dashboard's other figures group by.
  `
  CREATE TABLE account_activity (
    day bigint NOT NULL,
    account_id bigint NOT NULL,
    PRIMARY KEY (day, account_id)
  );
  CREATE INDEX account_activity_account ON account_activity (account_id, day);
  CREATE INDEX users_created ON users (created_at);
  CREATE INDEX reports_created ON reports (created_at);
  CREATE INDEX favourites_created ON favourites (created_at);
  CREATE INDEX accounts_domain ON accounts (domain, created_at) WHERE domain IS NOT NULL;
  `,
  // 15: what moderators did to an account (suspended, silenced, sensitized; a user's `disabled`
  // exists already).
  `
  ALTER TABLE accounts ADD COLUMN suspended_at bigint;
  ALTER TABLE accounts ADD COLUMN silenced_at bigint;
  ALTER TABLE accounts ADD COLUMN sensitized_at bigint;
  `,
  // 16: an account's lifecycle: deleted (the row stays, its username reserved), moved to
  // another account, and its aliases; the notifications an account sent, found to delete them.
  `
  ALTER TABLE accounts ADD COLUMN deleted_at bigint;
  ALTER TABLE accounts ADD COLUMN moved_to_account_id bigint;
  ALTER TABLE accounts ADD COLUMN also_known_as text;
  CREATE INDEX notifications_from ON notifications (from_account_id);
  `,
  // 17: quote posts (Mastodon 4.5, FEP-044f): one quote per quoting status, and each status's
  // quote policy.
  `
  CREATE TABLE quotes (
    id bigint PRIMARY KEY,
    status_id bigint NOT NULL UNIQUE,
    account_id bigint NOT NULL,
    quoted_status_id bigint,
    quoted_account_id bigint,
    state text NOT NULL,
    authorization_uri text,
    request_uri text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  );
  CREATE INDEX quotes_quoted ON quotes (quoted_status_id, id);
  CREATE INDEX quotes_authorization ON quotes (authorization_uri);
  CREATE INDEX quotes_request ON quotes (request_uri);
  CREATE TABLE quote_policies (
    status_id bigint PRIMARY KEY,
    policy text NOT NULL
  );
  `,
  // 18: the follows that asked to be told of an account's posts, found without walking all of
  // its followers (relationships.ts, notifiedFollowers).
  `
  CREATE INDEX follows_notified ON follows (target_account_id, id) WHERE notify AND NOT pending;
  `,
  // 19: the replies' and the boosts' indexes hold only replies and boosts, as Mastodon's (and
  // the MongoDB adapter's) do: most statuses are neither, and each such publish wrote to both
  // an entry no query reads (every query on these columns asks for a value).
  `
  DROP INDEX statuses_reply;
  CREATE INDEX statuses_reply ON statuses (in_reply_to_id, id) WHERE in_reply_to_id IS NOT NULL AND deleted_at IS NULL;
  DROP INDEX statuses_reblog;
  CREATE INDEX statuses_reblog ON statuses (reblog_of_id, id) WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Runs `body` under a lock that one migration run per (database, schema, what) holds at a time;
 * migrations may take longer than the statement timeout. */
async function underMigrationLock<T>(db: Db, what: string, body: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    await tx.run('SET LOCAL statement_timeout = 0');
    await tx.row(`SELECT pg_advisory_xact_lock(hashtextextended('rookery.migrations:' || coalesce(current_schema(), '') || ':' || $1, 0))`, [what]);
    return body(tx);
  });
}

const versionOf = (row: Record<string, unknown> | undefined): number => (row?.['v'] === null || row?.['v'] === undefined ? 0 : Number(row['v']));

/** Brings the database to SCHEMA_VERSION; refuses one written by a newer Rookery. */
export async function migrate(db: Db, now: () => number = Date.now): Promise<void> {
  await underMigrationLock(db, 'core', async (tx) => {
    await tx.run('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)');
    const found = await tx.row('SELECT max(version) AS v, current_database() AS db FROM schema_migrations');
    const current = versionOf(found);
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `the PostgreSQL database "${String(found?.['db'])}" has schema version ${current}, written by a newer Rookery; this Rookery knows versions up to ${SCHEMA_VERSION}`,
      );
    }
    for (let v = current + 1; v <= SCHEMA_VERSION; v += 1) {
      await tx.run(MIGRATIONS[v - 1] as string);
      await tx.run('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [v, now()]);
    }
  });
}

/** Brings one storage extension's own tables to its latest migration, once however many
 * processes open the database at once; refuses a database on which a newer version of the
 * extension ran. */
export async function migrateExtension(db: Db, extension: string, migrations: readonly string[], now: () => number = Date.now): Promise<void> {
  // Most opens find nothing to do: one read, no lock.
  const applied = versionOf(await db.row('SELECT max(version) AS v FROM extension_migrations WHERE extension = $1', [extension]));
  if (applied === migrations.length) return;
  await underMigrationLock(db, `extension:${extension}`, async (tx) => {
    const found = await tx.row('SELECT max(version) AS v, current_database() AS db FROM extension_migrations WHERE extension = $1', [extension]);
    const current = versionOf(found);
    if (current > migrations.length) {
      throw new Error(
        `the PostgreSQL database "${String(found?.['db'])}" has version ${current} of the "${extension}" storage, written by a newer version of the plugin; this one knows versions up to ${migrations.length}`,
      );
    }
    for (let v = current + 1; v <= migrations.length; v += 1) {
      await tx.run(migrations[v - 1] as string);
      await tx.run('INSERT INTO extension_migrations (extension, version, applied_at) VALUES ($1, $2, $3)', [extension, v, now()]);
    }
  });
}
