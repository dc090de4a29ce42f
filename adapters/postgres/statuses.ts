// Statuses. A write is one statement where it can be (the row, its mentions and tags, the
// counters it moves, as data-modifying CTEs), so that a create or reblog without plugin
// writes, idempotency key or outbox costs one round trip and is atomic on its own. With any of
// those it runs in one transaction: the idempotency key is claimed first (INSERT … ON CONFLICT,
// which waits for a concurrent holder of the key and then sees what it committed), then the
// plugins' checks, the status statement, their applies, and the outbox's jobs. A delete or an
// edit locks the status first (see there).

import type { CreateStatusResult, DeletedStatus, Page, StatusQuery, StatusRepository, StorageWrite } from '../../core/domain/ports/storage.ts';
import type { Id, Status, StatusEdit } from '../../core/domain/model.ts';
import type { Db, Row, Sql, Tx } from './db.ts';
import { recordOutbox, writeWithOutbox } from './jobs.ts';
import {
  Params,
  bool,
  ceilMs,
  id,
  idOrNull,
  int,
  intOrNull,
  json,
  jsonText,
  key,
  keyOrNull,
  keys,
  limitOf,
  lookupKey,
  paged,
  pageSql,
  storable,
  text,
  textOrNull,
} from './values.ts';

const COLUMN_NAMES = [
  'id', 'account_id', 'local', 'uri', 'url', 'text', 'content', 'spoiler_text', 'sensitive', 'visibility', 'language', 'in_reply_to_id',
  'in_reply_to_account_id', 'reblog_of_id', 'conversation_id', 'application_id', 'mention_ids', 'tags', 'media_ids', 'poll_id', 'created_at',
  'edited_at', 'deleted_at', 'replies_count', 'reblogs_count', 'favourites_count',
];
const COLUMNS = COLUMN_NAMES.join(', ');
const S_COLUMNS = COLUMN_NAMES.map((c) => `s.${c}`).join(', ');
const LIVE = `SELECT ${COLUMNS} FROM statuses WHERE deleted_at IS NULL AND`;

export function statusFromRow(r: Row): Status {
  return {
    id: id(r['id']),
    accountId: id(r['account_id']),
    local: bool(r['local']),
    uri: textOrNull(r['uri']),
    url: textOrNull(r['url']),
    text: text(r['text']),
    content: text(r['content']),
    spoilerText: text(r['spoiler_text']),
    sensitive: bool(r['sensitive']),
    visibility: text(r['visibility']) as Status['visibility'],
    language: textOrNull(r['language']),
    inReplyToId: idOrNull(r['in_reply_to_id']),
    inReplyToAccountId: idOrNull(r['in_reply_to_account_id']),
    reblogOfId: idOrNull(r['reblog_of_id']),
    conversationId: id(r['conversation_id']),
    applicationId: idOrNull(r['application_id']),
    mentionIds: json(r['mention_ids']),
    tags: json(r['tags']),
    mediaIds: json(r['media_ids']),
    pollId: idOrNull(r['poll_id']),
    createdAt: int(r['created_at']),
    editedAt: intOrNull(r['edited_at']),
    deletedAt: intOrNull(r['deleted_at']),
    repliesCount: int(r['replies_count']),
    reblogsCount: int(r['reblogs_count']),
    favouritesCount: int(r['favourites_count']),
  };
}

function editFromRow(r: Row): StatusEdit {
  return {
    id: id(r['id']),
    statusId: id(r['status_id']),
    accountId: id(r['account_id']),
    text: text(r['text']),
    content: text(r['content']),
    spoilerText: text(r['spoiler_text']),
    sensitive: bool(r['sensitive']),
    mediaIds: json(r['media_ids']),
    pollOptions: r['poll_options'] === null ? null : json(r['poll_options']),
    createdAt: int(r['created_at']),
  };
}

const byIdAscending = (a: Status, b: Status): number => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);

/** The INSERT of a status (as CTE `s`, returning its row) with its mentions and tags, which
 * read `s` (so they follow it, and happen only when it was inserted). `conflict`: an ON CONFLICT
 * clause for the status row. */
function insertCtes(p: Params, s: Status, conflict = ''): string {
  const values = [
    key(s.id), key(s.accountId), s.local, s.uri, s.url, s.text, s.content, s.spoilerText, s.sensitive, s.visibility, s.language,
    keyOrNull(s.inReplyToId), keyOrNull(s.inReplyToAccountId), keyOrNull(s.reblogOfId), key(s.conversationId), keyOrNull(s.applicationId),
    jsonText(s.mentionIds), jsonText(s.tags), jsonText(s.mediaIds), keyOrNull(s.pollId), s.createdAt, s.editedAt, s.deletedAt, s.repliesCount,
    s.reblogsCount, s.favouritesCount,
  ].map((v) => p.add(v));
  let sql = `s AS (INSERT INTO statuses (${COLUMNS}, has_media) VALUES (${values.join(', ')}, ${p.add(s.mediaIds.length > 0)}) ${conflict} RETURNING ${COLUMNS})`;
  const mentions = [...new Set(s.mentionIds.map(key))];
  if (mentions.length > 0) sql += `, m AS (INSERT INTO status_mentions (status_id, account_id) SELECT s.id, u FROM s, unnest(${p.add(mentions)}::bigint[]) AS u)`;
  const tags = [...new Set(s.tags)];
  if (tags.length > 0) sql += `, t AS (INSERT INTO status_tags (status_id, tag) SELECT s.id, u FROM s, unnest(${p.add(tags)}::text[]) AS u)`;
  return sql;
}

/** The WHERE condition (on alias s) of a StatusQuery. */
function queryCondition(p: Params, q: StatusQuery): string {
  const parts = ['s.deleted_at IS NULL'];
  const visible = `s.visibility = ANY(${p.add([...q.visibilities])}::text[])`;
  if (q.orMentioning !== undefined) {
    parts.push(`(${visible} OR EXISTS (SELECT 1 FROM status_mentions m WHERE m.status_id = s.id AND m.account_id = ${p.id(q.orMentioning)}))`);
  } else parts.push(visible);
  if (q.authorId !== undefined) parts.push(`s.account_id = ${p.id(q.authorId)}`);
  if (q.homeOf !== undefined) {
    const home = p.id(q.homeOf);
    parts.push(`(s.account_id = ${home} OR s.account_id IN (SELECT f.target_account_id FROM follows f WHERE f.account_id = ${home} AND NOT f.pending))`);
  }
  if (q.listId !== undefined) parts.push(`s.account_id IN (SELECT lm.account_id FROM list_members lm WHERE lm.list_id = ${p.id(q.listId)})`);
  if (q.tag !== undefined) parts.push(`EXISTS (SELECT 1 FROM status_tags t WHERE t.status_id = s.id AND t.tag = ${p.add(q.tag)})`);
  if (q.anyTag !== undefined) parts.push(`EXISTS (SELECT 1 FROM status_tags t WHERE t.status_id = s.id AND t.tag = ANY(${p.add([...q.anyTag])}::text[]))`);
  if (q.local !== undefined) parts.push(`s.local = ${p.add(q.local)}`);
  if (q.onlyMedia) parts.push('s.has_media');
  if (q.excludeReblogs) parts.push('s.reblog_of_id IS NULL');
  if (q.excludeRepliesToOthers) parts.push('(s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)');
  return parts.join(' AND ');
}

/** A page of the statuses of `homeOf` and the accounts it follows that meet the rest of `q`.
 * A scan of statuses newest first, testing each author, reads past every status of the
 * accounts not followed, more as the store grows. Reading each author's statuses through
 * statuses_account instead costs what the page needs, whatever the store's size: first each
 * author's newest status on the page (one index probe each); the page's last status can be no
 * older than the limit-th newest of those (`cut`: those authors alone fill the page down to it),
 * so only the authors whose newest reaches it are read further, and only down to it. (Oldest
 * first and the other way round for a minId page.) */
async function homeQuery(db: Db, homeOf: Id, rest: StatusQuery, page: Page): Promise<Status[]> {
  const limit = limitOf(page.limit);
  if (limit === 0) return [];
  const p = new Params();
  const home = p.id(homeOf);
  const condition = queryCondition(p, rest);
  const ps = pageSql(p, 's.id', page);
  const order = ps.reverse ? 'ASC' : 'DESC';
  const reaches = ps.reverse ? '<=' : '>=';
  const cut = `coalesce((SELECT id FROM cut), ${ps.reverse ? '9223372036854775807' : '0'})`;
  const count = p.add(limit);
  /** One author's statuses on the page, in the page's order. */
  const ofAuthor = (author: string, more: string, rows: string) =>
    `SELECT s.id FROM statuses s WHERE s.account_id = ${author} AND ${condition}${ps.where}${more} ORDER BY s.id ${order} LIMIT ${rows}`;
  const rows = await db.rows(
    `WITH home AS (SELECT ${home} AS account_id UNION SELECT f.target_account_id FROM follows f WHERE f.account_id = ${home} AND NOT f.pending),
       first AS (SELECT home.account_id, x.id FROM home CROSS JOIN LATERAL (${ofAuthor('home.account_id', '', '1')}) x),
       cut AS (SELECT id FROM first ORDER BY id ${order} OFFSET ${p.add(limit - 1)} LIMIT 1),
       picked AS (
         SELECT s.id FROM first CROSS JOIN LATERAL (${ofAuthor('first.account_id', ` AND s.id ${reaches} ${cut}`, count)}) s
         WHERE first.id ${reaches} ${cut}${ps.tail})
     SELECT ${S_COLUMNS} FROM picked JOIN statuses s ON s.id = picked.id ORDER BY s.id ${order}`,
    p.values,
  );
  const statuses = rows.map(statusFromRow);
  return ps.reverse ? statuses.reverse() : statuses;
}

/** Refuses, before anything runs, a write prepared for another store. */
function ownWrites(writes: readonly StorageWrite[] | undefined, store: object): readonly StorageWrite[] {
  for (const write of writes ?? []) {
    if (write.store !== store) throw new Error('a StorageWrite prepared for another store was given to this one');
  }
  return writes ?? [];
}

/** Every check (or apply), in order, on the status write's transaction. */
async function runWrites(writes: readonly StorageWrite[], phase: 'check' | 'apply', tx: Tx): Promise<void> {
  for (const write of writes) {
    const step = phase === 'check' ? write.check : write.apply;
    if (step !== undefined) await step.call(write, tx);
  }
}

const ROWS_OF_KEY = 'FROM idempotency_keys k JOIN statuses s ON s.id = k.status_id AND s.deleted_at IS NULL WHERE k.account_id = $1 AND k.key = $2';

/** `store`: the identity the StorageWrites of this store carry (storage.ts). */
export function statusRepository(db: Db, store: object): StatusRepository {
  const live = async (sql: Sql, statusId: string): Promise<Status | null> => {
    const r = await sql.row(`${LIVE} id = $1`, [statusId]);
    return r ? statusFromRow(r) : null;
  };
  const liveBoost = async (sql: Sql, accountId: string, statusId: string): Promise<Status | null> => {
    const r = await sql.row(`${LIVE} account_id = $1 AND reblog_of_id = $2`, [accountId, statusId]);
    return r ? statusFromRow(r) : null;
  };

  /** The status statement of create: the row and its effects. */
  const createStatement = (s: Status, effects: { countForAuthor: boolean; countReplyOf: Id | null }): { text: string; params: unknown[] } => {
    const p = new Params();
    let ctes = insertCtes(p, s);
    if (effects.countForAuthor) {
      ctes += `, a AS (UPDATE accounts SET statuses_count = statuses_count + 1, last_status_at = ${p.add(s.createdAt)} WHERE id = (SELECT account_id FROM s))`;
    }
    if (effects.countReplyOf !== null) {
      ctes += `, r AS (UPDATE statuses SET replies_count = replies_count + 1 WHERE id = ${p.id(effects.countReplyOf)} AND EXISTS (SELECT 1 FROM s))`;
    }
    return { text: `WITH ${ctes} SELECT * FROM s`, params: p.values };
  };

  return {
    async create(s, effects, options) {
      const writes = ownWrites(options?.writes, store);
      const idem = options?.idempotency;
      const outbox = options?.outbox;
      const statement = createStatement(s, effects);
      if (idem === undefined && writes.length === 0 && outbox === undefined) {
        const r = await db.row(statement.text, statement.params);
        return { created: true, status: statusFromRow(r as Row) };
      }
      return db.transaction(async (tx, noRetry) => {
        let result: CreateStatusResult | null = null;
        if (idem !== undefined) {
          // Takes the key unless it was used at or after notBefore; a concurrent holder of the
          // key is waited for, and what it committed decides.
          const claimed = await tx.row(
            `INSERT INTO idempotency_keys (account_id, key, status_id, used_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (account_id, key) DO UPDATE SET status_id = excluded.status_id, used_at = excluded.used_at
             WHERE idempotency_keys.used_at < $5
             RETURNING 1 AS claimed`,
            [key(s.accountId), idem.key, key(s.id), s.createdAt, ceilMs(idem.notBefore)],
          );
          if (claimed === undefined) {
            const first = await tx.row(`SELECT ${S_COLUMNS} ${ROWS_OF_KEY}`, [key(s.accountId), idem.key]);
            result = { created: false, existing: first ? statusFromRow(first) : null };
          }
        }
        if (result === null) {
          await runWrites(writes, 'check', tx);
          const r = await tx.row(statement.text, statement.params);
          await runWrites(writes, 'apply', tx);
          result = { created: true, status: statusFromRow(r as Row) };
        }
        noRetry();
        await recordOutbox(tx, outbox, result);
        return result;
      });
    },

    async findIdempotent(accountId, idempotencyKey, notBefore) {
      const k = lookupKey(accountId);
      if (k === null || !storable(idempotencyKey)) return null;
      const r = await db.row(
        `SELECT k.used_at AS used_at, ${S_COLUMNS} FROM idempotency_keys k LEFT JOIN statuses s ON s.id = k.status_id AND s.deleted_at IS NULL
         WHERE k.account_id = $1 AND k.key = $2`,
        [k, idempotencyKey],
      );
      if (r === undefined || int(r['used_at']) < notBefore) return null;
      return { status: r['id'] === null ? null : statusFromRow(r) };
    },

    async reblog(b, outbox) {
      if (b.reblogOfId === null) throw new TypeError('reblog: the status is not a boost (reblogOfId is null)');
      const original = key(b.reblogOfId);
      const p = new Params();
      const ctes = insertCtes(p, b, 'ON CONFLICT (account_id, reblog_of_id) WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL DO NOTHING');
      const statement = `WITH ${ctes},
        o AS (UPDATE statuses SET reblogs_count = reblogs_count + 1 WHERE id = ${p.add(original)}::bigint AND EXISTS (SELECT 1 FROM s)),
        a AS (UPDATE accounts SET statuses_count = statuses_count + 1 WHERE id = (SELECT account_id FROM s))
        SELECT * FROM s`;
      return writeWithOutbox(db, outbox, async (sql) => {
        // The account's live boost is either inserted here or already there; when it was there
        // but is deleted before we read it, insert again.
        for (let attempt = 1; ; attempt += 1) {
          const inserted = await sql.row(statement, p.values);
          if (inserted !== undefined) return { created: true, status: statusFromRow(inserted) };
          const existing = await liveBoost(sql, key(b.accountId), original);
          if (existing !== null) return { created: false, status: existing };
          if (attempt === 5) throw new Error('reblog: the live boost kept changing under this write');
        }
      });
    },

    async get(statusId) {
      const k = lookupKey(statusId);
      return k === null ? null : live(db, k);
    },

    async getMany(ids) {
      const wanted = keys(ids);
      if (wanted.length === 0) return [];
      return (await db.rows(`${LIVE} id = ANY($1::bigint[]) ORDER BY id DESC`, [wanted])).map(statusFromRow);
    },

    async findByUri(uri) {
      if (!storable(uri)) return null;
      const r = await db.row(`${LIVE} uri = $1`, [uri]);
      return r ? statusFromRow(r) : null;
    },

    async findReblog(accountId, statusId) {
      const a = lookupKey(accountId);
      const s = lookupKey(statusId);
      return a === null || s === null ? null : liveBoost(db, a, s);
    },

    async delete(statusId, deletedAt, effects, outbox) {
      const k = lookupKey(statusId);
      if (k === null) return writeWithOutbox(db, outbox, async () => null);
      // The status is locked first (a boost being made waits at its counter), so the statement
      // after it sees every boost committed before; then one statement: the status and its
      // live boosts deleted, and every counter they held given back, summed per row (a row
      // updated twice in one statement would keep one update).
      const statement = `
        WITH s AS (
          UPDATE statuses SET deleted_at = $2 WHERE id = $1 AND deleted_at IS NULL RETURNING ${COLUMNS}
        ), b AS (
          UPDATE statuses SET deleted_at = $2 WHERE reblog_of_id = $1 AND deleted_at IS NULL AND EXISTS (SELECT 1 FROM s) RETURNING ${COLUMNS}
        ), account_deltas AS (
          SELECT account_id, count(*) AS n FROM (SELECT account_id FROM s WHERE $3::boolean UNION ALL SELECT account_id FROM b) x GROUP BY account_id
        ), a AS (
          UPDATE accounts SET statuses_count = greatest(statuses_count - d.n, 0) FROM account_deltas d WHERE accounts.id = d.account_id
        ), status_deltas AS (
          SELECT id, sum(replies) AS replies, sum(reblogs) AS reblogs FROM (
            SELECT $4::bigint AS id, 1 AS replies, 0 AS reblogs FROM s WHERE $4::bigint IS NOT NULL
            UNION ALL SELECT reblog_of_id, 0, 1 FROM s WHERE reblog_of_id IS NOT NULL
          ) x GROUP BY id
        ), c AS (
          UPDATE statuses SET replies_count = greatest(replies_count - d.replies, 0), reblogs_count = greatest(reblogs_count - d.reblogs, 0)
          FROM status_deltas d WHERE statuses.id = d.id
        ), p AS (
          DELETE FROM pins WHERE status_id = $1 AND EXISTS (SELECT 1 FROM s)
        )
        SELECT false AS boost, ${COLUMNS} FROM s UNION ALL SELECT true, ${COLUMNS} FROM b`;
      const params = [k, deletedAt, effects.countForAuthor, keyOrNull(effects.countReplyOf)];
      return db.transaction(async (tx, noRetry) => {
        let result: DeletedStatus | null = null;
        if ((await tx.row('SELECT 1 AS live FROM statuses WHERE id = $1 AND deleted_at IS NULL FOR UPDATE', [k])) !== undefined) {
          const rows = await tx.rows(statement, params);
          const own = rows.find((r) => r['boost'] === false);
          if (own !== undefined) {
            result = { status: statusFromRow(own), boosts: rows.filter((r) => r['boost'] === true).map(statusFromRow).sort(byIdAscending) };
          }
        }
        noRetry();
        await recordOutbox(tx, outbox, result);
        return result;
      });
    },

    async update(statusId, patch, revisions, options) {
      const k = lookupKey(statusId);
      const writes = ownWrites(options?.writes, store);
      const outbox = options?.outbox;
      if (k === null) return writeWithOutbox(db, outbox, async () => null);
      const p = new Params();
      const target = p.add(k);
      const mentions = [...new Set(patch.mentionIds.map(key))];
      const tags = [...new Set(patch.tags)];
      const edits = revisions.map((r) => ({
        id: key(r.id),
        account_id: key(r.accountId),
        text: r.text,
        content: r.content,
        spoiler_text: r.spoilerText,
        sensitive: r.sensitive,
        media_ids: jsonText(r.mediaIds),
        poll_options: r.pollOptions === null ? null : jsonText(r.pollOptions),
        created_at: r.createdAt,
      }));
      const m = p.add(mentions);
      const t = p.add(tags);
      // The row, then its mentions and tags brought to the new sets (only those that changed:
      // a row deleted and inserted again in one statement could clash), then the revisions.
      const statement = `
        WITH s AS (
          UPDATE statuses SET text = ${p.add(patch.text)}, content = ${p.add(patch.content)}, spoiler_text = ${p.add(patch.spoilerText)},
            sensitive = ${p.add(patch.sensitive)}, language = ${p.add(patch.language)}, mention_ids = ${p.add(jsonText(patch.mentionIds))},
            tags = ${p.add(jsonText(patch.tags))}, media_ids = ${p.add(jsonText(patch.mediaIds))}, has_media = ${p.add(patch.mediaIds.length > 0)},
            poll_id = ${p.add(keyOrNull(patch.pollId))}::bigint, edited_at = ${p.add(patch.editedAt)}
          WHERE id = ${target}::bigint AND deleted_at IS NULL RETURNING ${COLUMNS}
        ), dm AS (
          DELETE FROM status_mentions WHERE status_id = (SELECT id FROM s) AND NOT (account_id = ANY(${m}::bigint[]))
        ), im AS (
          INSERT INTO status_mentions (status_id, account_id) SELECT s.id, u FROM s, unnest(${m}::bigint[]) AS u ON CONFLICT DO NOTHING
        ), dt AS (
          DELETE FROM status_tags WHERE status_id = (SELECT id FROM s) AND NOT (tag = ANY(${t}::text[]))
        ), it AS (
          INSERT INTO status_tags (status_id, tag) SELECT s.id, u FROM s, unnest(${t}::text[]) AS u ON CONFLICT DO NOTHING
        ), e AS (
          INSERT INTO status_edits (id, status_id, account_id, text, content, spoiler_text, sensitive, media_ids, poll_options, created_at)
          SELECT r.id, s.id, r.account_id, r.text, r.content, r.spoiler_text, r.sensitive, r.media_ids, r.poll_options, r.created_at
          FROM s, json_to_recordset(${p.add(JSON.stringify(edits))}::json) AS r(id bigint, account_id bigint, text text, content text,
            spoiler_text text, sensitive boolean, media_ids text, poll_options text, created_at bigint)
        )
        SELECT * FROM s`;
      // The status is locked first, and the edit runs as a new statement: it then sees every
      // edit that committed before it (in one statement, mentions and tags another edit wrote
      // while this one waited would be invisible to it, and survive). No check runs for a
      // status that is not live.
      return db.transaction(async (tx, noRetry) => {
        let result: Status | null = null;
        if ((await tx.row('SELECT 1 AS live FROM statuses WHERE id = $1 AND deleted_at IS NULL FOR UPDATE', [k])) !== undefined) {
          await runWrites(writes, 'check', tx);
          const r = await tx.row(statement, p.values);
          await runWrites(writes, 'apply', tx);
          result = r ? statusFromRow(r) : null;
        }
        noRetry();
        await recordOutbox(tx, outbox, result);
        return result;
      });
    },

    async edits(statusId) {
      const k = lookupKey(statusId);
      if (k === null) return [];
      return (
        await db.rows(
          `SELECT id, status_id, account_id, text, content, spoiler_text, sensitive, media_ids, poll_options, created_at FROM status_edits
           WHERE status_id = $1 ORDER BY created_at, id`,
          [k],
        )
      ).map(editFromRow);
    },

    async query(q, page) {
      if (q.homeOf !== undefined) {
        const { homeOf, ...rest } = q;
        return homeQuery(db, homeOf, rest, page);
      }
      const p = new Params();
      const condition = queryCondition(p, q);
      const ps = pageSql(p, 's.id', page);
      const rows = (await db.rows(`SELECT ${S_COLUMNS} FROM statuses s WHERE ${condition}${ps.where}${ps.tail}`, p.values)).map(statusFromRow);
      return ps.reverse ? rows.reverse() : rows;
    },

    async replies(parentIds) {
      const parents = keys(parentIds);
      if (parents.length === 0) return [];
      return (await db.rows(`${LIVE} in_reply_to_id = ANY($1::bigint[]) ORDER BY id`, [parents])).map(statusFromRow);
    },

    async reblogs(statusId, visibilities, page) {
      const p = new Params();
      const base = `deleted_at IS NULL AND reblog_of_id = ${p.id(statusId)} AND visibility = ANY(${p.add([...visibilities])}::text[])`;
      return paged(db, p, `SELECT ${COLUMNS} FROM statuses`, base, 'id', page, statusFromRow);
    },

    async countLocal() {
      return int((await db.row('SELECT count(*) AS n FROM statuses WHERE local AND deleted_at IS NULL'))?.['n']);
    },
  };
}
