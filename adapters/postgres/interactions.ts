// Favourites, bookmarks, pins and conversation mutes. A mark and the counter it moves are one
// statement: INSERT … ON CONFLICT DO NOTHING (a concurrent insert of the same mark is waited for,
// then skipped) whose RETURNING drives the counter's UPDATE, which re-reads the newest row.

import type { InteractionRepository, Page, ViewerState } from '../../core/domain/ports/storage.ts';
import type { StatusMark } from '../../core/domain/model.ts';
import type { Db, Row, Sql } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { Params, id, int, key, keys, lookupKey, paged } from './values.ts';

type MarkTable = 'favourites' | 'bookmarks' | 'pins';

function markFromRow(r: Row): StatusMark {
  return { id: id(r['id']), accountId: id(r['account_id']), statusId: id(r['status_id']), createdAt: int(r['created_at']) };
}

/** Inserts the mark unless (account, status) has one; true when inserted. A clash on the mark's
 * own id is not swallowed: it surfaces as StorageConflict 'id'. */
async function addMark(sql: Sql, table: MarkTable, m: StatusMark): Promise<boolean> {
  return (
    (await sql.run(`INSERT INTO ${table} (id, account_id, status_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, status_id) DO NOTHING`, [
      key(m.id), key(m.accountId), key(m.statusId), m.createdAt,
    ])) > 0
  );
}

async function removeMark(sql: Sql, table: MarkTable, accountId: string, statusId: string): Promise<boolean> {
  const a = lookupKey(accountId);
  const s = lookupKey(statusId);
  if (a === null || s === null) return false;
  return (await sql.run(`DELETE FROM ${table} WHERE account_id = $1 AND status_id = $2`, [a, s])) > 0;
}

/** An account's marks of live statuses, paged by mark id. */
function marksOfLiveStatuses(db: Db, table: MarkTable, accountId: string, page: Page): Promise<StatusMark[]> {
  const p = new Params();
  const base = `m.account_id = ${p.id(accountId)} AND EXISTS (SELECT 1 FROM statuses s WHERE s.id = m.status_id AND s.deleted_at IS NULL)`;
  return paged(db, p, `SELECT m.id, m.account_id, m.status_id, m.created_at FROM ${table} m`, base, 'm.id', page, markFromRow);
}

/** The five flags in one statement: this runs for every status a signed-in user reads. */
const VIEWER_STATE = `
  SELECT 0 AS k, status_id AS v FROM favourites WHERE account_id = $1 AND status_id = ANY($2::bigint[])
  UNION ALL SELECT 1, reblog_of_id FROM statuses WHERE account_id = $1 AND reblog_of_id = ANY($2::bigint[]) AND deleted_at IS NULL
  UNION ALL SELECT 2, status_id FROM bookmarks WHERE account_id = $1 AND status_id = ANY($2::bigint[])
  UNION ALL SELECT 3, status_id FROM pins WHERE account_id = $1 AND status_id = ANY($2::bigint[])
  UNION ALL SELECT 4, conversation_id FROM conversation_mutes WHERE account_id = $1 AND conversation_id = ANY($3::bigint[])`;

export function interactionRepository(db: Db): InteractionRepository {
  /** Adds or removes a favourite with its counter, in one statement; true when it changed. */
  const favourite = (sql: Sql, m: StatusMark): Promise<number> =>
    sql.run(
      `WITH added AS (
         INSERT INTO favourites (id, account_id, status_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, status_id) DO NOTHING
         RETURNING status_id
       ), counted AS (
         UPDATE statuses SET favourites_count = favourites_count + 1 WHERE id = (SELECT status_id FROM added)
       )
       SELECT 1 FROM added`,
      [key(m.id), key(m.accountId), key(m.statusId), m.createdAt],
    );
  const unfavourite = (sql: Sql, accountId: string, statusId: string): Promise<number> =>
    sql.run(
      `WITH removed AS (
         DELETE FROM favourites WHERE account_id = $1 AND status_id = $2 RETURNING status_id
       ), counted AS (
         UPDATE statuses SET favourites_count = greatest(favourites_count - 1, 0) WHERE id = (SELECT status_id FROM removed)
       )
       SELECT 1 FROM removed`,
      [accountId, statusId],
    );
  return {
    async favourite(m, outbox) {
      return writeWithOutbox(db, outbox, async (sql) => (await favourite(sql, m)) > 0);
    },
    async unfavourite(accountId, statusId, outbox) {
      const a = lookupKey(accountId);
      const s = lookupKey(statusId);
      return writeWithOutbox(db, outbox, async (sql) => (a === null || s === null ? false : (await unfavourite(sql, a, s)) > 0));
    },
    async favouritesOf(statusId, page) {
      const p = new Params();
      return paged(db, p, 'SELECT id, account_id, status_id, created_at FROM favourites', `status_id = ${p.id(statusId)}`, 'id', page, markFromRow);
    },
    async favouritesBy(accountId, page) {
      return marksOfLiveStatuses(db, 'favourites', accountId, page);
    },
    async bookmark(m) {
      return addMark(db, 'bookmarks', m);
    },
    async unbookmark(accountId, statusId) {
      return removeMark(db, 'bookmarks', accountId, statusId);
    },
    async bookmarksBy(accountId, page) {
      return marksOfLiveStatuses(db, 'bookmarks', accountId, page);
    },
    async pin(m, max) {
      const params = [key(m.id), key(m.accountId), key(m.statusId), m.createdAt, Math.max(0, Math.trunc(max))];
      // The limit counts the account's pins, so the account's pins are taken one at a time: an
      // advisory lock first, then (a new statement, which sees what the previous holder
      // committed) the count and the insert.
      return db.transaction(async (tx) => {
        await tx.row(`SELECT pg_advisory_xact_lock(hashtextextended('rookery.pins:' || $1::text, 0))`, [params[1]]);
        const r = await tx.row(
          `WITH existing AS (
             SELECT 1 FROM pins WHERE account_id = $2 AND status_id = $3
           ), pinned AS (
             SELECT count(*) AS n FROM pins p JOIN statuses s ON s.id = p.status_id AND s.deleted_at IS NULL WHERE p.account_id = $2
           ), added AS (
             INSERT INTO pins (id, account_id, status_id, created_at)
             SELECT $1::bigint, $2::bigint, $3::bigint, $4::bigint WHERE NOT EXISTS (SELECT 1 FROM existing) AND (SELECT n FROM pinned) < $5
             RETURNING 1
           )
           SELECT EXISTS (SELECT 1 FROM existing) AS exists, EXISTS (SELECT 1 FROM added) AS added`,
          params,
        );
        return r?.['exists'] === true ? 'exists' : r?.['added'] === true ? 'added' : 'limit';
      });
    },
    async unpin(accountId, statusId) {
      return removeMark(db, 'pins', accountId, statusId);
    },
    async pinsBy(accountId) {
      const a = lookupKey(accountId);
      if (a === null) return [];
      return (
        await db.rows(
          `SELECT p.id, p.account_id, p.status_id, p.created_at FROM pins p JOIN statuses s ON s.id = p.status_id AND s.deleted_at IS NULL
           WHERE p.account_id = $1 ORDER BY p.id DESC`,
          [a],
        )
      ).map(markFromRow);
    },
    async muteConversation(accountId, conversationId) {
      return (await db.run('INSERT INTO conversation_mutes (account_id, conversation_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [key(accountId), key(conversationId)])) > 0;
    },
    async unmuteConversation(accountId, conversationId) {
      const a = lookupKey(accountId);
      const c = lookupKey(conversationId);
      if (a === null || c === null) return false;
      return (await db.run('DELETE FROM conversation_mutes WHERE account_id = $1 AND conversation_id = $2', [a, c])) > 0;
    },
    async conversationMutedBy(conversationId, accountIds) {
      const c = lookupKey(conversationId);
      const wanted = keys(accountIds);
      if (c === null || wanted.length === 0) return [];
      const rows = await db.rows('SELECT account_id FROM conversation_mutes WHERE conversation_id = $1 AND account_id = ANY($2::bigint[])', [c, wanted]);
      const muted = new Set(rows.map((r) => id(r['account_id'])));
      return [...new Set(accountIds)].filter((a) => muted.has(a));
    },
    async viewerState(accountId, statusIds, conversationIds) {
      const state: ViewerState = { favourited: new Set(), reblogged: new Set(), bookmarked: new Set(), pinned: new Set(), mutedConversations: new Set() };
      const a = lookupKey(accountId);
      const statuses = keys(statusIds);
      const conversations = keys(conversationIds);
      if (a === null || (statuses.length === 0 && conversations.length === 0)) return state;
      const flags = [state.favourited, state.reblogged, state.bookmarked, state.pinned, state.mutedConversations];
      for (const r of await db.rows(VIEWER_STATE, [a, statuses, conversations])) flags[int(r['k'])]?.add(id(r['v']));
      return state;
    },
  };
}
