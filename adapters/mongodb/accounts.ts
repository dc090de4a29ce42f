// Accounts, with their user (sign-in side) and their pins inside the account document: creating
// an account with its user, a profile edit that also replaces the posting defaults, and the pin
// limit are then each one single-document write, atomic without a transaction.
//
// Uniqueness: `usernameKey`/`domainKey` (ASCII lower case, '' for local) under the unique index
// accounts_acct ('username'); `user.emailKey` under accounts_email ('email').

import type { Account, Id, User, UserSettings } from '../../core/domain/model.ts';
import type { AccountRepository, AdminAccountFilter } from '../../core/domain/ports/storage.ts';
import type { Mongo } from './db.ts';
import { C } from './schema.ts';
import { applyPatch, asciiLower, inPageOrder, lookupId, num, pageQuery, setFields, stored, validIds, withRange, type Doc } from './values.ts';

export const ACCOUNT_PATCH_FIELDS = ['displayName', 'note', 'locked', 'bot', 'discoverable', 'fields', 'avatarUrl', 'headerUrl', 'url', 'role', 'suspendedAt', 'silencedAt', 'sensitizedAt', 'deletedAt', 'movedToAccountId', 'alsoKnownAs'] as const;
export const USER_PATCH_FIELDS = ['passwordHash', 'confirmedAt', 'approved', 'disabled', 'locale', 'settings'] as const;

/** What account reads leave out: the user, the pins, pending jobs. */
export const ACCOUNT_PROJECTION = { user: 0, pins: 0, _jobs: 0 };

export function userSubdoc(u: User): Doc {
  return {
    email: u.email,
    emailKey: asciiLower(u.email),
    passwordHash: u.passwordHash,
    createdAt: u.createdAt,
    confirmedAt: u.confirmedAt,
    approved: u.approved,
    disabled: u.disabled,
    locale: u.locale,
    createdByApplicationId: u.createdByApplicationId,
    settings: u.settings,
  };
}

export function accountDoc(a: Account, u?: User): Doc {
  const doc: Doc = {
    _id: a.id,
    num: num(a.id),
    username: a.username,
    domain: a.domain,
    usernameKey: asciiLower(a.username),
    domainKey: a.domain === null ? '' : asciiLower(a.domain),
    displayName: a.displayName,
    note: a.note,
    locked: a.locked,
    bot: a.bot,
    discoverable: a.discoverable,
    fields: a.fields,
    avatarUrl: a.avatarUrl,
    headerUrl: a.headerUrl,
    url: a.url,
    uri: a.uri,
    createdAt: a.createdAt,
    statusesCount: a.statusesCount,
    followersCount: a.followersCount,
    followingCount: a.followingCount,
    lastStatusAt: a.lastStatusAt,
    role: a.role,
    suspendedAt: a.suspendedAt ?? null,
    silencedAt: a.silencedAt ?? null,
    sensitizedAt: a.sensitizedAt ?? null,
    deletedAt: a.deletedAt,
    movedToAccountId: a.movedToAccountId,
    alsoKnownAs: a.alsoKnownAs,
  };
  if (u !== undefined) doc['user'] = userSubdoc(u);
  return doc;
}

export function accountFromDoc(d: Doc): Account {
  // What moderators did shows only when they did it (absent reads as "not so").
  return withModeration(
    {
      id: d['_id'] as Id,
      username: d['username'] as string,
      domain: d['domain'] as string | null,
      displayName: d['displayName'] as string,
      note: d['note'] as string,
      locked: d['locked'] as boolean,
      bot: d['bot'] as boolean,
      discoverable: d['discoverable'] as boolean,
      fields: d['fields'] as Account['fields'],
      avatarUrl: d['avatarUrl'] as string | null,
      headerUrl: d['headerUrl'] as string | null,
      url: d['url'] as string | null,
      uri: d['uri'] as string | null,
      createdAt: d['createdAt'] as number,
      statusesCount: d['statusesCount'] as number,
      followersCount: d['followersCount'] as number,
      followingCount: d['followingCount'] as number,
      lastStatusAt: d['lastStatusAt'] as number | null,
      // Documents written before roles existed have none.
      role: (d['role'] as string | null | undefined) ?? null,
      // Nor do documents written before accounts could be deleted or moved.
      deletedAt: (d['deletedAt'] as number | null | undefined) ?? null,
      movedToAccountId: (d['movedToAccountId'] as Id | null | undefined) ?? null,
      alsoKnownAs: [...((d['alsoKnownAs'] as string[] | undefined) ?? [])],
    },
    (d['suspendedAt'] as number | null | undefined) ?? null,
    (d['silencedAt'] as number | null | undefined) ?? null,
    (d['sensitizedAt'] as number | null | undefined) ?? null,
  );
}

/** Adds the moderation times that are set (the model's fields are absent otherwise). */
function withModeration(account: Account, suspendedAt: number | null, silencedAt: number | null, sensitizedAt: number | null): Account {
  if (suspendedAt !== null) account.suspendedAt = suspendedAt;
  if (silencedAt !== null) account.silencedAt = silencedAt;
  if (sensitizedAt !== null) account.sensitizedAt = sensitizedAt;
  return account;
}

export function userFromDoc(accountId: Id, u: Doc): User {
  return {
    accountId,
    email: u['email'] as string,
    passwordHash: u['passwordHash'] as string,
    createdAt: u['createdAt'] as number,
    confirmedAt: u['confirmedAt'] as number | null,
    approved: u['approved'] as boolean,
    disabled: u['disabled'] as boolean,
    locale: u['locale'] as string,
    createdByApplicationId: u['createdByApplicationId'] as Id | null,
    settings: u['settings'] as UserSettings,
  };
}

export function usernameFilter(username: string, domain: string | null): Doc {
  return { usernameKey: asciiLower(username), domainKey: domain === null ? '' : asciiLower(domain) };
}

export const emailFilter = (email: string): Doc => ({ 'user.emailKey': asciiLower(email) });

export const LOCAL_USERS: Doc = { domain: null, 'user.emailKey': { $type: 'string' }, deletedAt: { $not: { $type: 'number' } } };

type AccountPatch = Parameters<AccountRepository['update']>[1];
type UserPatch = Parameters<AccountRepository['updateUser']>[1];

/** A profile edit: the patch's fields, and the user's settings when it has a user; null when
 * nothing changes. */
export function accountUpdate(patch: AccountPatch, settings: UserSettings | undefined, hasUser: boolean): Doc | null {
  const set = setFields(patch, ACCOUNT_PATCH_FIELDS);
  if (settings !== undefined && hasUser) set['user.settings'] = settings;
  return Object.keys(set).length === 0 ? null : { $set: set };
}

export function userUpdate(patch: UserPatch): Doc | null {
  const set = setFields(patch, USER_PATCH_FIELDS, 'user.');
  return Object.keys(set).length === 0 ? null : { $set: set };
}

export function accountRepository(m: Mongo): AccountRepository {
  const accounts = m.collection(C.accounts);
  return {
    async create(a, u) {
      try {
        await accounts.insertOne(stored(accountDoc(a, u)));
      } catch (error) {
        throw m.translate(error);
      }
    },
    async get(accountId) {
      const id = lookupId(accountId);
      if (id === null) return null;
      const d = await accounts.findOne({ _id: id }, { projection: ACCOUNT_PROJECTION });
      return d ? accountFromDoc(d) : null;
    },
    async getMany(ids) {
      const wanted = validIds(ids);
      if (wanted.length === 0) return [];
      return (await accounts.find({ _id: { $in: wanted } }, { projection: ACCOUNT_PROJECTION }).toArray()).map(accountFromDoc);
    },
    async findByUsername(username, domain) {
      const d = await accounts.findOne(usernameFilter(username, domain), { projection: ACCOUNT_PROJECTION });
      return d ? accountFromDoc(d) : null;
    },
    async findByUri(uri) {
      const d = await accounts.findOne({ uri }, { projection: ACCOUNT_PROJECTION });
      return d ? accountFromDoc(d) : null;
    },
    async update(accountId, patch, options = {}) {
      const id = lookupId(accountId);
      if (id === null) return null;
      return m.cas({
        collection: C.accounts,
        read: () => accounts.findOne({ _id: id }, { projection: { pins: 0, _jobs: 0 } }),
        decide: (current) => {
          if (current === null) return { result: null, write: null };
          const update = accountUpdate(patch, options.settings, current['user'] !== undefined);
          const result = applyPatch(accountFromDoc(current), patch, ACCOUNT_PATCH_FIELDS);
          // As read back: a moderation time undone is absent.
          for (const field of ['suspendedAt', 'silencedAt', 'sensitizedAt'] as const) if (result[field] === null) delete result[field];
          return { result, write: update === null ? null : { update } };
        },
        outbox: options.outbox,
      });
    },
    async getUser(accountId) {
      const id = lookupId(accountId);
      if (id === null) return null;
      const d = await accounts.findOne({ _id: id, user: { $exists: true } }, { projection: { user: 1 } });
      return d ? userFromDoc(id, d['user'] as Doc) : null;
    },
    async findUserByEmail(email) {
      const d = await accounts.findOne(emailFilter(email), { projection: { user: 1 } });
      return d ? userFromDoc(d['_id'] as Id, d['user'] as Doc) : null;
    },
    async updateUser(accountId, patch, outbox) {
      const id = lookupId(accountId);
      if (id === null) return null;
      return m.cas({
        collection: C.accounts,
        read: () => accounts.findOne({ _id: id }, { projection: { user: 1, _v: 1 } }),
        decide: (current) => {
          const u = current?.['user'] as Doc | undefined;
          if (current === null || u === undefined) return { result: null, write: null };
          const update = userUpdate(patch);
          return { result: applyPatch(userFromDoc(id, u), patch, USER_PATCH_FIELDS), write: update === null ? null : { update } };
        },
        outbox,
      });
    },
    async changeEmail(accountId, email) {
      const id = lookupId(accountId);
      if (id === null) return null;
      // The unique index accounts_email reports a taken address (StorageConflict 'email').
      const matched = await m.updateWithJobs(C.accounts, { _id: id, user: { $type: 'object' } }, { $set: { 'user.email': email, 'user.emailKey': asciiLower(email) } }, []);
      if (matched === 0) return null;
      const d = await accounts.findOne({ _id: id }, { projection: { user: 1 } });
      const u = d?.['user'] as Doc | undefined;
      return u === undefined ? null : userFromDoc(id, u);
    },
    async countLocalUsers(activeSince?: number) {
      return accounts.countDocuments(activeSince === undefined ? LOCAL_USERS : { ...LOCAL_USERS, lastStatusAt: { $gte: activeSince } });
    },
    async listStaff() {
      return (await accounts.find({ domain: null, role: { $type: 'string' }, deletedAt: { $not: { $type: 'number' } } }).toArray()).map(accountFromDoc);
    },
    async listForAdmin(filter, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const rows = await accounts.find(withRange(adminQuery(filter), p), { projection: ACCOUNT_PROJECTION }).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(rows, p).map(accountFromDoc);
    },
    async removeUnapproved(accountId) {
      const id = lookupId(accountId);
      if (id === null) return false;
      // One document holds the account and its user.
      const result = await accounts.deleteOne({ _id: id, domain: null, 'user.approved': false });
      return result.deletedCount > 0;
    },
  };
}

const escapeRegex = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The admin listing's query: usernames and e-mails by their lower-case keys (prefix), the
 * display name by a case-insensitive search. */
export function adminQuery(filter: AdminAccountFilter): Doc {
  const and: Doc[] = [];
  if (filter.origin === 'local') and.push({ domain: null });
  if (filter.origin === 'remote') and.push({ domain: { $ne: null } });
  const notSuspended = { $or: [{ suspendedAt: null }, { suspendedAt: { $exists: false } }] };
  switch (filter.status) {
    case 'active':
      and.push(notSuspended);
      break;
    case 'pending':
      and.push({ 'user.approved': false });
      break;
    case 'disabled':
      and.push({ 'user.disabled': true }, notSuspended);
      break;
    case 'silenced':
      and.push({ silencedAt: { $type: 'number' } });
      break;
    case 'suspended':
      and.push({ suspendedAt: { $type: 'number' } });
      break;
    case 'sensitized':
      and.push({ sensitizedAt: { $type: 'number' } });
      break;
    case undefined:
      break;
  }
  if (filter.roles !== undefined) and.push({ domain: null, role: { $in: [...filter.roles] } });
  if (filter.domain !== undefined) and.push({ domainKey: asciiLower(filter.domain), domain: { $ne: null } });
  // Patterns as strings ($regex/$options): what every driver and server reads the same way.
  if (filter.usernamePrefix !== undefined) and.push({ usernameKey: { $regex: `^${escapeRegex(asciiLower(filter.usernamePrefix))}` } });
  if (filter.displayNameContains !== undefined) and.push({ displayName: { $regex: escapeRegex(filter.displayNameContains), $options: 'i' } });
  if (filter.emailPrefix !== undefined) and.push({ 'user.emailKey': { $regex: `^${escapeRegex(asciiLower(filter.emailPrefix))}` } });
  return and.length === 0 ? {} : { $and: and };
}
