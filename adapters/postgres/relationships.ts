// Follows, requests, blocks, mutes and domain blocks. Each write is one statement: the row and
// the counters it moves, summed per account in one UPDATE.
//
// A follow and a follow request of one pair are one row (pending: a request), so the pair's
// unique constraint keeps them exclusive: a request and an acceptance racing meet on that row,
// whichever comes second waits for the first and then sees it (INSERT … ON CONFLICT DO UPDATE
// works on the newest version). Mutes are "insert, else update the row": when a concurrent
// insert committed after the statement began, it is visible to neither part and the statement
// runs again (it changed nothing).

import type { RelationshipFacts, RelationshipRepository } from '../../core/domain/ports/storage.ts';
import type { Block, Follow, FollowRequest, Mute } from '../../core/domain/model.ts';
import type { Db, Row, Sql } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { Params, bool, floorMs, id, int, intOrNull, jsonOrNull, jsonText, key, keys, lookupKey, paged, text } from './values.ts';

const FOLLOW_COLUMNS = 'id, account_id, target_account_id, show_reblogs, notify, languages, created_at';
/** The same columns of `follows f`, for a join. */
const FOLLOWS_F = FOLLOW_COLUMNS.split(', ').map((c) => `f.${c}`).join(', ');
const MUTE_COLUMNS = 'id, account_id, target_account_id, notifications, expires_at, created_at';

function followFromRow(r: Row, prefix = ''): Follow {
  return {
    id: id(r[`${prefix}id`]),
    accountId: id(r[`${prefix}account_id`]),
    targetAccountId: id(r[`${prefix}target_account_id`]),
    showReblogs: bool(r[`${prefix}show_reblogs`]),
    notify: bool(r[`${prefix}notify`]),
    languages: jsonOrNull(r[`${prefix}languages`]),
    createdAt: int(r[`${prefix}created_at`]),
  };
}

function blockFromRow(r: Row): Block {
  return { id: id(r['id']), accountId: id(r['account_id']), targetAccountId: id(r['target_account_id']), createdAt: int(r['created_at']) };
}

function muteFromRow(r: Row, prefix = ''): Mute {
  return {
    id: id(r[`${prefix}id`]),
    accountId: id(r[`${prefix}account_id`]),
    targetAccountId: id(r[`${prefix}target_account_id`]),
    notifications: bool(r[`${prefix}notifications`]),
    expiresAt: intOrNull(r[`${prefix}expires_at`]),
    createdAt: int(r[`${prefix}created_at`]),
  };
}

const languagesText = (languages: string[] | null) => (languages === null ? null : jsonText(languages));

/** Runs an insert-or-update statement (its row says `inserted` or `updated`) again until one of
 * them happened (see the top of this file); true when it inserted. */
async function upsertPair(sql: Sql, statement: string, params: readonly unknown[]): Promise<boolean> {
  for (let attempt = 1; ; attempt += 1) {
    const r = await sql.row(statement, params);
    if (r?.['inserted'] === true) return true;
    if (r?.['updated'] === true) return false;
    if (attempt === 5) throw new Error('the row kept changing under this write');
  }
}

/** The follows of a CTE named `removed` (account_id, target_account_id) give their counters
 * back: one UPDATE, one row per account. */
const UNCOUNT_FOLLOWS = `
  deltas AS (
    SELECT id, sum(following) AS following, sum(followers) AS followers FROM (
      SELECT account_id AS id, 1 AS following, 0 AS followers FROM removed
      UNION ALL SELECT target_account_id, 0, 1 FROM removed
    ) x GROUP BY id
  ), uncounted AS (
    UPDATE accounts SET following_count = greatest(following_count - d.following, 0), followers_count = greatest(followers_count - d.followers, 0)
    FROM deltas d WHERE accounts.id = d.id
  )`;

export function relationshipRepository(db: Db): RelationshipRepository {
  const pairParams = (accountId: string, targetId: string): [string, string] | null => {
    const a = lookupKey(accountId);
    const t = lookupKey(targetId);
    return a === null || t === null ? null : [a, t];
  };
  const deletePair = async (sql: Sql, table: string, accountId: string, targetId: string): Promise<boolean> => {
    const pair = pairParams(accountId, targetId);
    return pair !== null && (await sql.run(`DELETE FROM ${table} WHERE account_id = $1 AND target_account_id = $2`, pair)) > 0;
  };
  /** The target's follows by local accounts, newest first, narrowed by `also` (fixed SQL). */
  const localFollows = async (targetId: string, also: '' | ' AND f.notify'): Promise<Follow[]> => {
    const t = lookupKey(targetId);
    if (t === null) return [];
    const rows = await db.rows(
      `SELECT ${FOLLOWS_F} FROM follows f
       JOIN accounts a ON a.id = f.account_id AND a.domain IS NULL
       WHERE f.target_account_id = $1 AND NOT f.pending${also} ORDER BY f.id DESC`,
      [t],
    );
    return rows.map((r) => followFromRow(r));
  };
  return {
    async follow(f, outbox) {
      const params = [key(f.id), key(f.accountId), key(f.targetAccountId), f.showReblogs, f.notify, languagesText(f.languages), f.createdAt];
      // A new row, or the pending request turned into the follow (with this follow's id and
      // time), or the follow's options updated; the counters move unless it was a follow.
      const statement = `
        WITH written AS (
          INSERT INTO follows (${FOLLOW_COLUMNS}, pending, created_by_write) VALUES ($1, $2, $3, $4, $5, $6, $7, false, true)
          ON CONFLICT (account_id, target_account_id) DO UPDATE SET
            id = CASE WHEN follows.pending THEN excluded.id ELSE follows.id END,
            created_at = CASE WHEN follows.pending THEN excluded.created_at ELSE follows.created_at END,
            show_reblogs = excluded.show_reblogs, notify = excluded.notify, languages = excluded.languages,
            created_by_write = follows.pending, pending = false
          RETURNING created_by_write
        ), counted AS (
          UPDATE accounts SET following_count = following_count + (id = $2)::int, followers_count = followers_count + (id = $3)::int
          WHERE id IN ($2, $3) AND (SELECT created_by_write FROM written)
        )
        SELECT created_by_write AS created FROM written`;
      return writeWithOutbox(db, outbox, async (sql) => ((await sql.row(statement, params))?.['created'] === true ? 'created' : 'updated'));
    },
    async unfollow(accountId, targetId, outbox) {
      const pair = pairParams(accountId, targetId);
      return writeWithOutbox(db, outbox, async (sql) => {
        if (pair === null) return false;
        const r = await sql.row(
          `WITH removed AS (DELETE FROM follows WHERE account_id = $1 AND target_account_id = $2 AND NOT pending RETURNING account_id, target_account_id), ${UNCOUNT_FOLLOWS}
           SELECT count(*) AS n FROM removed`,
          pair,
        );
        return int(r?.['n']) > 0;
      });
    },
    async getFollow(accountId, targetId) {
      const pair = pairParams(accountId, targetId);
      if (pair === null) return null;
      const r = await db.row(`SELECT ${FOLLOW_COLUMNS} FROM follows WHERE account_id = $1 AND target_account_id = $2 AND NOT pending`, pair);
      return r ? followFromRow(r) : null;
    },
    async requestFollow(r: FollowRequest, outbox) {
      const params = [key(r.id), key(r.accountId), key(r.targetAccountId), r.showReblogs, r.notify, languagesText(r.languages), r.createdAt];
      // A new request, or the request's options updated; a follow of the pair is left alone.
      const statement = `
        INSERT INTO follows (${FOLLOW_COLUMNS}, pending, created_by_write) VALUES ($1, $2, $3, $4, $5, $6, $7, true, true)
        ON CONFLICT (account_id, target_account_id) DO UPDATE SET
          show_reblogs = excluded.show_reblogs, notify = excluded.notify, languages = excluded.languages, created_by_write = false
        WHERE follows.pending
        RETURNING created_by_write AS created`;
      return writeWithOutbox(db, outbox, async (sql) => ((await sql.row(statement, params))?.['created'] === true ? 'created' : 'exists'));
    },
    async cancelFollowRequest(accountId, targetId, outbox) {
      const pair = pairParams(accountId, targetId);
      return writeWithOutbox(db, outbox, async (sql) => pair !== null && (await sql.run('DELETE FROM follows WHERE account_id = $1 AND target_account_id = $2 AND pending', pair)) > 0);
    },
    async followRequestsTo(targetId, page) {
      const p = new Params();
      return paged(db, p, `SELECT ${FOLLOW_COLUMNS} FROM follows`, `target_account_id = ${p.id(targetId)} AND pending`, 'id', page, (r) => followFromRow(r));
    },
    async followRequestsBy(accountId, page) {
      const p = new Params();
      return paged(db, p, `SELECT ${FOLLOW_COLUMNS} FROM follows`, `account_id = ${p.id(accountId)} AND pending`, 'id', page, (r) => followFromRow(r));
    },
    async followersOf(targetId, page) {
      const p = new Params();
      return paged(db, p, `SELECT ${FOLLOW_COLUMNS} FROM follows`, `target_account_id = ${p.id(targetId)} AND NOT pending`, 'id', page, (r) => followFromRow(r));
    },
    async remoteFollowersOf(targetId, page) {
      const p = new Params();
      return paged(
        db, p,
        `SELECT ${FOLLOWS_F} FROM follows f JOIN accounts a ON a.id = f.account_id AND a.domain IS NOT NULL`,
        `f.target_account_id = ${p.id(targetId)} AND NOT f.pending`,
        'f.id', page, (r) => followFromRow(r),
      );
    },
    async followingOf(accountId, page) {
      const p = new Params();
      return paged(db, p, `SELECT ${FOLLOW_COLUMNS} FROM follows`, `account_id = ${p.id(accountId)} AND NOT pending`, 'id', page, (r) => followFromRow(r));
    },
    async familiarFollows(viewerId, targetIds, limit) {
      const me = lookupKey(viewerId);
      const others = keys(targetIds);
      if (me === null || others.length === 0 || limit <= 0) return [];
      const rows = await db.rows(
        `SELECT ${FOLLOW_COLUMNS} FROM follows
         WHERE target_account_id = ANY($1::bigint[]) AND NOT pending
           AND account_id IN (SELECT target_account_id FROM follows WHERE account_id = $2 AND NOT pending)
         ORDER BY id DESC LIMIT $3`,
        [others, me, Math.trunc(limit)],
      );
      return rows.map((r) => followFromRow(r));
    },
    async suggestions(viewerId, limit) {
      const me = lookupKey(viewerId);
      if (me === null || limit <= 0) return [];
      // What every source leaves out, for the candidate `a`.
      const eligible = `a.discoverable AND a.id <> $1
        AND NOT EXISTS (SELECT 1 FROM follows x WHERE x.account_id = $1 AND x.target_account_id = a.id)
        AND NOT EXISTS (SELECT 1 FROM suggestion_dismissals x WHERE x.account_id = $1 AND x.target_account_id = a.id)`;
      const friends = (
        await db.rows(
          `SELECT a.id AS id FROM follows f1 JOIN follows f2 ON f2.account_id = f1.target_account_id AND NOT f2.pending JOIN accounts a ON a.id = f2.target_account_id
           WHERE f1.account_id = $1 AND NOT f1.pending AND ${eligible}
           GROUP BY a.id ORDER BY count(*) DESC, a.followers_count DESC, a.id DESC LIMIT $2`,
          [me, Math.trunc(limit)],
        )
      ).map((r) => ({ accountId: id(r['id']), source: 'friends_of_friends' as const }));
      if (friends.length >= limit) return friends;
      const popular = (
        await db.rows(
          `SELECT a.id AS id FROM accounts a
           WHERE a.domain IS NULL AND a.followers_count > 0 AND ${eligible} AND a.id <> ALL($3::bigint[])
           ORDER BY a.followers_count DESC, a.id DESC LIMIT $2`,
          [me, Math.trunc(limit) - friends.length, friends.map((f) => f.accountId)],
        )
      ).map((r) => ({ accountId: id(r['id']), source: 'most_followed' as const }));
      return [...friends, ...popular];
    },
    async dismissSuggestion(accountId, targetId, createdAt) {
      await db.run('INSERT INTO suggestion_dismissals (account_id, target_account_id, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        key(accountId),
        key(targetId),
        createdAt,
      ]);
    },
    async localFollowers(targetId) {
      return localFollows(targetId, '');
    },
    async notifiedFollowers(targetId) {
      return localFollows(targetId, ' AND f.notify');
    },
    async block(b, outbox) {
      const params = [key(b.id), key(b.accountId), key(b.targetAccountId), b.createdAt];
      // The block, and (only when it is new) the follows and requests both ways, with the
      // follows' counters.
      const statement = `
        WITH added AS (
          INSERT INTO blocks (id, account_id, target_account_id, created_at) VALUES ($1, $2, $3, $4)
          ON CONFLICT (account_id, target_account_id) DO NOTHING RETURNING 1
        ), dropped AS (
          DELETE FROM follows WHERE ((account_id = $2 AND target_account_id = $3) OR (account_id = $3 AND target_account_id = $2))
            AND EXISTS (SELECT 1 FROM added)
          RETURNING account_id, target_account_id, pending
        ), removed AS (
          SELECT account_id, target_account_id FROM dropped WHERE NOT pending
        ), ${UNCOUNT_FOLLOWS}
        SELECT EXISTS (SELECT 1 FROM added) AS added`;
      return writeWithOutbox(db, outbox, async (sql) => (await sql.row(statement, params))?.['added'] === true);
    },
    async unblock(accountId, targetId, outbox) {
      return writeWithOutbox(db, outbox, (sql) => deletePair(sql, 'blocks', accountId, targetId));
    },
    async blocksBy(accountId, page) {
      const p = new Params();
      return paged(db, p, 'SELECT id, account_id, target_account_id, created_at FROM blocks', `account_id = ${p.id(accountId)}`, 'id', page, blockFromRow);
    },
    async mute(m, outbox) {
      const params = [key(m.id), key(m.accountId), key(m.targetAccountId), m.notifications, m.expiresAt, m.createdAt];
      const statement = `
        WITH ins AS (
          INSERT INTO mutes (${MUTE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id, target_account_id) DO NOTHING RETURNING 1
        ), upd AS (
          UPDATE mutes SET notifications = $4, expires_at = $5
          WHERE account_id = $2 AND target_account_id = $3 AND NOT EXISTS (SELECT 1 FROM ins) RETURNING 1
        )
        SELECT EXISTS (SELECT 1 FROM ins) AS inserted, EXISTS (SELECT 1 FROM upd) AS updated`;
      return writeWithOutbox(db, outbox, (sql) => upsertPair(sql, statement, params));
    },
    async unmute(accountId, targetId, outbox) {
      return writeWithOutbox(db, outbox, (sql) => deletePair(sql, 'mutes', accountId, targetId));
    },
    async nextMuteEnd(accountId, after) {
      const me = lookupKey(accountId);
      if (me === null) return null;
      const r = await db.row('SELECT min(expires_at) AS ends FROM mutes WHERE account_id = $1 AND expires_at > $2', [me, after]);
      return r === undefined || r['ends'] === null ? null : Number(r['ends']);
    },
    async mutesBy(accountId, page) {
      const p = new Params();
      return paged(db, p, `SELECT ${MUTE_COLUMNS} FROM mutes`, `account_id = ${p.id(accountId)}`, 'id', page, (r) => muteFromRow(r));
    },
    async relationships(accountId, targetIds) {
      if (targetIds.length === 0) return [];
      const me = lookupKey(accountId);
      const others = keys(targetIds);
      const found = new Map<string, Row>();
      if (me !== null && others.length > 0) {
        // Every fact about every target in one statement: a row per target.
        const rows = await db.rows(
          `SELECT t.id AS target,
             f.id AS f_id, f.account_id AS f_account_id, f.target_account_id AS f_target_account_id, f.show_reblogs AS f_show_reblogs,
             f.notify AS f_notify, f.languages AS f_languages, f.created_at AS f_created_at,
             r.id AS r_id, r.account_id AS r_account_id, r.target_account_id AS r_target_account_id, r.show_reblogs AS r_show_reblogs,
             r.notify AS r_notify, r.languages AS r_languages, r.created_at AS r_created_at,
             m.id AS m_id, m.account_id AS m_account_id, m.target_account_id AS m_target_account_id, m.notifications AS m_notifications,
             m.expires_at AS m_expires_at, m.created_at AS m_created_at,
             EXISTS (SELECT 1 FROM follows x WHERE x.account_id = t.id AND x.target_account_id = $1 AND NOT x.pending) AS followed_by,
             EXISTS (SELECT 1 FROM follows x WHERE x.account_id = t.id AND x.target_account_id = $1 AND x.pending) AS requested_by,
             EXISTS (SELECT 1 FROM blocks x WHERE x.account_id = $1 AND x.target_account_id = t.id) AS blocking,
             EXISTS (SELECT 1 FROM blocks x WHERE x.account_id = t.id AND x.target_account_id = $1) AS blocked_by,
             EXISTS (SELECT 1 FROM accounts a JOIN domain_blocks d ON d.account_id = $1 AND d.domain = lower(a.domain) WHERE a.id = t.id) AS domain_blocking
           FROM unnest($2::bigint[]) AS t(id)
           LEFT JOIN follows f ON f.account_id = $1 AND f.target_account_id = t.id AND NOT f.pending
           LEFT JOIN follows r ON r.account_id = $1 AND r.target_account_id = t.id AND r.pending
           LEFT JOIN mutes m ON m.account_id = $1 AND m.target_account_id = t.id`,
          [me, others],
        );
        for (const r of rows) found.set(id(r['target']), r);
      }
      return targetIds.map((targetId): RelationshipFacts => {
        const r = found.get(targetId);
        return {
          targetId,
          following: r !== undefined && r['f_id'] !== null ? followFromRow(r, 'f_') : null,
          followedBy: r?.['followed_by'] === true,
          requested: r !== undefined && r['r_id'] !== null ? followFromRow(r, 'r_') : null,
          requestedBy: r?.['requested_by'] === true,
          blocking: r?.['blocking'] === true,
          blockedBy: r?.['blocked_by'] === true,
          muting: r !== undefined && r['m_id'] !== null ? muteFromRow(r, 'm_') : null,
          domainBlocking: r?.['domain_blocking'] === true,
        };
      });
    },
    async hiddenFrom(accountId, accountIds, now) {
      const me = lookupKey(accountId);
      const others = keys(accountIds);
      if (me === null || others.length === 0) return new Set();
      const rows = await db.rows(
        `SELECT target_account_id AS v FROM blocks WHERE account_id = $1 AND target_account_id = ANY($2::bigint[])
         UNION SELECT account_id FROM blocks WHERE target_account_id = $1 AND account_id = ANY($2::bigint[])
         UNION SELECT target_account_id FROM mutes WHERE account_id = $1 AND target_account_id = ANY($2::bigint[])
           AND (expires_at IS NULL OR expires_at > $3)`,
        [me, others, floorMs(now)],
      );
      return new Set(rows.map((r) => id(r['v'])));
    },
    async blockDomain(b, outbox) {
      const params = [key(b.id), key(b.accountId), b.domain.toLowerCase(), b.createdAt];
      return writeWithOutbox(
        db,
        outbox,
        async (sql) =>
          (await sql.run('INSERT INTO domain_blocks (id, account_id, domain, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, domain) DO NOTHING', params)) > 0,
      );
    },
    async unblockDomain(accountId, domain, outbox) {
      const a = lookupKey(accountId);
      return writeWithOutbox(db, outbox, async (sql) => a !== null && (await sql.run('DELETE FROM domain_blocks WHERE account_id = $1 AND domain = $2', [a, domain.toLowerCase()])) > 0);
    },
    async domainBlocksBy(accountId, page) {
      const p = new Params();
      return paged(db, p, 'SELECT id, account_id, domain, created_at FROM domain_blocks', `account_id = ${p.id(accountId)}`, 'id', page, (r) => ({
        id: id(r['id']),
        accountId: id(r['account_id']),
        domain: text(r['domain']),
        createdAt: int(r['created_at']),
      }));
    },
    async hiddenState(accountId, now) {
      const me = lookupKey(accountId);
      const state = { blocking: [] as string[], blockedBy: [] as string[], muting: [] as { accountId: string; expiresAt: number | null }[], domains: [] as string[] };
      if (me === null) return state;
      // Everything in one statement (one snapshot), each row tagged with what it is.
      const rows = await db.rows(
        `SELECT 0 AS k, target_account_id::text AS v, NULL::bigint AS expires_at FROM blocks WHERE account_id = $1
         UNION ALL SELECT 1, account_id::text, NULL FROM blocks WHERE target_account_id = $1
         UNION ALL SELECT 2, target_account_id::text, expires_at FROM mutes WHERE account_id = $1 AND (expires_at IS NULL OR expires_at > $2)
         UNION ALL SELECT 3, domain, NULL FROM domain_blocks WHERE account_id = $1`,
        [me, floorMs(now)],
      );
      for (const r of rows) {
        const k = int(r['k']);
        const v = text(r['v']);
        if (k === 0) state.blocking.push(v);
        else if (k === 1) state.blockedBy.push(v);
        else if (k === 2) state.muting.push({ accountId: v, expiresAt: intOrNull(r['expires_at']) });
        else state.domains.push(v);
      }
      return state;
    },
  };
}
