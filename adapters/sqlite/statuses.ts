import { runWritesSync, type StatusQuery, type StatusRepository } from '../../core/domain/ports/storage.ts';
import type { Id, Status, StatusEdit } from '../../core/domain/model.ts';
import { bumpAccount } from './accounts.ts';
import {
  allAmong,
  bool,
  flag,
  id,
  idOrNull,
  inOrder,
  int,
  intOrNull,
  json,
  jsonText,
  key,
  keyList,
  keyOrNull,
  lookupKey,
  paged,
  text,
  textOrNull,
  type Db,
  type Param,
  type Row,
} from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { RowCache } from './cache.ts';
import { isId } from '../../core/domain/ids.ts';

const COLUMN_NAMES = [
  'id', 'account_id', 'local', 'uri', 'url', 'text', 'content', 'spoiler_text', 'sensitive', 'visibility', 'language', 'in_reply_to_id',
  'in_reply_to_account_id', 'reblog_of_id', 'conversation_id', 'application_id', 'mention_ids', 'tags', 'media_ids', 'poll_id', 'created_at',
  'edited_at', 'deleted_at', 'replies_count', 'reblogs_count', 'favourites_count',
];
const STATUS = `SELECT ${COLUMN_NAMES.join(', ')} FROM statuses`;
const LIVE = `${STATUS} WHERE deleted_at IS NULL AND`;

export function statusFromRow(r: Row): Status {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    local: bool(r.local),
    uri: textOrNull(r.uri),
    url: textOrNull(r.url),
    text: text(r.text),
    content: text(r.content),
    spoilerText: text(r.spoiler_text),
    sensitive: bool(r.sensitive),
    visibility: text(r.visibility) as Status['visibility'],
    language: textOrNull(r.language),
    inReplyToId: idOrNull(r.in_reply_to_id),
    inReplyToAccountId: idOrNull(r.in_reply_to_account_id),
    reblogOfId: idOrNull(r.reblog_of_id),
    conversationId: id(r.conversation_id),
    applicationId: idOrNull(r.application_id),
    mentionIds: json(r.mention_ids),
    tags: json(r.tags),
    mediaIds: json(r.media_ids),
    pollId: idOrNull(r.poll_id),
    createdAt: int(r.created_at),
    editedAt: intOrNull(r.edited_at),
    deletedAt: intOrNull(r.deleted_at),
    repliesCount: int(r.replies_count),
    reblogsCount: int(r.reblogs_count),
    favouritesCount: int(r.favourites_count),
  };
}

function editFromRow(r: Row): StatusEdit {
  return {
    id: id(r.id),
    statusId: id(r.status_id),
    accountId: id(r.account_id),
    text: text(r.text),
    content: text(r.content),
    spoilerText: text(r.spoiler_text),
    sensitive: bool(r.sensitive),
    mediaIds: json(r.media_ids),
    pollOptions: r.poll_options === null ? null : json(r.poll_options),
    createdAt: int(r.created_at),
  };
}

/** Adds `delta` to a status counter, never below zero. */
export function bumpStatus(db: Db, statusId: Id, column: 'replies_count' | 'reblogs_count' | 'favourites_count', delta: 1 | -1): void {
  db.runOnRow('statuses', statusId, `UPDATE statuses SET ${column} = max(${column} + ?, 0) WHERE id = ?`, delta, key(statusId));
}

export function copyStatus(s: Status): Status {
  return { ...s, mentionIds: [...s.mentionIds], tags: [...s.tags], mediaIds: [...s.mediaIds] };
}

/** Newest first, as the query orders them. */
const newestFirst = (a: Status, b: Status): number => (BigInt(b.id) > BigInt(a.id) ? 1 : BigInt(b.id) < BigInt(a.id) ? -1 : 0);

function liveStatus(db: Db, k: bigint): Status | null {
  const r = db.get(`${LIVE} id = ?`, k);
  return r ? statusFromRow(r) : null;
}

function anyStatus(db: Db, k: bigint): Status {
  const r = db.get(`${STATUS} WHERE id = ?`, k);
  if (!r) throw new Error(`status ${k} vanished inside its own transaction`);
  return statusFromRow(r);
}

/** The status as a read of the row `s` was inserted as gives it: the same members, copied. */
function insertedStatus(s: Status): Status {
  return {
    id: s.id, accountId: s.accountId, local: s.local, uri: s.uri, url: s.url, text: s.text, content: s.content, spoilerText: s.spoilerText,
    sensitive: s.sensitive, visibility: s.visibility, language: s.language, inReplyToId: s.inReplyToId, inReplyToAccountId: s.inReplyToAccountId,
    reblogOfId: s.reblogOfId, conversationId: s.conversationId, applicationId: s.applicationId, mentionIds: [...s.mentionIds], tags: [...s.tags],
    mediaIds: [...s.mediaIds], pollId: s.pollId, createdAt: s.createdAt, editedAt: s.editedAt, deletedAt: s.deletedAt,
    repliesCount: s.repliesCount, reblogsCount: s.reblogsCount, favouritesCount: s.favouritesCount,
  };
}

function writeMentionsAndTags(db: Db, s: Pick<Status, 'id' | 'mentionIds' | 'tags'>): void {
  const k = key(s.id);
  for (const m of new Set(s.mentionIds)) db.run('INSERT INTO status_mentions (status_id, account_id) VALUES (?, ?)', k, key(m));
  for (const tag of new Set(s.tags)) db.run('INSERT INTO status_tags (status_id, tag) VALUES (?, ?)', k, tag);
}

function insertStatus(db: Db, s: Status): void {
  db.run(
    `INSERT INTO statuses (id, account_id, local, uri, url, text, content, spoiler_text, sensitive, visibility, language, in_reply_to_id,
       in_reply_to_account_id, reblog_of_id, conversation_id, application_id, mention_ids, tags, media_ids, has_media, poll_id, created_at,
       edited_at, deleted_at, replies_count, reblogs_count, favourites_count)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    key(s.id), key(s.accountId), flag(s.local), s.uri, s.url, s.text, s.content, s.spoilerText, flag(s.sensitive), s.visibility, s.language,
    keyOrNull(s.inReplyToId), keyOrNull(s.inReplyToAccountId), keyOrNull(s.reblogOfId), key(s.conversationId), keyOrNull(s.applicationId),
    jsonText(s.mentionIds), jsonText(s.tags), jsonText(s.mediaIds), flag(s.mediaIds.length > 0), keyOrNull(s.pollId), s.createdAt,
    s.editedAt, s.deletedAt, s.repliesCount, s.reblogsCount, s.favouritesCount,
  );
  writeMentionsAndTags(db, s);
}

/** The WHERE condition (on alias s) and its parameters for a StatusQuery. */
function queryCondition(q: StatusQuery): { sql: string; params: Param[] } {
  const parts = ['s.deleted_at IS NULL'];
  const params: Param[] = [];
  if (q.orMentioning !== undefined) {
    parts.push(
      '(s.visibility IN (SELECT value FROM json_each(?)) OR EXISTS (SELECT 1 FROM status_mentions m WHERE m.status_id = s.id AND m.account_id = ?))',
    );
    params.push(jsonText(q.visibilities), key(q.orMentioning));
  } else {
    parts.push('s.visibility IN (SELECT value FROM json_each(?))');
    params.push(jsonText(q.visibilities));
  }
  if (q.authorId !== undefined) {
    parts.push('s.account_id = ?');
    params.push(key(q.authorId));
  }
  if (q.homeOf !== undefined) {
    parts.push('(s.account_id = ? OR s.account_id IN (SELECT f.target_account_id FROM follows f WHERE f.account_id = ?))');
    params.push(key(q.homeOf), key(q.homeOf));
  }
  if (q.listId !== undefined) {
    parts.push('s.account_id IN (SELECT lm.account_id FROM list_members lm WHERE lm.list_id = ?)');
    params.push(key(q.listId));
  }
  if (q.tag !== undefined) {
    parts.push('EXISTS (SELECT 1 FROM status_tags t WHERE t.status_id = s.id AND t.tag = ?)');
    params.push(q.tag);
  }
  if (q.anyTag !== undefined) {
    parts.push('EXISTS (SELECT 1 FROM status_tags t WHERE t.status_id = s.id AND t.tag IN (SELECT value FROM json_each(?)))');
    params.push(jsonText(q.anyTag));
  }
  if (q.local !== undefined) {
    parts.push('s.local = ?');
    params.push(flag(q.local));
  }
  if (q.onlyMedia) parts.push('s.has_media = 1');
  if (q.excludeReblogs) parts.push('s.reblog_of_id IS NULL');
  if (q.excludeRepliesToOthers) parts.push('(s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)');
  return { sql: parts.join(' AND '), params };
}

/** `store`: the identity the StorageWrites of this store carry (storage.ts). */
export function statusRepository(db: Db, store: object): StatusRepository {
  // Live statuses by id (a deleted one is simply not cached: reads of it miss); a publish
  // leaves them cached.
  const cache = new RowCache<Id, Status>(db, 'statuses', 20_000, copyStatus, { byOwnKey: true });
  // A count moved (a favourite, a reply, a boost): only that status is read again.
  db.onRowChange('statuses', (id) => cache.forget(id));
  const cachedLive = (statusId: Id, k: bigint): Status | null => {
    const hit = cache.get(statusId);
    if (hit !== undefined) return hit;
    const found = liveStatus(db, k);
    if (found !== null) cache.set(statusId, found);
    return found;
  };
  /** Live statuses for ids just selected, in their order: from the cache, the rest in one read.
   * (Materialising whole rows is most of a query's cost; selecting ids is cheap.) */
  const liveInOrder = (ids: readonly Id[]): Status[] =>
    inOrder(ids, cache.many(ids, (missing) => allAmong(db, LIVE, 'id', missing).map(statusFromRow), (s) => s.id), (s) => s.id);
  return {
    async create(s, effects, options) {
      return writeWithOutbox(db, options?.outbox, () => {
        const idem = options?.idempotency;
        if (idem) {
          const used = db.get('SELECT status_id, used_at FROM idempotency_keys WHERE account_id = ? AND key = ?', key(s.accountId), idem.key);
          if (used && int(used.used_at) >= idem.notBefore) {
            const first = db.get(`${LIVE} id = ?`, used.status_id ?? null);
            return { created: false as const, existing: first ? statusFromRow(first) : null };
          }
        }
        runWritesSync(options?.writes, store, 'check', db);
        insertStatus(db, s);
        runWritesSync(options?.writes, store, 'apply', db);
        if (effects.countForAuthor) {
          db.runOnRow('accounts', s.accountId, 'UPDATE accounts SET statuses_count = statuses_count + 1, last_status_at = ? WHERE id = ?', s.createdAt, key(s.accountId));
        }
        if (effects.countReplyOf !== null) bumpStatus(db, effects.countReplyOf, 'replies_count', 1);
        if (idem) {
          db.run(
            `INSERT INTO idempotency_keys (account_id, key, status_id, used_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (account_id, key) DO UPDATE SET status_id = excluded.status_id, used_at = excluded.used_at`,
            key(s.accountId), idem.key, key(s.id), s.createdAt,
          );
        }
        // Unless writes of plugins ran with it, nothing but this insert wrote the row: it holds
        // exactly `s`, and reading it back would only copy it.
        return { created: true as const, status: options?.writes === undefined || options.writes.length === 0 ? insertedStatus(s) : anyStatus(db, key(s.id)) };
      });
    },

    async findIdempotent(accountId, idempotencyKey, notBefore) {
      const used = db.get('SELECT status_id, used_at FROM idempotency_keys WHERE account_id = ? AND key = ?', key(accountId), idempotencyKey);
      if (!used || int(used.used_at) < notBefore) return null;
      const first = db.get(`${LIVE} id = ?`, used.status_id ?? null);
      return { status: first ? statusFromRow(first) : null };
    },

    async reblog(b, outbox) {
      if (b.reblogOfId === null) throw new TypeError('reblog: the status is not a boost (reblogOfId is null)');
      const original = b.reblogOfId;
      return writeWithOutbox(db, outbox, () => {
        const existing = db.get(`${LIVE} account_id = ? AND reblog_of_id = ?`, key(b.accountId), key(original));
        if (existing) return { created: false, status: statusFromRow(existing) };
        insertStatus(db, b);
        bumpStatus(db, original, 'reblogs_count', 1);
        bumpAccount(db, b.accountId, 'statuses_count', 1);
        return { created: true, status: anyStatus(db, key(b.id)) };
      });
    },

    async get(statusId) {
      const k = lookupKey(statusId);
      return k === null ? null : cachedLive(statusId, k);
    },

    async getMany(ids) {
      const wanted = [...new Set(ids.filter(isId))];
      const found = cache.many(wanted, (missing) => allAmong(db, LIVE, 'id', missing).map(statusFromRow), (s) => s.id);
      return found.sort(newestFirst);
    },

    async findByUri(uri) {
      const r = db.get(`${LIVE} uri = ?`, uri);
      return r ? statusFromRow(r) : null;
    },
    async findReblog(accountId, statusId) {
      const r = db.get(`${LIVE} account_id = ? AND reblog_of_id = ?`, key(accountId), key(statusId));
      return r ? statusFromRow(r) : null;
    },

    async delete(statusId, deletedAt, effects, outbox) {
      const k = lookupKey(statusId);
      if (k === null) return null;
      return writeWithOutbox(db, outbox, () => {
        const s = liveStatus(db, k);
        if (!s) return null;
        db.run('UPDATE statuses SET deleted_at = ? WHERE id = ?', deletedAt, k);
        if (effects.countForAuthor) bumpAccount(db, s.accountId, 'statuses_count', -1);
        if (effects.countReplyOf !== null) bumpStatus(db, effects.countReplyOf, 'replies_count', -1);
        if (s.reblogOfId !== null) bumpStatus(db, s.reblogOfId, 'reblogs_count', -1);
        const boostIds = db.all('SELECT id FROM statuses WHERE reblog_of_id = ? AND deleted_at IS NULL ORDER BY id', k).map((r) => r.id as bigint);
        const boosts: Status[] = [];
        for (const b of boostIds) {
          db.run('UPDATE statuses SET deleted_at = ? WHERE id = ?', deletedAt, b);
          const boost = anyStatus(db, b);
          bumpAccount(db, boost.accountId, 'statuses_count', -1);
          boosts.push(boost);
        }
        db.run('DELETE FROM pins WHERE status_id = ?', k);
        return { status: anyStatus(db, k), boosts };
      });
    },

    async update(statusId, patch, revisions, options) {
      const k = lookupKey(statusId);
      if (k === null) return null;
      return writeWithOutbox(db, options?.outbox, () => {
        const s = liveStatus(db, k);
        if (!s) return null;
        runWritesSync(options?.writes, store, 'check', db);
        db.run(
          `UPDATE statuses SET text = ?, content = ?, spoiler_text = ?, sensitive = ?, language = ?, mention_ids = ?, tags = ?, media_ids = ?,
             has_media = ?, poll_id = ?, edited_at = ? WHERE id = ?`,
          patch.text, patch.content, patch.spoilerText, flag(patch.sensitive), patch.language, jsonText(patch.mentionIds), jsonText(patch.tags),
          jsonText(patch.mediaIds), flag(patch.mediaIds.length > 0), keyOrNull(patch.pollId), patch.editedAt, k,
        );
        db.run('DELETE FROM status_mentions WHERE status_id = ?', k);
        db.run('DELETE FROM status_tags WHERE status_id = ?', k);
        writeMentionsAndTags(db, { id: s.id, mentionIds: patch.mentionIds, tags: patch.tags });
        for (const r of revisions) {
          db.run(
            `INSERT INTO status_edits (id, status_id, account_id, text, content, spoiler_text, sensitive, media_ids, poll_options, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
            key(r.id), k, key(r.accountId), r.text, r.content, r.spoilerText, flag(r.sensitive), jsonText(r.mediaIds),
            r.pollOptions === null ? null : jsonText(r.pollOptions), r.createdAt,
          );
        }
        runWritesSync(options?.writes, store, 'apply', db);
        return anyStatus(db, k);
      });
    },

    async edits(statusId) {
      const k = lookupKey(statusId);
      if (k === null) return [];
      return db
        .all(
          `SELECT id, status_id, account_id, text, content, spoiler_text, sensitive, media_ids, poll_options, created_at FROM status_edits
           WHERE status_id = ? ORDER BY created_at, id`,
          k,
        )
        .map(editFromRow);
    },

    async query(q, page) {
      // A hashtag timeline walks the tag's index newest first (CROSS JOIN keeps that order in
      // SQLite's plan): a rare tag then costs its own rows, where a scan of statuses newest
      // first would read the whole table before finding 20.
      if (q.tag !== undefined) {
        const { tag, ...rest } = q;
        const c = queryCondition(rest);
        const select = 'SELECT s.id FROM status_tags t CROSS JOIN statuses s ON s.id = t.status_id';
        return liveInOrder(paged(db, select, `t.tag = ? AND ${c.sql}`, [tag, ...c.params], 't.status_id', page, (r) => id(r.id)));
      }
      // A home timeline walks each of its authors' statuses (statuses_account) newest first,
      // the authors in the outer loop (CROSS JOIN keeps that order). SQLite then stops reading
      // an author at the first row that would not make the page, so a page costs about one seek
      // per author whatever the size of the store; a scan of statuses newest first would read
      // past every status of the accounts not followed.
      if (q.homeOf !== undefined) {
        const { homeOf, ...rest } = q;
        const c = queryCondition(rest);
        const select = `SELECT s.id FROM (SELECT ? AS account_id UNION SELECT f.target_account_id FROM follows f WHERE f.account_id = ?) home
          CROSS JOIN statuses s INDEXED BY statuses_account ON s.account_id = home.account_id`;
        return liveInOrder(paged(db, select, c.sql, [key(homeOf), key(homeOf), ...c.params], 's.id', page, (r) => id(r.id)));
      }
      const c = queryCondition(q);
      return liveInOrder(paged(db, 'SELECT s.id FROM statuses s', c.sql, c.params, 's.id', page, (r) => id(r.id)));
    },

    async replies(parentIds) {
      return liveInOrder(db.all('SELECT id FROM statuses WHERE deleted_at IS NULL AND in_reply_to_id IN (SELECT value FROM json_each(?)) ORDER BY id', keyList(parentIds)).map((r) => id(r.id)));
    },

    async reblogs(statusId, visibilities, page) {
      const ids = paged(db, 'SELECT id FROM statuses', 'deleted_at IS NULL AND reblog_of_id = ? AND visibility IN (SELECT value FROM json_each(?))', [key(statusId), jsonText(visibilities)], 'id', page, (r) => id(r.id));
      return liveInOrder(ids);
    },

    async countLocal() {
      return int(db.get('SELECT count(*) AS n FROM statuses WHERE local = 1 AND deleted_at IS NULL')?.n);
    },
  };
}
