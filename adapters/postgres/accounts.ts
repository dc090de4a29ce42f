import type { AccountRepository, AdminAccountFilter, Page } from '../../core/domain/ports/storage.ts';
import type { Account, User } from '../../core/domain/model.ts';
import type { Db, Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { Params, bool, ceilMs, id, idOrNull, int, intOrNull, json, jsonText, key, keyOrNull, keys, lookupKey, setClause, storable, text, textOrNull } from './values.ts';

const ACCOUNT_COLUMNS = `id, username, domain, display_name, note, locked, bot, discoverable, fields, avatar_url, header_url, url, uri,
  created_at, statuses_count, followers_count, following_count, last_status_at, role, suspended_at, silenced_at, sensitized_at,
  deleted_at, moved_to_account_id, also_known_as`;
const ACCOUNT = `SELECT ${ACCOUNT_COLUMNS} FROM accounts`;
const USER_COLUMNS = 'account_id, email, password_hash, created_at, confirmed_at, approved, disabled, locale, created_by_application_id, settings';
const USER = `SELECT ${USER_COLUMNS} FROM users`;

/** The expressions the unique indexes accounts_acct and users_email are built on (schema.ts):
 * lookups must use the same ones to use them. */
const ACCT_MATCH = `lower(username COLLATE "C") = lower($1::text COLLATE "C") AND lower(coalesce(domain, '') COLLATE "C") = lower(coalesce($2::text, '') COLLATE "C")`;
const EMAIL_MATCH = 'lower(email COLLATE "C") = lower($1::text COLLATE "C")';

export function accountFromRow(r: Row): Account {
  // What moderators did shows only when they did it (absent reads as "not so").
  return withModeration(
    {
      id: id(r['id']),
      username: text(r['username']),
      domain: textOrNull(r['domain']),
      displayName: text(r['display_name']),
      note: text(r['note']),
      locked: bool(r['locked']),
      bot: bool(r['bot']),
      discoverable: bool(r['discoverable']),
      fields: json(r['fields']),
      avatarUrl: textOrNull(r['avatar_url']),
      headerUrl: textOrNull(r['header_url']),
      url: textOrNull(r['url']),
      uri: textOrNull(r['uri']),
      createdAt: int(r['created_at']),
      statusesCount: int(r['statuses_count']),
      followersCount: int(r['followers_count']),
      followingCount: int(r['following_count']),
      lastStatusAt: intOrNull(r['last_status_at']),
      role: textOrNull(r['role']),
      deletedAt: intOrNull(r['deleted_at']),
      movedToAccountId: idOrNull(r['moved_to_account_id']),
      alsoKnownAs: r['also_known_as'] === null || r['also_known_as'] === undefined ? [] : json(r['also_known_as']),
    },
    intOrNull(r['suspended_at']),
    intOrNull(r['silenced_at']),
    intOrNull(r['sensitized_at']),
  );
}

/** Adds the moderation times that are set (the model's fields are absent otherwise). */
function withModeration(account: Account, suspendedAt: number | null, silencedAt: number | null, sensitizedAt: number | null): Account {
  if (suspendedAt !== null) account.suspendedAt = suspendedAt;
  if (silencedAt !== null) account.silencedAt = silencedAt;
  if (sensitizedAt !== null) account.sensitizedAt = sensitizedAt;
  return account;
}

function userFromRow(r: Row): User {
  return {
    accountId: id(r['account_id']),
    email: text(r['email']),
    passwordHash: text(r['password_hash']),
    createdAt: int(r['created_at']),
    confirmedAt: intOrNull(r['confirmed_at']),
    approved: bool(r['approved']),
    disabled: bool(r['disabled']),
    locale: text(r['locale']),
    createdByApplicationId: idOrNull(r['created_by_application_id']),
    settings: json(r['settings']),
  };
}

const asIs = <T>(v: T) => v;

export function accountRepository(db: Db): AccountRepository {
  return {
    async create(a, u) {
      const accountValues = [
        key(a.id), a.username, a.domain, a.displayName, a.note, a.locked, a.bot, a.discoverable, jsonText(a.fields), a.avatarUrl, a.headerUrl, a.url,
        a.uri, a.createdAt, a.statusesCount, a.followersCount, a.followingCount, a.lastStatusAt, a.role,
        a.suspendedAt ?? null, a.silencedAt ?? null, a.sensitizedAt ?? null,
        a.deletedAt, keyOrNull(a.movedToAccountId), a.alsoKnownAs.length === 0 ? null : jsonText(a.alsoKnownAs),
      ];
      const insertAccount = `INSERT INTO accounts (${ACCOUNT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)`;
      if (u === undefined) {
        await db.run(insertAccount, accountValues);
        return;
      }
      // One statement: the user's insert reads the account's RETURNING, so the account goes in
      // first and a taken username is reported before a taken e-mail, as the port lists them.
      await db.run(
        `WITH a AS (${insertAccount} RETURNING id)
         INSERT INTO users (${USER_COLUMNS}) SELECT a.id, $26::text, $27::text, $28::bigint, $29::bigint, $30::boolean, $31::boolean, $32::text, $33::bigint, $34::text FROM a`,
        [
          ...accountValues, u.email, u.passwordHash, u.createdAt, u.confirmedAt, u.approved, u.disabled, u.locale,
          keyOrNull(u.createdByApplicationId), jsonText(u.settings),
        ],
      );
    },
    async get(accountId) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      const r = await db.row(`${ACCOUNT} WHERE id = $1`, [k]);
      return r ? accountFromRow(r) : null;
    },
    async getMany(ids) {
      const wanted = keys(ids);
      if (wanted.length === 0) return [];
      return (await db.rows(`${ACCOUNT} WHERE id = ANY($1::bigint[])`, [wanted])).map(accountFromRow);
    },
    async findByUsername(username, domain) {
      if (!storable(username) || (domain !== null && !storable(domain))) return null;
      const r = await db.row(`${ACCOUNT} WHERE ${ACCT_MATCH}`, [username, domain]);
      return r ? accountFromRow(r) : null;
    },
    async findByUri(uri) {
      if (!storable(uri)) return null;
      const r = await db.row(`${ACCOUNT} WHERE uri = $1`, [uri]);
      return r ? accountFromRow(r) : null;
    },
    async update(accountId, patch, options) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      const p = new Params();
      const set = setClause(p, patch, {
        displayName: ['display_name', asIs],
        note: ['note', asIs],
        locked: ['locked', asIs],
        bot: ['bot', asIs],
        discoverable: ['discoverable', asIs],
        fields: ['fields', jsonText],
        avatarUrl: ['avatar_url', asIs],
        headerUrl: ['header_url', asIs],
        url: ['url', asIs],
        role: ['role', asIs],
        suspendedAt: ['suspended_at', asIs],
        silencedAt: ['silenced_at', asIs],
        sensitizedAt: ['sensitized_at', asIs],
        deletedAt: ['deleted_at', asIs],
        movedToAccountId: ['moved_to_account_id', (v: string | null) => keyOrNull(v)],
        alsoKnownAs: ['also_known_as', (v: string[] | null) => (v === null || v.length === 0 ? null : jsonText(v))],
      });
      const target = p.add(k);
      // The account (updated, or read when the patch is empty) and the user's settings: one statement.
      const account = set === '' ? `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ${target}::bigint` : `UPDATE accounts SET ${set} WHERE id = ${target}::bigint RETURNING ${ACCOUNT_COLUMNS}`;
      const settings = options?.settings;
      const statement =
        settings === undefined
          ? account
          : `WITH a AS (${account}), u AS (UPDATE users SET settings = ${p.add(jsonText(settings))} WHERE account_id = (SELECT id FROM a)) SELECT * FROM a`;
      return writeWithOutbox(db, options?.outbox, async (sql) => {
        const r = await sql.row(statement, p.values);
        return r ? accountFromRow(r) : null;
      });
    },
    async getUser(accountId) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      const r = await db.row(`${USER} WHERE account_id = $1`, [k]);
      return r ? userFromRow(r) : null;
    },
    async findUserByEmail(email) {
      if (!storable(email)) return null;
      const r = await db.row(`${USER} WHERE ${EMAIL_MATCH}`, [email]);
      return r ? userFromRow(r) : null;
    },
    async updateUser(accountId, patch, outbox) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      const p = new Params();
      const set = setClause(p, patch, {
        passwordHash: ['password_hash', asIs],
        confirmedAt: ['confirmed_at', asIs],
        approved: ['approved', asIs],
        disabled: ['disabled', asIs],
        locale: ['locale', asIs],
        settings: ['settings', jsonText],
      });
      const target = p.add(k);
      const statement = set === '' ? `${USER} WHERE account_id = ${target}::bigint` : `UPDATE users SET ${set} WHERE account_id = ${target}::bigint RETURNING ${USER_COLUMNS}`;
      return writeWithOutbox(db, outbox, async (sql) => {
        const r = await sql.row(statement, p.values);
        return r ? userFromRow(r) : null;
      });
    },
    async changeEmail(accountId, email) {
      const k = lookupKey(accountId);
      if (k === null || !storable(email)) return null;
      // The unique index users_email reports a taken address (StorageConflict 'email').
      const r = await db.row(`UPDATE users SET email = $1 WHERE account_id = $2::bigint RETURNING ${USER_COLUMNS}`, [email, k]);
      return r ? userFromRow(r) : null;
    },
    async countLocalUsers(activeSince?: number) {
      const sql = 'SELECT count(*) AS n FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.domain IS NULL AND a.deleted_at IS NULL';
      const r = activeSince === undefined ? await db.row(sql) : await db.row(`${sql} AND a.last_status_at >= $1`, [ceilMs(activeSince)]);
      return int(r?.['n']);
    },
    async listStaff() {
      return (await db.rows(`${ACCOUNT} WHERE role IS NOT NULL AND domain IS NULL AND deleted_at IS NULL`)).map(accountFromRow);
    },
    async listForAdmin(filter, page) {
      const p = new Params();
      const where = adminWhere(p, filter, page);
      if (where === null) return [];
      const order = page.minId !== undefined ? 'ASC' : 'DESC';
      const rows = (await db.rows(`${ACCOUNT} WHERE ${where} ORDER BY id ${order} LIMIT ${p.add(Math.max(0, page.limit))}`, p.values)).map(accountFromRow);
      return page.minId !== undefined ? rows.reverse() : rows;
    },
    async removeUnapproved(accountId) {
      const k = lookupKey(accountId);
      if (k === null) return false;
      // One statement: the user goes only when unapproved and local, and the account with it.
      const r = await db.row(
        `WITH u AS (DELETE FROM users WHERE account_id = $1::bigint AND NOT approved
                      AND EXISTS (SELECT 1 FROM accounts WHERE id = $1::bigint AND domain IS NULL) RETURNING account_id),
              a AS (DELETE FROM accounts WHERE id IN (SELECT account_id FROM u) RETURNING id)
         SELECT count(*) AS n FROM a`,
        [k],
      );
      return int(r?.['n']) > 0;
    },
  };
}

/** The WHERE clause of the admin listing (the user's columns through subqueries); null when a
 * text criterion cannot be stored, so nothing matches. */
function adminWhere(p: Params, filter: AdminAccountFilter, page: Page): string | null {
  const parts: string[] = ['TRUE'];
  const user = (condition: string) => `EXISTS (SELECT 1 FROM users u WHERE u.account_id = accounts.id AND ${condition})`;
  for (const text of [filter.domain, filter.usernamePrefix, filter.displayNameContains, filter.emailPrefix]) {
    if (text !== undefined && !storable(text)) return null;
  }
  if (filter.origin === 'local') parts.push('domain IS NULL');
  if (filter.origin === 'remote') parts.push('domain IS NOT NULL');
  switch (filter.status) {
    case 'active':
      parts.push('suspended_at IS NULL');
      break;
    case 'pending':
      parts.push(user('NOT u.approved'));
      break;
    case 'disabled':
      parts.push(user('u.disabled'), 'suspended_at IS NULL');
      break;
    case 'silenced':
      parts.push('silenced_at IS NOT NULL');
      break;
    case 'suspended':
      parts.push('suspended_at IS NOT NULL');
      break;
    case 'sensitized':
      parts.push('sensitized_at IS NOT NULL');
      break;
    case undefined:
      break;
  }
  if (filter.roles !== undefined) parts.push(`domain IS NULL AND role = ANY(${p.add([...filter.roles])}::text[])`);
  if (filter.domain !== undefined) parts.push(`lower(domain) = lower(${p.add(filter.domain)}::text)`);
  if (filter.usernamePrefix !== undefined) parts.push(`starts_with(lower(username), lower(${p.add(filter.usernamePrefix)}::text))`);
  if (filter.displayNameContains !== undefined) parts.push(`strpos(lower(display_name), lower(${p.add(filter.displayNameContains)}::text)) > 0`);
  if (filter.emailPrefix !== undefined) parts.push(user(`starts_with(lower(u.email), lower(${p.add(filter.emailPrefix)}::text))`));
  const max = page.maxId === undefined ? null : lookupKey(page.maxId);
  const since = page.minId ?? page.sinceId;
  const min = since === undefined ? null : lookupKey(since);
  if (max !== null) parts.push(`id < ${p.add(max)}::bigint`);
  if (min !== null) parts.push(`id > ${p.add(min)}::bigint`);
  return parts.join(' AND ');
}
