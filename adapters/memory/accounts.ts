import { StorageConflict, type AccountRepository } from '../../core/domain/ports/storage.ts';
import type { Account, Id } from '../../core/domain/model.ts';
import { assignDefined, clone, decrement, pair, uniqueIds } from './shared.ts';
import type { MemoryState } from './state.ts';
import { recordOutbox } from './jobs.ts';

/** ASCII-only lower case, as SQLite's lower() and the port's "case-insensitive (ASCII)". */
const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const acctKey = (username: string, domain: string | null): string => pair(asciiLower(username), domain === null ? '' : asciiLower(domain));

/** Moves an account's counter by one, never below zero (statuses and follows call this). */
export function addToAccount(state: MemoryState, id: Id, field: 'statusesCount' | 'followersCount' | 'followingCount', delta: 1 | -1): void {
  const a = state.accounts.get(id);
  if (a) a[field] = delta > 0 ? a[field] + 1 : decrement(a[field]);
}

export function accountRepository(state: MemoryState): AccountRepository {
  const { accounts, accountByAcct, accountByUri, users, userByEmail } = state;
  return {
    async create(account, user) {
      const key = acctKey(account.username, account.domain);
      if (accountByAcct.has(key)) throw new StorageConflict('username');
      if (user && userByEmail.has(asciiLower(user.email))) throw new StorageConflict('email');
      if (account.uri !== null && accountByUri.has(account.uri)) throw new StorageConflict('uri');
      if (accounts.has(account.id) || (user && users.has(user.accountId))) throw new StorageConflict('id');
      accounts.set(account.id, clone(account));
      accountByAcct.set(key, account.id);
      if (account.uri !== null) accountByUri.set(account.uri, account.id);
      if (user) {
        users.set(user.accountId, clone(user));
        userByEmail.set(asciiLower(user.email), user.accountId);
      }
    },
    async get(id) {
      const a = accounts.get(id);
      return a ? clone(a) : null;
    },
    async getMany(ids) {
      const out: Account[] = [];
      for (const id of uniqueIds(ids)) {
        const a = accounts.get(id);
        if (a) out.push(clone(a));
      }
      return out;
    },
    async findByUsername(username, domain) {
      const id = accountByAcct.get(acctKey(username, domain));
      const a = id === undefined ? undefined : accounts.get(id);
      return a ? clone(a) : null;
    },
    async findByUri(uri) {
      const id = accountByUri.get(uri);
      const a = id === undefined ? undefined : accounts.get(id);
      return a ? clone(a) : null;
    },
    async update(id, patch, options) {
      return recordOutbox(state.jobs, options?.outbox, (() => {
        const a = accounts.get(id);
        if (!a) return null;
        assignDefined(a, patch);
        const u = users.get(id);
        if (options?.settings && u) u.settings = clone(options.settings);
        return clone(a);
      })());
    },
    async getUser(accountId) {
      const u = users.get(accountId);
      return u ? clone(u) : null;
    },
    async findUserByEmail(email) {
      const id = userByEmail.get(asciiLower(email));
      const u = id === undefined ? undefined : users.get(id);
      return u ? clone(u) : null;
    },
    async updateUser(accountId, patch, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        const u = users.get(accountId);
        if (!u) return null;
        assignDefined(u, patch);
        return clone(u);
      })());
    },
    async countLocalUsers(activeSince?: number) {
      let n = 0;
      for (const u of users.values()) {
        const a = accounts.get(u.accountId);
        if (a?.domain === null && (activeSince === undefined || (a.lastStatusAt !== null && a.lastStatusAt >= activeSince))) n += 1;
      }
      return n;
    },
  };
}
