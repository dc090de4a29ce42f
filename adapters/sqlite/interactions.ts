import type { InteractionRepository, Page, ViewerState } from '../../core/domain/ports/storage.ts';
import { isId } from '../../core/domain/ids.ts';
import type { Id, StatusMark } from '../../core/domain/model.ts';
import { id, int, key, keyList, paged, type Db, type Row } from './db.ts';
import { bumpStatus } from './statuses.ts';
import { unchanged, writeWithOutbox } from './jobs.ts';
import { RowCache } from './cache.ts';

type MarkTable = 'favourites' | 'bookmarks' | 'pins';

function markFromRow(r: Row): StatusMark {
  return { id: id(r.id), accountId: id(r.account_id), statusId: id(r.status_id), createdAt: int(r.created_at) };
}

/** Inserts the mark unless (account, status) has one; true when inserted. A clash on the mark's
 * own id is not swallowed: it surfaces as StorageConflict 'id'. */
function addMark(db: Db, table: MarkTable, m: StatusMark): boolean {
  return (
    db.run(
      `INSERT INTO ${table} (id, account_id, status_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, status_id) DO NOTHING`,
      key(m.id), key(m.accountId), key(m.statusId), m.createdAt,
    ) > 0
  );
}

function removeMark(db: Db, table: MarkTable, accountId: Id, statusId: Id): boolean {
  return db.run(`DELETE FROM ${table} WHERE account_id = ? AND status_id = ?`, key(accountId), key(statusId)) > 0;
}

/** An account's marks of live statuses, paged by mark id. */
function marksOfLiveStatuses(db: Db, table: MarkTable, accountId: Id, page: Page): StatusMark[] {
  return paged(
    db,
    `SELECT m.id, m.account_id, m.status_id, m.created_at FROM ${table} m`,
    'm.account_id = ? AND EXISTS (SELECT 1 FROM statuses s WHERE s.id = m.status_id AND s.deleted_at IS NULL)',
    [key(accountId)],
    'm.id',
    page,
    markFromRow,
  );
}

function idSet(db: Db, sql: string, ...params: (bigint | string)[]): Set<Id> {
  return new Set(db.all(sql, ...params).map((r) => id(r.v)));
}

const VIEWER_STATE = `
  SELECT 0 AS k, status_id AS v FROM favourites WHERE account_id = ?1 AND status_id IN (SELECT value FROM json_each(?2))
  UNION ALL SELECT 1, reblog_of_id FROM statuses WHERE account_id = ?1 AND reblog_of_id IN (SELECT value FROM json_each(?2)) AND deleted_at IS NULL
  UNION ALL SELECT 2, status_id FROM bookmarks WHERE account_id = ?1 AND status_id IN (SELECT value FROM json_each(?2))
  UNION ALL SELECT 3, status_id FROM pins WHERE account_id = ?1 AND status_id IN (SELECT value FROM json_each(?2))
  UNION ALL SELECT 4, conversation_id FROM conversation_mutes WHERE account_id = ?1 AND conversation_id IN (SELECT value FROM json_each(?3))`;

/** The same for one status (reading one status is the most common read): plain equalities
 * instead of json_each, which costs more than the lookups themselves. */
const VIEWER_STATE_ONE = `
  SELECT 0 AS k, status_id AS v FROM favourites WHERE account_id = ?1 AND status_id = ?2
  UNION ALL SELECT 1, reblog_of_id FROM statuses WHERE account_id = ?1 AND reblog_of_id = ?2 AND deleted_at IS NULL
  UNION ALL SELECT 2, status_id FROM bookmarks WHERE account_id = ?1 AND status_id = ?2
  UNION ALL SELECT 3, status_id FROM pins WHERE account_id = ?1 AND status_id = ?2
  UNION ALL SELECT 4, conversation_id FROM conversation_mutes WHERE account_id = ?1 AND conversation_id = ?3`;

function copyState(state: ViewerState): ViewerState {
  return {
    favourited: new Set(state.favourited),
    reblogged: new Set(state.reblogged),
    bookmarked: new Set(state.bookmarked),
    pinned: new Set(state.pinned),
    mutedConversations: new Set(state.mutedConversations),
  };
}

export function interactionRepository(db: Db): InteractionRepository {
  // A reader's flags on the statuses of a read, kept until a table they come from changes (here
  // or, through data_version, in another process): the signed-in path reads them once.
  const states = new RowCache<string, ViewerState>(db, ['favourites', 'statuses', 'bookmarks', 'pins', 'conversation_mutes'], 5_000, copyState);
  // Whether a reader has marked a status, as last read. Its absence is kept too, so any change
  // to the table makes every entry stale: what it spares is a repeated mark's read (a double
  // tap, a client's retry), which would otherwise open a read snapshot of its own.
  const marked = {
    favourites: new RowCache<string, boolean>(db, 'favourites', 5_000, (found) => found),
    bookmarks: new RowCache<string, boolean>(db, 'bookmarks', 5_000, (found) => found),
  };
  /** Whether (account, status) has a mark, read outside any write: a repeated favourite or
   * bookmark then costs this read instead of a commit, and the turn a group commit waits for.
   * The write still decides for itself (a race between the read and the write only means
   * the write finds nothing to do). */
  const hasMark = (table: 'favourites' | 'bookmarks', accountId: Id, statusId: Id): boolean => {
    const cacheKey = `${accountId}|${statusId}`;
    const kept = marked[table].get(cacheKey);
    if (kept !== undefined) return kept;
    const found = db.get(`SELECT 1 AS found FROM ${table} WHERE account_id = ? AND status_id = ?`, key(accountId), key(statusId)) !== undefined;
    marked[table].set(cacheKey, found);
    return found;
  };
  return {
    async favourite(m, outbox) {
      if (hasMark('favourites', m.accountId, m.statusId)) return unchanged(db, outbox, false);
      return writeWithOutbox(db, outbox, () => {
        if (!addMark(db, 'favourites', m)) return false;
        bumpStatus(db, m.statusId, 'favourites_count', 1);
        return true;
      });
    },
    async unfavourite(accountId, statusId, outbox) {
      if (!hasMark('favourites', accountId, statusId)) return unchanged(db, outbox, false);
      return writeWithOutbox(db, outbox, () => {
        if (!removeMark(db, 'favourites', accountId, statusId)) return false;
        bumpStatus(db, statusId, 'favourites_count', -1);
        return true;
      });
    },
    async favouritesOf(statusId, page) {
      return paged(db, 'SELECT id, account_id, status_id, created_at FROM favourites', 'status_id = ?', [key(statusId)], 'id', page, markFromRow);
    },
    async favouritesBy(accountId, page) {
      return marksOfLiveStatuses(db, 'favourites', accountId, page);
    },
    async bookmark(m) {
      if (hasMark('bookmarks', m.accountId, m.statusId)) return false;
      return db.write(() => addMark(db, 'bookmarks', m));
    },
    async unbookmark(accountId, statusId) {
      if (!hasMark('bookmarks', accountId, statusId)) return false;
      return db.write(() => removeMark(db, 'bookmarks', accountId, statusId));
    },
    async bookmarksBy(accountId, page) {
      return marksOfLiveStatuses(db, 'bookmarks', accountId, page);
    },
    async pin(m, max) {
      return db.write(() => {
        if (db.get('SELECT 1 FROM pins WHERE account_id = ? AND status_id = ?', key(m.accountId), key(m.statusId))) return 'exists';
        const pinned = db.get(
          `SELECT count(*) AS n FROM pins p JOIN statuses s ON s.id = p.status_id AND s.deleted_at IS NULL WHERE p.account_id = ?`,
          key(m.accountId),
        );
        if (int(pinned?.n) >= max) return 'limit';
        addMark(db, 'pins', m);
        return 'added';
      });
    },
    async unpin(accountId, statusId) {
      return db.write(() => removeMark(db, 'pins', accountId, statusId));
    },
    async pinsBy(accountId) {
      return db
        .all(
          `SELECT p.id, p.account_id, p.status_id, p.created_at FROM pins p JOIN statuses s ON s.id = p.status_id AND s.deleted_at IS NULL
           WHERE p.account_id = ? ORDER BY p.id DESC`,
          key(accountId),
        )
        .map(markFromRow);
    },
    async muteConversation(accountId, conversationId) {
      return db.write(
        () =>
          db.run(
            'INSERT INTO conversation_mutes (account_id, conversation_id) VALUES (?, ?) ON CONFLICT DO NOTHING',
            key(accountId), key(conversationId),
          ) > 0,
      );
    },
    async unmuteConversation(accountId, conversationId) {
      return db.write(() => db.run('DELETE FROM conversation_mutes WHERE account_id = ? AND conversation_id = ?', key(accountId), key(conversationId)) > 0);
    },
    async conversationMutedBy(conversationId, accountIds) {
      const muted = idSet(
        db,
        'SELECT account_id AS v FROM conversation_mutes WHERE conversation_id = ? AND account_id IN (SELECT value FROM json_each(?))',
        key(conversationId), keyList(accountIds),
      );
      return [...new Set(accountIds)].filter((a) => muted.has(a));
    },
    async viewerState(accountId, statusIds, conversationIds) {
      const cacheKey = `${accountId}|${statusIds.join(',')}|${conversationIds.join(',')}`;
      const kept = states.get(cacheKey);
      if (kept !== undefined) return kept;
      // One statement for the five flags: this runs for every status a signed-in user reads.
      const state: ViewerState = { favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set(), mutedConversations: new Set() };
      const flags = [state.favourited, state.reblogged, state.bookmarked, state.pinned, state.mutedConversations];
      const [statusId, conversationId] = [statusIds[0], conversationIds[0]];
      const one = statusIds.length === 1 && statusId !== undefined && isId(statusId) && conversationIds.length <= 1 && (conversationId === undefined || isId(conversationId));
      const rows = one
        ? // No conversation: 0, which no row has.
          db.all(VIEWER_STATE_ONE, key(accountId), key(statusId), conversationId === undefined ? 0 : key(conversationId))
        : db.all(VIEWER_STATE, key(accountId), keyList(statusIds), keyList(conversationIds));
      for (const r of rows) flags[Number(r.k)]?.add(id(r.v));
      states.set(cacheKey, state);
      return state;
    },
  };
}
