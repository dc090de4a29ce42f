// Storage in memory (tests, demos). Every operation runs synchronously inside its async
// function, so each one is atomic with respect to every other; objects are cloned on the way in
// and on the way out, so callers never share state with the store.

import { compareIds } from '../../core/ids.ts';
import { StorageConflict } from '../../core/ports/storage.ts';
import type {
  AccountRepository,
  CardRepository,
  FilterRepository,
  InteractionRepository,
  ListRepository,
  MarkerRepository,
  MediaRepository,
  NotificationRepository,
  OAuthRepository,
  Page,
  PollRepository,
  RelationshipFacts,
  RelationshipRepository,
  ScheduledStatusRepository,
  StatusQuery,
  StatusRepository,
  Storage,
} from '../../core/ports/storage.ts';
import type {
  AccessToken,
  Account,
  Application,
  AuthorizationCode,
  Block,
  Filter,
  Follow,
  FollowRequest,
  Id,
  List,
  Marker,
  MediaAttachment,
  Mute,
  Notification,
  Poll,
  PreviewCard,
  ScheduledStatus,
  Status,
  StatusEdit,
  StatusMark,
  User,
  WebSession,
} from '../../core/model.ts';

const clone = <T>(value: T): T => structuredClone(value);
const pair = (a: string, b: string): string => `${a}\u0000${b}`;
/** ASCII-only lower case, as SQLite's lower() and the port's "case-insensitive (ASCII)". */
const asciiLower = (s: string): string => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const acctKey = (username: string, domain: string | null): string => pair(asciiLower(username), domain === null ? '' : asciiLower(domain));
const uniqueIds = (ids: readonly Id[]): Id[] => [...new Set(ids)];
/** The port's default order for lists: newest (highest id) first. */
const newestFirst = <T extends { id: Id }>(items: T[]): T[] => items.sort((a, b) => compareIds(b.id, a.id));

/** Object.assign for a patch, skipping keys whose value is undefined (absent, as SQL sees it). */
function assignDefined<T extends object>(target: T, patch: Partial<T>): void {
  for (const [k, v] of Object.entries(patch)) if (v !== undefined) (target as Record<string, unknown>)[k] = clone(v);
}

function decrement(n: number): number {
  return n > 0 ? n - 1 : 0;
}

/** Newest first by cursor; maxId/sinceId/minId as the port describes; limit 0 = all when asked. */
function paginate<T>(items: Iterable<T>, cursor: (item: T) => Id, page: Page, zeroIsAll = false): T[] {
  const { maxId, sinceId, minId } = page;
  let rows: T[] = [];
  for (const item of items) {
    const c = cursor(item);
    if (maxId !== undefined && compareIds(c, maxId) >= 0) continue;
    if (sinceId !== undefined && compareIds(c, sinceId) <= 0) continue;
    if (minId !== undefined && compareIds(c, minId) <= 0) continue;
    rows.push(item);
  }
  const all = zeroIsAll && page.limit === 0;
  const limit = Math.max(0, page.limit);
  if (minId !== undefined) {
    rows.sort((a, b) => compareIds(cursor(a), cursor(b)));
    if (!all) rows = rows.slice(0, limit);
    return rows.reverse();
  }
  rows.sort((a, b) => compareIds(cursor(b), cursor(a)));
  return all ? rows : rows.slice(0, limit);
}

/** A table of rows with their own id, unique on a pair key (favourites, follows, blocks …). */
class PairTable<T extends { id: Id }> {
  readonly byPair = new Map<string, T>();
  readonly byId = new Map<Id, string>();
  get(a: Id, b: Id): T | undefined {
    return this.byPair.get(pair(a, b));
  }
  /** Throws StorageConflict 'id' when the row's id is taken by another pair. */
  insert(a: Id, b: Id, row: T): void {
    if (this.byId.has(row.id)) throw new StorageConflict('id');
    const k = pair(a, b);
    this.byPair.set(k, row);
    this.byId.set(row.id, k);
  }
  remove(a: Id, b: Id): T | undefined {
    const k = pair(a, b);
    const row = this.byPair.get(k);
    if (row === undefined) return undefined;
    this.byPair.delete(k);
    this.byId.delete(row.id);
    return row;
  }
  values(): IterableIterator<T> {
    return this.byPair.values();
  }
}

interface Membership {
  id: Id;
  listId: Id;
  accountId: Id;
}

export function createMemoryStorage(): Storage {
  // ---- state -------------------------------------------------------------------------------
  const accounts = new Map<Id, Account>();
  const accountByAcct = new Map<string, Id>();
  const users = new Map<Id, User>();
  const userByEmail = new Map<string, Id>();

  const statuses = new Map<Id, Status>();
  const liveBoosts = new Map<string, Id>(); // pair(booster, original) → boost id
  const idempotency = new Map<string, { statusId: Id; usedAt: number }>();
  const edits = new Map<Id, StatusEdit[]>();
  const editIds = new Set<Id>();

  const favourites = new PairTable<StatusMark>();
  const bookmarks = new PairTable<StatusMark>();
  const pins = new PairTable<StatusMark>();
  const conversationMutes = new Set<string>();

  const follows = new PairTable<Follow>();
  const requests = new PairTable<FollowRequest>();
  const blocks = new PairTable<Block>();
  const mutes = new PairTable<Mute>();

  const notifications = new Map<Id, Notification>();
  const lists = new Map<Id, List>();
  const memberships = new Map<Id, Membership>();
  const membershipByPair = new Map<string, Id>(); // pair(list, account) → membership id
  const filters = new Map<Id, Filter>();
  const markers = new Map<string, Marker>();

  const applications = new Map<Id, Application>();
  const applicationByClientId = new Map<string, Id>();
  const tokens = new Map<Id, AccessToken>();
  const tokenByHash = new Map<string, Id>();
  const tokenByRefreshHash = new Map<string, Id>();
  const codes = new Map<Id, AuthorizationCode>();
  const codeByHash = new Map<string, Id>();
  const sessions = new Map<Id, WebSession>();
  const sessionByHash = new Map<string, Id>();

  const mediaById = new Map<Id, MediaAttachment>();
  const polls = new Map<Id, Poll>();
  const pollVotes = new Map<string, number[]>(); // pair(poll, account) → choices
  const scheduledById = new Map<Id, ScheduledStatus>();
  const cards = new Map<Id, PreviewCard>();
  const cardByUrl = new Map<string, Id>();
  const statusCards = new Map<Id, Id>();

  // ---- shared helpers ------------------------------------------------------------------------
  const live = (id: Id | null): Status | undefined => {
    if (id === null) return undefined;
    const s = statuses.get(id);
    return s !== undefined && s.deletedAt === null ? s : undefined;
  };
  const addToAccount = (id: Id, field: 'statusesCount' | 'followersCount' | 'followingCount', delta: 1 | -1): void => {
    const a = accounts.get(id);
    if (a) a[field] = delta > 0 ? a[field] + 1 : decrement(a[field]);
  };
  const addToStatus = (id: Id | null, field: 'repliesCount' | 'reblogsCount' | 'favouritesCount', delta: 1 | -1): void => {
    const s = id === null ? undefined : statuses.get(id);
    if (s) s[field] = delta > 0 ? s[field] + 1 : decrement(s[field]);
  };
  /** Each media must exist, belong to the author and be unattached (or attached to `own`). */
  const checkMedia = (accountId: Id, mediaIds: readonly Id[], own: Id | null): void => {
    for (const id of mediaIds) {
      const m = mediaById.get(id);
      if (!m || m.accountId !== accountId || (m.statusId !== null && m.statusId !== own)) throw new StorageConflict('media');
    }
  };
  const attachMedia = (statusId: Id, mediaIds: readonly Id[]): void => {
    for (const id of mediaIds) {
      const m = mediaById.get(id);
      if (m) m.statusId = statusId;
    }
  };
  const storePoll = (p: Poll, replace: boolean): void => {
    if (polls.has(p.id)) {
      if (!replace) throw new StorageConflict('id');
      if (p.votersCount === 0) {
        for (const k of [...pollVotes.keys()]) if (k.startsWith(pair(p.id, ''))) pollVotes.delete(k);
      }
    }
    polls.set(p.id, clone(p));
  };
  const insertStatus = (s: Status): Status => {
    if (statuses.has(s.id)) throw new StorageConflict('id');
    if (s.reblogOfId !== null && s.deletedAt === null && liveBoosts.has(pair(s.accountId, s.reblogOfId))) throw new StorageConflict('reblog');
    const stored = clone(s);
    statuses.set(stored.id, stored);
    if (stored.reblogOfId !== null && stored.deletedAt === null) liveBoosts.set(pair(stored.accountId, stored.reblogOfId), stored.id);
    return stored;
  };
  const softDelete = (s: Status, at: number): void => {
    s.deletedAt = at;
    if (s.reblogOfId !== null) liveBoosts.delete(pair(s.accountId, s.reblogOfId));
  };
  const isMember = (listId: Id, accountId: Id): boolean => membershipByPair.has(pair(listId, accountId));

  // ---- accounts ------------------------------------------------------------------------------
  const accountRepo: AccountRepository = {
    async create(account, user) {
      const key = acctKey(account.username, account.domain);
      if (accountByAcct.has(key)) throw new StorageConflict('username');
      if (user && userByEmail.has(asciiLower(user.email))) throw new StorageConflict('email');
      if (accounts.has(account.id) || (user && users.has(user.accountId))) throw new StorageConflict('id');
      accounts.set(account.id, clone(account));
      accountByAcct.set(key, account.id);
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
    async update(id, patch) {
      const a = accounts.get(id);
      if (!a) return null;
      assignDefined(a, patch);
      return clone(a);
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
    async updateUser(accountId, patch) {
      const u = users.get(accountId);
      if (!u) return null;
      assignDefined(u, patch);
      return clone(u);
    },
    async countLocalUsers() {
      let n = 0;
      for (const u of users.values()) if (accounts.get(u.accountId)?.domain === null) n += 1;
      return n;
    },
  };

  // ---- statuses ------------------------------------------------------------------------------
  const matches = (s: Status, q: StatusQuery, followed: Set<Id> | null, members: Set<Id> | null): boolean => {
    if (s.deletedAt !== null) return false;
    if (!q.visibilities.includes(s.visibility) && !(q.orMentioning !== undefined && s.mentionIds.includes(q.orMentioning))) return false;
    if (q.authorId !== undefined && s.accountId !== q.authorId) return false;
    if (followed !== null && s.accountId !== q.homeOf && !followed.has(s.accountId)) return false;
    if (members !== null && !members.has(s.accountId)) return false;
    if (q.tag !== undefined && !s.tags.includes(q.tag)) return false;
    if (q.local !== undefined && s.local !== q.local) return false;
    if (q.onlyMedia && s.mediaIds.length === 0) return false;
    if (q.excludeReblogs && s.reblogOfId !== null) return false;
    if (q.excludeRepliesToOthers && s.inReplyToId !== null && s.inReplyToAccountId !== s.accountId) return false;
    return true;
  };

  const statusRepo: StatusRepository = {
    async create(s, effects, options) {
      const idem = options?.idempotency;
      if (idem) {
        const used = idempotency.get(pair(s.accountId, idem.key));
        if (used && used.usedAt >= idem.notBefore) {
          const first = live(used.statusId);
          return { created: false, existing: first ? clone(first) : null };
        }
      }
      checkMedia(s.accountId, s.mediaIds, null);
      const p = options?.poll;
      if (p && polls.has(p.id)) throw new StorageConflict('id');
      const stored = insertStatus(s);
      attachMedia(s.id, s.mediaIds);
      if (p) storePoll(p, false);
      if (effects.countForAuthor) {
        addToAccount(s.accountId, 'statusesCount', 1);
        const a = accounts.get(s.accountId);
        if (a) a.lastStatusAt = s.createdAt;
      }
      addToStatus(effects.countReplyOf, 'repliesCount', 1);
      if (idem) idempotency.set(pair(s.accountId, idem.key), { statusId: s.id, usedAt: s.createdAt });
      return { created: true, status: clone(stored) };
    },
    async findIdempotent(accountId, key, notBefore) {
      const used = idempotency.get(pair(accountId, key));
      if (!used || used.usedAt < notBefore) return null;
      const first = live(used.statusId);
      return { status: first ? clone(first) : null };
    },
    async reblog(b) {
      if (b.reblogOfId === null) throw new TypeError('reblog: the status is not a boost (reblogOfId is null)');
      const existing = live(liveBoosts.get(pair(b.accountId, b.reblogOfId)) ?? null);
      if (existing) return { created: false, status: clone(existing) };
      const stored = insertStatus(b);
      addToStatus(b.reblogOfId, 'reblogsCount', 1);
      addToAccount(b.accountId, 'statusesCount', 1);
      return { created: true, status: clone(stored) };
    },
    async get(id) {
      const s = live(id);
      return s ? clone(s) : null;
    },
    async getMany(ids) {
      const out: Status[] = [];
      for (const id of uniqueIds(ids)) {
        const s = live(id);
        if (s) out.push(clone(s));
      }
      return newestFirst(out);
    },
    async findReblog(accountId, statusId) {
      const s = live(liveBoosts.get(pair(accountId, statusId)) ?? null);
      return s ? clone(s) : null;
    },
    async delete(id, deletedAt, effects) {
      const s = live(id);
      if (!s) return null;
      softDelete(s, deletedAt);
      if (effects.countForAuthor) addToAccount(s.accountId, 'statusesCount', -1);
      addToStatus(effects.countReplyOf, 'repliesCount', -1);
      if (s.reblogOfId !== null) addToStatus(s.reblogOfId, 'reblogsCount', -1);
      const boosts: Status[] = [];
      for (const b of statuses.values()) {
        if (b.reblogOfId === id && b.deletedAt === null) {
          softDelete(b, deletedAt);
          addToAccount(b.accountId, 'statusesCount', -1);
          boosts.push(b);
        }
      }
      boosts.sort((a, b) => compareIds(a.id, b.id));
      for (const p of [...pins.values()]) if (p.statusId === id) pins.remove(p.accountId, p.statusId);
      return { status: clone(s), boosts: boosts.map(clone) };
    },
    async update(id, patch, revisions, options) {
      const s = live(id);
      if (!s) return null;
      checkMedia(s.accountId, patch.mediaIds, s.id);
      for (const r of revisions) if (editIds.has(r.id)) throw new StorageConflict('id');
      assignDefined(s, patch);
      attachMedia(s.id, patch.mediaIds);
      const history = edits.get(id) ?? [];
      for (const r of revisions) {
        history.push(clone(r));
        editIds.add(r.id);
      }
      edits.set(id, history);
      if (options?.poll) storePoll(options.poll, true);
      return clone(s);
    },
    async edits(statusId) {
      const history = [...(edits.get(statusId) ?? [])];
      history.sort((a, b) => a.createdAt - b.createdAt || compareIds(a.id, b.id));
      return history.map(clone);
    },
    async query(q, page) {
      let followed: Set<Id> | null = null;
      if (q.homeOf !== undefined) {
        followed = new Set();
        for (const f of follows.values()) if (f.accountId === q.homeOf) followed.add(f.targetAccountId);
      }
      let members: Set<Id> | null = null;
      if (q.listId !== undefined) {
        members = new Set();
        for (const m of memberships.values()) if (m.listId === q.listId) members.add(m.accountId);
      }
      const rows: Status[] = [];
      for (const s of statuses.values()) if (matches(s, q, followed, members)) rows.push(s);
      return paginate(rows, (s) => s.id, page).map(clone);
    },
    async replies(parentIds) {
      const parents = new Set(parentIds);
      const out: Status[] = [];
      for (const s of statuses.values()) if (s.deletedAt === null && s.inReplyToId !== null && parents.has(s.inReplyToId)) out.push(s);
      out.sort((a, b) => compareIds(a.id, b.id));
      return out.map(clone);
    },
    async reblogs(statusId, visibilities, page) {
      const rows: Status[] = [];
      for (const s of statuses.values()) {
        if (s.deletedAt === null && s.reblogOfId === statusId && visibilities.includes(s.visibility)) rows.push(s);
      }
      return paginate(rows, (s) => s.id, page).map(clone);
    },
    async countLocal() {
      let n = 0;
      for (const s of statuses.values()) if (s.local && s.deletedAt === null) n += 1;
      return n;
    },
  };

  // ---- interactions --------------------------------------------------------------------------
  const livePinCount = (accountId: Id): number => {
    let n = 0;
    for (const p of pins.values()) if (p.accountId === accountId && live(p.statusId)) n += 1;
    return n;
  };
  const interactionRepo: InteractionRepository = {
    async favourite(m) {
      if (favourites.get(m.accountId, m.statusId)) return false;
      favourites.insert(m.accountId, m.statusId, clone(m));
      addToStatus(m.statusId, 'favouritesCount', 1);
      return true;
    },
    async unfavourite(accountId, statusId) {
      if (!favourites.remove(accountId, statusId)) return false;
      addToStatus(statusId, 'favouritesCount', -1);
      return true;
    },
    async favouritesOf(statusId, page) {
      const rows = [...favourites.values()].filter((m) => m.statusId === statusId);
      return paginate(rows, (m) => m.id, page).map(clone);
    },
    async favouritesBy(accountId, page) {
      const rows = [...favourites.values()].filter((m) => m.accountId === accountId && live(m.statusId));
      return paginate(rows, (m) => m.id, page).map(clone);
    },
    async bookmark(m) {
      if (bookmarks.get(m.accountId, m.statusId)) return false;
      bookmarks.insert(m.accountId, m.statusId, clone(m));
      return true;
    },
    async unbookmark(accountId, statusId) {
      return bookmarks.remove(accountId, statusId) !== undefined;
    },
    async bookmarksBy(accountId, page) {
      const rows = [...bookmarks.values()].filter((m) => m.accountId === accountId && live(m.statusId));
      return paginate(rows, (m) => m.id, page).map(clone);
    },
    async pin(m, max) {
      if (pins.get(m.accountId, m.statusId)) return 'exists';
      if (livePinCount(m.accountId) >= max) return 'limit';
      pins.insert(m.accountId, m.statusId, clone(m));
      return 'added';
    },
    async unpin(accountId, statusId) {
      return pins.remove(accountId, statusId) !== undefined;
    },
    async pinsBy(accountId) {
      const rows = [...pins.values()].filter((m) => m.accountId === accountId && live(m.statusId));
      rows.sort((a, b) => compareIds(b.id, a.id));
      return rows.map(clone);
    },
    async muteConversation(accountId, conversationId) {
      const k = pair(accountId, conversationId);
      if (conversationMutes.has(k)) return false;
      conversationMutes.add(k);
      return true;
    },
    async unmuteConversation(accountId, conversationId) {
      return conversationMutes.delete(pair(accountId, conversationId));
    },
    async conversationMutedBy(conversationId, accountIds) {
      return uniqueIds(accountIds).filter((a) => conversationMutes.has(pair(a, conversationId)));
    },
    async viewerState(accountId, statusIds, conversationIds) {
      const state = {
        favourited: new Set<Id>(),
        reblogged: new Set<Id>(),
        bookmarked: new Set<Id>(),
        pinned: new Set<Id>(),
        mutedConversations: new Set<Id>(),
      };
      for (const id of statusIds) {
        if (favourites.get(accountId, id)) state.favourited.add(id);
        if (live(liveBoosts.get(pair(accountId, id)) ?? null)) state.reblogged.add(id);
        if (bookmarks.get(accountId, id)) state.bookmarked.add(id);
        if (pins.get(accountId, id)) state.pinned.add(id);
      }
      for (const c of conversationIds) if (conversationMutes.has(pair(accountId, c))) state.mutedConversations.add(c);
      return state;
    },
  };

  // ---- relationships -------------------------------------------------------------------------
  const removeFollow = (accountId: Id, targetId: Id): boolean => {
    if (!follows.remove(accountId, targetId)) return false;
    addToAccount(accountId, 'followingCount', -1);
    addToAccount(targetId, 'followersCount', -1);
    return true;
  };
  const relationshipRepo: RelationshipRepository = {
    async follow(f) {
      const existing = follows.get(f.accountId, f.targetAccountId);
      if (existing) {
        existing.showReblogs = f.showReblogs;
        existing.notify = f.notify;
        existing.languages = clone(f.languages);
        requests.remove(f.accountId, f.targetAccountId);
        return 'updated';
      }
      follows.insert(f.accountId, f.targetAccountId, clone(f));
      addToAccount(f.accountId, 'followingCount', 1);
      addToAccount(f.targetAccountId, 'followersCount', 1);
      requests.remove(f.accountId, f.targetAccountId);
      return 'created';
    },
    async unfollow(accountId, targetId) {
      return removeFollow(accountId, targetId);
    },
    async getFollow(accountId, targetId) {
      const f = follows.get(accountId, targetId);
      return f ? clone(f) : null;
    },
    async requestFollow(r) {
      if (follows.get(r.accountId, r.targetAccountId)) return 'exists';
      const existing = requests.get(r.accountId, r.targetAccountId);
      if (existing) {
        existing.showReblogs = r.showReblogs;
        existing.notify = r.notify;
        existing.languages = clone(r.languages);
        return 'exists';
      }
      requests.insert(r.accountId, r.targetAccountId, clone(r));
      return 'created';
    },
    async cancelFollowRequest(accountId, targetId) {
      return requests.remove(accountId, targetId) !== undefined;
    },
    async followRequestsTo(targetId, page) {
      const rows = [...requests.values()].filter((r) => r.targetAccountId === targetId);
      return paginate(rows, (r) => r.id, page).map(clone);
    },
    async followersOf(targetId, page) {
      const rows = [...follows.values()].filter((f) => f.targetAccountId === targetId);
      return paginate(rows, (f) => f.id, page).map(clone);
    },
    async followingOf(accountId, page) {
      const rows = [...follows.values()].filter((f) => f.accountId === accountId);
      return paginate(rows, (f) => f.id, page).map(clone);
    },
    async localFollowers(targetId) {
      const rows = [...follows.values()].filter((f) => f.targetAccountId === targetId && accounts.get(f.accountId)?.domain === null);
      rows.sort((a, b) => compareIds(b.id, a.id));
      return rows.map(clone);
    },
    async block(b) {
      if (blocks.get(b.accountId, b.targetAccountId)) return false;
      blocks.insert(b.accountId, b.targetAccountId, clone(b));
      removeFollow(b.accountId, b.targetAccountId);
      removeFollow(b.targetAccountId, b.accountId);
      requests.remove(b.accountId, b.targetAccountId);
      requests.remove(b.targetAccountId, b.accountId);
      return true;
    },
    async unblock(accountId, targetId) {
      return blocks.remove(accountId, targetId) !== undefined;
    },
    async blocksBy(accountId, page) {
      const rows = [...blocks.values()].filter((b) => b.accountId === accountId);
      return paginate(rows, (b) => b.id, page).map(clone);
    },
    async mute(m) {
      const existing = mutes.get(m.accountId, m.targetAccountId);
      if (existing) {
        existing.notifications = m.notifications;
        existing.expiresAt = m.expiresAt;
        return false;
      }
      mutes.insert(m.accountId, m.targetAccountId, clone(m));
      return true;
    },
    async unmute(accountId, targetId) {
      return mutes.remove(accountId, targetId) !== undefined;
    },
    async mutesBy(accountId, page) {
      const rows = [...mutes.values()].filter((m) => m.accountId === accountId);
      return paginate(rows, (m) => m.id, page).map(clone);
    },
    async relationships(accountId, targetIds) {
      return targetIds.map((targetId): RelationshipFacts => {
        const following = follows.get(accountId, targetId);
        const requested = requests.get(accountId, targetId);
        const muting = mutes.get(accountId, targetId);
        return {
          targetId,
          following: following ? clone(following) : null,
          followedBy: follows.get(targetId, accountId) !== undefined,
          requested: requested ? clone(requested) : null,
          requestedBy: requests.get(targetId, accountId) !== undefined,
          blocking: blocks.get(accountId, targetId) !== undefined,
          blockedBy: blocks.get(targetId, accountId) !== undefined,
          muting: muting ? clone(muting) : null,
        };
      });
    },
    async hiddenFrom(accountId, accountIds, now) {
      const hidden = new Set<Id>();
      for (const other of accountIds) {
        const m = mutes.get(accountId, other);
        if (blocks.get(accountId, other) || blocks.get(other, accountId) || (m && (m.expiresAt === null || m.expiresAt > now))) hidden.add(other);
      }
      return hidden;
    },
  };

  // ---- notifications -------------------------------------------------------------------------
  const notificationRepo: NotificationRepository = {
    async create(n) {
      if (notifications.has(n.id)) throw new StorageConflict('id');
      notifications.set(n.id, clone(n));
    },
    async get(accountId, id) {
      const n = notifications.get(id);
      return n && n.accountId === accountId ? clone(n) : null;
    },
    async list(accountId, f, page) {
      const rows = [...notifications.values()].filter(
        (n) =>
          n.accountId === accountId &&
          (f.types === undefined || f.types.includes(n.type)) &&
          (f.excludeTypes === undefined || !f.excludeTypes.includes(n.type)) &&
          (f.fromAccountId === undefined || n.fromAccountId === f.fromAccountId),
      );
      return paginate(rows, (n) => n.id, page).map(clone);
    },
    async dismiss(accountId, id) {
      const n = notifications.get(id);
      if (!n || n.accountId !== accountId) return false;
      notifications.delete(id);
      return true;
    },
    async clear(accountId) {
      for (const [id, n] of [...notifications]) if (n.accountId === accountId) notifications.delete(id);
    },
    async countSince(accountId, sinceId, limit) {
      let n = 0;
      for (const x of notifications.values()) if (x.accountId === accountId && (sinceId === null || compareIds(x.id, sinceId) > 0)) n += 1;
      return Math.min(n, Math.max(0, limit));
    },
  };

  // ---- lists, filters, markers ---------------------------------------------------------------
  const listRepo: ListRepository = {
    async create(l) {
      if (lists.has(l.id)) throw new StorageConflict('id');
      lists.set(l.id, clone(l));
    },
    async get(id) {
      const l = lists.get(id);
      return l ? clone(l) : null;
    },
    async listBy(accountId) {
      return [...lists.values()].filter((l) => l.accountId === accountId).sort((a, b) => compareIds(a.id, b.id)).map(clone);
    },
    async update(id, patch) {
      const l = lists.get(id);
      if (!l) return null;
      assignDefined(l, patch);
      return clone(l);
    },
    async delete(id) {
      if (!lists.delete(id)) return false;
      for (const m of [...memberships.values()]) {
        if (m.listId === id) {
          memberships.delete(m.id);
          membershipByPair.delete(pair(id, m.accountId));
        }
      }
      return true;
    },
    async addMembers(listId, accountIds, ids) {
      if (accountIds.length !== ids.length) throw new TypeError('addMembers: one membership id per account is required');
      const seen = new Set<Id>();
      for (const a of accountIds) {
        if (seen.has(a) || isMember(listId, a)) return 'duplicate';
        seen.add(a);
      }
      if (new Set(ids).size !== ids.length || ids.some((id) => memberships.has(id))) throw new StorageConflict('id');
      accountIds.forEach((accountId, i) => {
        const id = ids[i] as Id;
        memberships.set(id, { id, listId, accountId });
        membershipByPair.set(pair(listId, accountId), id);
      });
      return 'added';
    },
    async removeMembers(listId, accountIds) {
      for (const a of accountIds) {
        const id = membershipByPair.get(pair(listId, a));
        if (id !== undefined) {
          memberships.delete(id);
          membershipByPair.delete(pair(listId, a));
        }
      }
    },
    async members(listId, page) {
      const rows = [...memberships.values()].filter((m) => m.listId === listId);
      return paginate(rows, (m) => m.id, page, true).map((m) => ({ id: m.id, accountId: m.accountId }));
    },
    async listsContaining(accountId) {
      return newestFirst([...lists.values()].filter((l) => isMember(l.id, accountId))).map(clone);
    },
  };

  const filterRepo: FilterRepository = {
    async create(f) {
      if (filters.has(f.id)) throw new StorageConflict('id');
      filters.set(f.id, clone(f));
    },
    async get(id) {
      const f = filters.get(id);
      return f ? clone(f) : null;
    },
    async listBy(accountId) {
      return [...filters.values()].filter((f) => f.accountId === accountId).sort((a, b) => compareIds(a.id, b.id)).map(clone);
    },
    async replace(f) {
      if (!filters.has(f.id)) return null;
      filters.set(f.id, clone(f));
      return clone(f);
    },
    async delete(id) {
      return filters.delete(id);
    },
  };

  const markerRepo: MarkerRepository = {
    async get(accountId, timelines) {
      const out: Marker[] = [];
      for (const tl of new Set(timelines)) {
        const m = markers.get(pair(accountId, tl));
        if (m) out.push(clone(m));
      }
      return out;
    },
    async set(accountId, timeline, lastReadId, updatedAt) {
      const k = pair(accountId, timeline);
      const previous = markers.get(k);
      const m: Marker = { accountId, timeline, lastReadId, updatedAt, version: previous ? previous.version + 1 : 0 };
      markers.set(k, m);
      return clone(m);
    },
  };

  // ---- oauth ---------------------------------------------------------------------------------
  const oauthRepo: OAuthRepository = {
    async createApplication(app) {
      if (applications.has(app.id)) throw new StorageConflict('id');
      if (applicationByClientId.has(app.clientId)) throw new StorageConflict('clientId');
      applications.set(app.id, clone(app));
      applicationByClientId.set(app.clientId, app.id);
    },
    async getApplication(id) {
      const a = applications.get(id);
      return a ? clone(a) : null;
    },
    async getApplicationsMany(ids) {
      const out: Application[] = [];
      for (const id of uniqueIds(ids)) {
        const a = applications.get(id);
        if (a) out.push(clone(a));
      }
      return newestFirst(out);
    },
    async findApplicationByClientId(clientId) {
      const id = applicationByClientId.get(clientId);
      const a = id === undefined ? undefined : applications.get(id);
      return a ? clone(a) : null;
    },
    async createToken(tok) {
      if (tokens.has(tok.id)) throw new StorageConflict('id');
      if (tokenByHash.has(tok.tokenHash)) throw new StorageConflict('tokenHash');
      if (tok.refreshTokenHash !== null && tokenByRefreshHash.has(tok.refreshTokenHash)) throw new StorageConflict('refreshTokenHash');
      tokens.set(tok.id, clone(tok));
      tokenByHash.set(tok.tokenHash, tok.id);
      if (tok.refreshTokenHash !== null) tokenByRefreshHash.set(tok.refreshTokenHash, tok.id);
    },
    async findTokenByRefreshHash(refreshTokenHash) {
      const id = tokenByRefreshHash.get(refreshTokenHash);
      const tok = id === undefined ? undefined : tokens.get(id);
      return tok ? clone(tok) : null;
    },
    async revokeTokenByRefreshHash(refreshTokenHash, at) {
      const id = tokenByRefreshHash.get(refreshTokenHash);
      const tok = id === undefined ? undefined : tokens.get(id);
      if (!tok || tok.revokedAt !== null) return null;
      const before = clone(tok);
      tok.revokedAt = at;
      return before;
    },
    async findTokenByHash(tokenHash) {
      const id = tokenByHash.get(tokenHash);
      const tok = id === undefined ? undefined : tokens.get(id);
      return tok ? clone(tok) : null;
    },
    async revokeToken(id, at) {
      const tok = tokens.get(id);
      if (!tok || tok.revokedAt !== null) return false;
      tok.revokedAt = at;
      return true;
    },
    async createCode(c) {
      if (codes.has(c.id)) throw new StorageConflict('id');
      if (codeByHash.has(c.codeHash)) throw new StorageConflict('codeHash');
      codes.set(c.id, clone(c));
      codeByHash.set(c.codeHash, c.id);
    },
    async consumeCode(codeHash, now) {
      const id = codeByHash.get(codeHash);
      const c = id === undefined ? undefined : codes.get(id);
      if (!c || c.usedAt !== null || c.expiresAt <= now) return null;
      c.usedAt = now;
      return clone(c);
    },
    async createSession(s) {
      if (sessions.has(s.id)) throw new StorageConflict('id');
      if (sessionByHash.has(s.idHash)) throw new StorageConflict('idHash');
      sessions.set(s.id, clone(s));
      sessionByHash.set(s.idHash, s.id);
    },
    async findSessionByHash(idHash, now) {
      const id = sessionByHash.get(idHash);
      const s = id === undefined ? undefined : sessions.get(id);
      return s && s.expiresAt > now ? clone(s) : null;
    },
    async deleteSession(id) {
      const s = sessions.get(id);
      if (!s) return;
      sessions.delete(id);
      sessionByHash.delete(s.idHash);
    },
  };

  // ---- media, polls --------------------------------------------------------------------------
  const mediaRepo: MediaRepository = {
    async create(m) {
      if (mediaById.has(m.id)) throw new StorageConflict('id');
      mediaById.set(m.id, clone(m));
    },
    async get(id) {
      const m = mediaById.get(id);
      return m ? clone(m) : null;
    },
    async getMany(ids) {
      const out: MediaAttachment[] = [];
      for (const id of uniqueIds(ids)) {
        const m = mediaById.get(id);
        if (m) out.push(clone(m));
      }
      return out;
    },
    async update(id, patch) {
      const m = mediaById.get(id);
      if (!m) return null;
      assignDefined(m, patch);
      return clone(m);
    },
    async deleteUnattached(id) {
      const m = mediaById.get(id);
      if (!m || m.statusId !== null) return false;
      mediaById.delete(id);
      return true;
    },
  };

  const pollRepo: PollRepository = {
    async get(id) {
      const p = polls.get(id);
      return p ? clone(p) : null;
    },
    async getMany(ids) {
      const out: Poll[] = [];
      for (const id of uniqueIds(ids)) {
        const p = polls.get(id);
        if (p) out.push(clone(p));
      }
      return newestFirst(out);
    },
    async vote(pollId, accountId, choices) {
      const p = polls.get(pollId);
      const k = pair(pollId, accountId);
      if (!p || pollVotes.has(k)) return 'already';
      pollVotes.set(k, [...choices]);
      for (const c of choices) p.votes[c] = (p.votes[c] ?? 0) + 1;
      p.votesCount += choices.length;
      p.votersCount += 1;
      return 'voted';
    },
    async votesBy(accountId, pollIds) {
      const out = new Map<Id, number[]>();
      for (const id of pollIds) {
        const v = pollVotes.get(pair(id, accountId));
        if (v) out.set(id, [...v]);
      }
      return out;
    },
  };

  // ---- scheduled, cards ----------------------------------------------------------------------
  const scheduledRepo: ScheduledStatusRepository = {
    async create(s) {
      if (scheduledById.has(s.id)) throw new StorageConflict('id');
      scheduledById.set(s.id, clone(s));
    },
    async get(id) {
      const s = scheduledById.get(id);
      return s ? clone(s) : null;
    },
    async listBy(accountId, page) {
      const rows = [...scheduledById.values()].filter((s) => s.accountId === accountId);
      return paginate(rows, (s) => s.id, page).map(clone);
    },
    async update(id, scheduledAt) {
      const s = scheduledById.get(id);
      if (!s) return null;
      s.scheduledAt = scheduledAt;
      return clone(s);
    },
    async delete(id) {
      return scheduledById.delete(id);
    },
    async countBetween(accountId, from, to) {
      let n = 0;
      for (const s of scheduledById.values()) if (s.accountId === accountId && s.scheduledAt >= from && s.scheduledAt < to) n += 1;
      return n;
    },
    async countPending(accountId) {
      let n = 0;
      for (const s of scheduledById.values()) if (s.accountId === accountId) n += 1;
      return n;
    },
    async claimDue(now, leaseMs, limit) {
      const due = [...scheduledById.values()]
        .filter((s) => s.scheduledAt <= now && (s.claimedUntil === null || s.claimedUntil <= now))
        .sort((a, b) => a.scheduledAt - b.scheduledAt || compareIds(a.id, b.id))
        .slice(0, Math.max(0, limit));
      for (const s of due) s.claimedUntil = now + leaseMs;
      return due.map(clone);
    },
  };

  const cardRepo: CardRepository = {
    async upsert(c) {
      const existingId = cardByUrl.get(c.url);
      if (existingId !== undefined) {
        const stored = { ...clone(c), id: existingId };
        cards.set(existingId, stored);
        return clone(stored);
      }
      if (cards.has(c.id)) throw new StorageConflict('id');
      cards.set(c.id, clone(c));
      cardByUrl.set(c.url, c.id);
      return clone(c);
    },
    async findByUrl(url) {
      const id = cardByUrl.get(url);
      const c = id === undefined ? undefined : cards.get(id);
      return c ? clone(c) : null;
    },
    async attach(statusId, cardId) {
      statusCards.set(statusId, cardId);
    },
    async forStatuses(statusIds) {
      const out = new Map<Id, PreviewCard>();
      for (const id of statusIds) {
        const cardId = statusCards.get(id);
        const c = cardId === undefined ? undefined : cards.get(cardId);
        if (c) out.set(id, clone(c));
      }
      return out;
    },
  };

  return {
    accounts: accountRepo,
    statuses: statusRepo,
    interactions: interactionRepo,
    relationships: relationshipRepo,
    notifications: notificationRepo,
    lists: listRepo,
    filters: filterRepo,
    markers: markerRepo,
    oauth: oauthRepo,
    media: mediaRepo,
    polls: pollRepo,
    scheduled: scheduledRepo,
    cards: cardRepo,
    async close() {},
  };
}
