import { StorageConflict, type AccountRepository, type AdminAccountFilter, type Page } from '../../core/domain/ports/storage.ts';
import type { Account, Id, User } from '../../core/domain/model.ts';
import { isId } from '../../core/domain/ids.ts';
import { allAmong, bool, flag, id, idOrNull, int, intOrNull, json, jsonText, key, keyOrNull, lookupKey, setClause, text, textOrNull, type Db, type Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { RowCache } from './cache.ts';

const ACCOUNT = `SELECT id, username, domain, display_name, note, locked, bot, discoverable, fields, avatar_url, header_url, url, uri,
  created_at, statuses_count, followers_count, following_count, last_status_at, role, suspended_at, silenced_at, sensitized_at,
  deleted_at, moved_to_account_id, also_known_as FROM accounts`;
const USER = `SELECT account_id, email, password_hash, created_at, confirmed_at, approved, disabled, locale, created_by_application_id,
  settings FROM users`;

export function accountFromRow(r: Row): Account {
  // What moderators did shows only when they did it (absent reads as "not so").
  return withModeration(
    {
      id: id(r.id),
      username: text(r.username),
      domain: textOrNull(r.domain),
      displayName: text(r.display_name),
      note: text(r.note),
      locked: bool(r.locked),
      bot: bool(r.bot),
      discoverable: bool(r.discoverable),
      fields: json(r.fields),
      avatarUrl: textOrNull(r.avatar_url),
      headerUrl: textOrNull(r.header_url),
      url: textOrNull(r.url),
      uri: textOrNull(r.uri),
      createdAt: int(r.created_at),
      statusesCount: int(r.statuses_count),
      followersCount: int(r.followers_count),
      followingCount: int(r.following_count),
      lastStatusAt: intOrNull(r.last_status_at),
      role: textOrNull(r.role),
      deletedAt: intOrNull(r.deleted_at),
      movedToAccountId: idOrNull(r.moved_to_account_id),
      alsoKnownAs: r.also_known_as === null || r.also_known_as === undefined ? [] : json(r.also_known_as),
    },
    intOrNull(r.suspended_at),
    intOrNull(r.silenced_at),
    intOrNull(r.sensitized_at),
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
    accountId: id(r.account_id),
    email: text(r.email),
    passwordHash: text(r.password_hash),
    createdAt: int(r.created_at),
    confirmedAt: intOrNull(r.confirmed_at),
    approved: bool(r.approved),
    disabled: bool(r.disabled),
    locale: text(r.locale),
    createdByApplicationId: idOrNull(r.created_by_application_id),
    settings: json(r.settings),
  };
}

const asIs = (v: string | number | null) => v;
const asFlag = (v: boolean | null) => (v === null ? null : flag(v));

/** Adds `delta` to one of an account's counters, never below zero. */
export function bumpAccount(db: Db, accountId: string, column: 'statuses_count' | 'followers_count' | 'following_count', delta: 1 | -1): void {
  db.runOnRow('accounts', accountId, `UPDATE accounts SET ${column} = max(${column} + ?, 0) WHERE id = ?`, delta, key(accountId));
}

const copyAccount = (a: Account): Account => ({ ...a, fields: a.fields.map((f) => ({ ...f })), alsoKnownAs: [...a.alsoKnownAs] });

function copyUser(u: User): User {
  const settings = { ...u.settings };
  if (Array.isArray(settings.chosenLanguages)) settings.chosenLanguages = [...settings.chosenLanguages];
  return { ...u, settings };
}

export function accountRepository(db: Db): AccountRepository {
  const getAccount = (k: bigint): Account | null => {
    const r = db.get(`${ACCOUNT} WHERE id = ?`, k);
    return r ? accountFromRow(r) : null;
  };
  const getUser = (k: bigint): User | null => {
    const r = db.get(`${USER} WHERE account_id = ?`, k);
    return r ? userFromRow(r) : null;
  };
  const accounts = new RowCache<Id, Account>(db, 'accounts', 20_000, copyAccount, { byOwnKey: true });
  // A counter moved (a post, a follow): only that account is read again.
  db.onRowChange('accounts', (id) => accounts.forget(id));
  const users = new RowCache<Id, User>(db, 'users', 5_000, copyUser, { byOwnKey: true });
  return {
    async create(a, u) {
      await db.write(() => {
        if (db.get("SELECT 1 FROM accounts WHERE lower(username) = lower(?) AND ifnull(lower(domain), '') = ifnull(lower(?), '')", a.username, a.domain)) {
          throw new StorageConflict('username');
        }
        if (u && db.get('SELECT 1 FROM users WHERE lower(email) = lower(?)', u.email)) throw new StorageConflict('email');
        db.run(
          `INSERT INTO accounts (id, username, domain, display_name, note, locked, bot, discoverable, fields, avatar_url, header_url, url, uri,
             created_at, statuses_count, followers_count, following_count, last_status_at, role, suspended_at, silenced_at, sensitized_at,
             deleted_at, moved_to_account_id, also_known_as)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          key(a.id), a.username, a.domain, a.displayName, a.note, flag(a.locked), flag(a.bot), flag(a.discoverable), jsonText(a.fields),
          a.avatarUrl, a.headerUrl, a.url, a.uri, a.createdAt, a.statusesCount, a.followersCount, a.followingCount, a.lastStatusAt, a.role,
          a.suspendedAt ?? null, a.silencedAt ?? null, a.sensitizedAt ?? null,
          a.deletedAt, keyOrNull(a.movedToAccountId), a.alsoKnownAs.length === 0 ? null : jsonText(a.alsoKnownAs),
        );
        if (u) {
          db.run(
            `INSERT INTO users (account_id, email, password_hash, created_at, confirmed_at, approved, disabled, locale, created_by_application_id, settings)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            key(u.accountId), u.email, u.passwordHash, u.createdAt, u.confirmedAt, flag(u.approved), flag(u.disabled), u.locale,
            keyOrNull(u.createdByApplicationId), jsonText(u.settings),
          );
        }
      });
    },
    async get(accountId) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      const hit = accounts.get(accountId);
      if (hit !== undefined) return hit;
      const found = getAccount(k);
      if (found !== null) accounts.set(accountId, found);
      return found;
    },
    async getMany(ids) {
      const wanted = [...new Set(ids.filter(isId))];
      return accounts.many(wanted, (missing) => allAmong(db, `${ACCOUNT} WHERE`, 'id', missing).map(accountFromRow), (a) => a.id);
    },
    async findByUsername(username, domain) {
      const r = db.get(`${ACCOUNT} WHERE lower(username) = lower(?) AND ifnull(lower(domain), '') = ifnull(lower(?), '')`, username, domain);
      return r ? accountFromRow(r) : null;
    },
    async findByUri(uri) {
      const r = db.get(`${ACCOUNT} WHERE uri = ?`, uri);
      return r ? accountFromRow(r) : null;
    },
    async update(accountId, patch, options) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      const set = setClause(patch, {
        displayName: ['display_name', asIs],
        note: ['note', asIs],
        locked: ['locked', asFlag],
        bot: ['bot', asFlag],
        discoverable: ['discoverable', asFlag],
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
      return writeWithOutbox(db, options?.outbox, () => {
        if (set.sql !== '') db.run(`UPDATE accounts SET ${set.sql} WHERE id = ?`, ...set.params, k);
        const updated = getAccount(k);
        if (updated !== null && options?.settings) db.run('UPDATE users SET settings = ? WHERE account_id = ?', jsonText(options.settings), k);
        return updated;
      });
    },
    async getUser(accountId) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      const hit = users.get(accountId);
      if (hit !== undefined) return hit;
      const found = getUser(k);
      if (found !== null) users.set(accountId, found);
      return found;
    },
    async findUserByEmail(email) {
      const r = db.get(`${USER} WHERE lower(email) = lower(?)`, email);
      return r ? userFromRow(r) : null;
    },
    async updateUser(accountId, patch, outbox) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      const set = setClause(patch, {
        passwordHash: ['password_hash', asIs],
        confirmedAt: ['confirmed_at', asIs],
        approved: ['approved', asFlag],
        disabled: ['disabled', asFlag],
        locale: ['locale', asIs],
        settings: ['settings', jsonText],
      });
      return writeWithOutbox(db, outbox, () => {
        if (set.sql !== '') db.run(`UPDATE users SET ${set.sql} WHERE account_id = ?`, ...set.params, k);
        return getUser(k);
      });
    },
    async changeEmail(accountId, email) {
      const k = lookupKey(accountId);
      if (k === null) return null;
      return db.write(() => {
        if (db.get('SELECT 1 FROM users WHERE lower(email) = lower(?) AND account_id <> ?', email, k)) throw new StorageConflict('email');
        db.run('UPDATE users SET email = ? WHERE account_id = ?', email, k);
        return getUser(k);
      });
    },
    async countLocalUsers(activeSince?: number) {
      const sql = 'SELECT count(*) AS n FROM users u JOIN accounts a ON a.id = u.account_id WHERE a.domain IS NULL AND a.deleted_at IS NULL';
      const r = activeSince === undefined ? db.get(sql) : db.get(`${sql} AND a.last_status_at >= ?`, activeSince);
      return int(r?.n);
    },
    async listStaff() {
      return db.all(`${ACCOUNT} WHERE role IS NOT NULL AND domain IS NULL AND deleted_at IS NULL`).map(accountFromRow);
    },
    async listForAdmin(filter, page) {
      const { where, params } = adminWhere(filter, page);
      const order = page.minId !== undefined ? 'ASC' : 'DESC';
      const rows = db.all(`${ACCOUNT} WHERE ${where} ORDER BY id ${order} LIMIT +?`, ...params, Math.max(0, page.limit)).map(accountFromRow);
      return page.minId !== undefined ? rows.reverse() : rows;
    },
    async removeUnapproved(accountId) {
      const k = lookupKey(accountId);
      if (k === null) return false;
      return db.write(() => {
        if (!db.get('SELECT 1 FROM users u JOIN accounts a ON a.id = u.account_id WHERE u.account_id = ? AND u.approved = 0 AND a.domain IS NULL', k)) return false;
        db.run('DELETE FROM users WHERE account_id = ?', k);
        // Its follows go with it, should it have any: the kept lists of local followers
        // (relationships.ts) trust every follow to name an account that is there.
        db.run('DELETE FROM follows WHERE account_id = ?', k);
        db.run('DELETE FROM accounts WHERE id = ?', k);
        return true;
      });
    },
  };
}

/** The WHERE clause of the admin listing (columns of `accounts`; the user's through subqueries). */
function adminWhere(filter: AdminAccountFilter, page: Page): { where: string; params: (string | bigint | number)[] } {
  const parts: string[] = ['1 = 1'];
  const params: (string | bigint | number)[] = [];
  const user = (condition: string) => `EXISTS (SELECT 1 FROM users u WHERE u.account_id = accounts.id AND ${condition})`;
  if (filter.origin === 'local') parts.push('domain IS NULL');
  if (filter.origin === 'remote') parts.push('domain IS NOT NULL');
  switch (filter.status) {
    case 'active':
      parts.push('suspended_at IS NULL');
      break;
    case 'pending':
      parts.push(user('u.approved = 0'));
      break;
    case 'disabled':
      parts.push(user('u.disabled = 1'), 'suspended_at IS NULL');
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
  if (filter.roles !== undefined) {
    parts.push('domain IS NULL AND role IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filter.roles));
  }
  if (filter.domain !== undefined) {
    parts.push('lower(domain) = lower(?)');
    params.push(filter.domain);
  }
  if (filter.usernamePrefix !== undefined) {
    parts.push('substr(lower(username), 1, length(?)) = lower(?)');
    params.push(filter.usernamePrefix, filter.usernamePrefix);
  }
  if (filter.displayNameContains !== undefined) {
    parts.push('instr(lower(display_name), lower(?)) > 0');
    params.push(filter.displayNameContains);
  }
  if (filter.emailPrefix !== undefined) {
    parts.push(user('substr(lower(u.email), 1, length(?)) = lower(?)'));
    params.push(filter.emailPrefix, filter.emailPrefix);
  }
  const max = page.maxId === undefined ? null : lookupKey(page.maxId);
  const since = page.minId ?? page.sinceId;
  const min = since === undefined ? null : lookupKey(since);
  if (max !== null) {
    parts.push('id < ?');
    params.push(max);
  }
  if (min !== null) {
    parts.push('id > ?');
    params.push(min);
  }
  return { where: parts.join(' AND '), params };
}
