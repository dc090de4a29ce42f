// Followed and featured hashtags, hashtag uses read from status_tags, and endorsed accounts.

import type { Endorsement, FeaturedTag, Id, TagFollow } from '../../core/domain/model.ts';
import type { EndorsementRepository, TagRepository, TagUseQuery } from '../../core/domain/ports/storage.ts';
import { RowCache } from './cache.ts';
import { id, int, jsonText, key, keyList, lookupKey, paged, text, type Db, type Param, type Row } from './db.ts';

/** Who follows a set of tags is read by every publish that has hashtags (whose streams it
 * reaches) and changes rarely: kept until tag_follows changes, for the sets seen last, when
 * their followers are few enough not to hold memory a large instance needs elsewhere. */
const TAG_FOLLOWER_SETS = 1_000;
const MOST_TAG_FOLLOWERS_KEPT = 1_000;

const FOLLOW = 'SELECT id, account_id, tag, name, created_at FROM tag_follows';
const FEATURED = 'SELECT id, account_id, tag, name, created_at FROM featured_tags';

function tagRowFrom(r: Row): TagFollow & FeaturedTag {
  return { id: id(r.id), accountId: id(r.account_id), tag: text(r.tag), name: text(r.name), createdAt: int(r.created_at) };
}

function usesCondition(q: TagUseQuery): { sql: string; params: Param[] } {
  const parts = ['s.deleted_at IS NULL', 's.created_at >= ?', 's.visibility IN (SELECT value FROM json_each(?))'];
  const params: Param[] = [q.since, jsonText(q.visibilities)];
  if (q.excludeReblogs) parts.push('s.reblog_of_id IS NULL');
  if (q.tags !== undefined) {
    parts.push('t.tag IN (SELECT value FROM json_each(?))');
    params.push(jsonText(q.tags));
  }
  if (q.accountId !== undefined) {
    parts.push('s.account_id = ?');
    params.push(key(q.accountId));
  }
  return { sql: parts.join(' AND '), params };
}

export function tagRepository(db: Db): TagRepository {
  const tagFollowers = new RowCache<string, Id[]>(db, 'tag_follows', TAG_FOLLOWER_SETS, (ids) => [...ids]);
  return {
    async follow(f) {
      return db.write(() => {
        db.run('INSERT INTO tag_follows (id, account_id, tag, name, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (account_id, tag) DO NOTHING',
          key(f.id), key(f.accountId), f.tag, f.name, f.createdAt);
        const r = db.get(`${FOLLOW} WHERE account_id = ? AND tag = ?`, key(f.accountId), f.tag);
        if (r === undefined) throw new Error('the tag follow just written is missing');
        return tagRowFrom(r);
      });
    },
    async unfollow(accountId, tag) {
      return db.write(() => db.run('DELETE FROM tag_follows WHERE account_id = ? AND tag = ?', key(accountId), tag) > 0);
    },
    async followedBy(accountId, page) {
      return paged(db, FOLLOW, 'account_id = ?', [key(accountId)], 'id', page, tagRowFrom);
    },
    async followedAmong(accountId, tags) {
      if (tags.length === 0) return [];
      return db.all('SELECT tag FROM tag_follows WHERE account_id = ? AND tag IN (SELECT value FROM json_each(?))', key(accountId), jsonText(tags)).map((r) => text(r.tag));
    },
    async followersOf(tags) {
      if (tags.length === 0) return [];
      const tagList = jsonText(tags);
      const kept = tagFollowers.get(tagList);
      if (kept !== undefined) return kept;
      const found = db.all('SELECT DISTINCT account_id FROM tag_follows WHERE tag IN (SELECT value FROM json_each(?))', tagList).map((r) => id(r.account_id));
      if (found.length <= MOST_TAG_FOLLOWERS_KEPT) tagFollowers.set(tagList, found);
      return found;
    },
    async feature(f, max) {
      return db.write(() => {
        const existing = db.get(`${FEATURED} WHERE account_id = ? AND tag = ?`, key(f.accountId), f.tag);
        if (existing !== undefined) return { result: 'exists' as const, featured: tagRowFrom(existing) };
        const count = int(db.get('SELECT count(*) AS n FROM featured_tags WHERE account_id = ?', key(f.accountId))?.n);
        if (count >= max) return { result: 'limit' as const, featured: null };
        db.run('INSERT INTO featured_tags (id, account_id, tag, name, created_at) VALUES (?, ?, ?, ?, ?)', key(f.id), key(f.accountId), f.tag, f.name, f.createdAt);
        return { result: 'added' as const, featured: { ...f } };
      });
    },
    async unfeature(accountId, featuredId) {
      const k = lookupKey(featuredId);
      if (k === null) return false;
      return db.write(() => db.run('DELETE FROM featured_tags WHERE id = ? AND account_id = ?', k, key(accountId)) > 0);
    },
    async featuredBy(accountId) {
      return db.all(`${FEATURED} WHERE account_id = ? ORDER BY id`, key(accountId)).map(tagRowFrom);
    },
    async statsOf(accountId, tags, visibilities) {
      if (tags.length === 0) return [];
      return db
        .all(
          `SELECT t.tag AS tag, count(*) AS n, max(s.created_at) AS last FROM status_tags t JOIN statuses s ON s.id = t.status_id
           WHERE s.account_id = ? AND s.deleted_at IS NULL AND s.visibility IN (SELECT value FROM json_each(?)) AND t.tag IN (SELECT value FROM json_each(?))
           GROUP BY t.tag`,
          key(accountId), jsonText(visibilities), jsonText(tags),
        )
        .map((r) => ({ tag: text(r.tag), count: int(r.n), lastStatusAt: int(r.last) }));
    },
    async uses(q, limit) {
      const c = usesCondition(q);
      return db
        .all(
          `SELECT t.tag AS tag, s.id AS status_id, s.account_id AS account_id, s.created_at AS created_at FROM statuses s JOIN status_tags t ON t.status_id = s.id
           WHERE ${c.sql} ORDER BY s.id DESC, t.tag LIMIT +?`,
          ...c.params, Math.max(0, Math.trunc(limit)),
        )
        .map((r) => ({ tag: text(r.tag), statusId: id(r.status_id), accountId: id(r.account_id), createdAt: int(r.created_at) }));
    },
  };
}

const ENDORSEMENT = 'SELECT id, account_id, target_account_id, created_at FROM endorsements';

function endorsementFromRow(r: Row): Endorsement {
  return { id: id(r.id), accountId: id(r.account_id), targetId: id(r.target_account_id), createdAt: int(r.created_at) };
}

export function endorsementRepository(db: Db): EndorsementRepository {
  return {
    async endorse(e) {
      return db.write(
        () =>
          db.run('INSERT INTO endorsements (id, account_id, target_account_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id, target_account_id) DO NOTHING',
            key(e.id), key(e.accountId), key(e.targetId), e.createdAt) > 0,
      );
    },
    async unendorse(accountId, targetId) {
      return db.write(() => db.run('DELETE FROM endorsements WHERE account_id = ? AND target_account_id = ?', key(accountId), key(targetId)) > 0);
    },
    async endorsedBy(accountId, page) {
      return paged(db, ENDORSEMENT, 'account_id = ?', [key(accountId)], 'id', page, endorsementFromRow);
    },
    async endorsedAmong(accountId, targetIds) {
      if (targetIds.length === 0) return [];
      return db
        .all('SELECT target_account_id FROM endorsements WHERE account_id = ? AND target_account_id IN (SELECT value FROM json_each(?))', key(accountId), keyList(targetIds))
        .map((r) => id(r.target_account_id));
    },
  };
}
