// Followed and featured hashtags, hashtag uses read from status_tags, and endorsed accounts.

import type { Endorsement, FeaturedTag, TagFollow } from '../../core/domain/model.ts';
import type { EndorsementRepository, TagRepository, TagUseQuery } from '../../core/domain/ports/storage.ts';
import type { Db, Row } from './db.ts';
import { Params, id, int, key, keys, limitOf, lookupKey, paged, text } from './values.ts';

const TAG_COLUMNS = 'id, account_id, tag, name, created_at';

function tagRowFrom(r: Row): TagFollow & FeaturedTag {
  return { id: id(r['id']), accountId: id(r['account_id']), tag: text(r['tag']), name: text(r['name']), createdAt: int(r['created_at']) };
}

function usesCondition(p: Params, q: TagUseQuery): string {
  const parts = ['s.deleted_at IS NULL', `s.created_at >= ${p.add(Math.floor(q.since))}::bigint`, `s.visibility = ANY(${p.add([...q.visibilities])}::text[])`];
  if (q.excludeReblogs) parts.push('s.reblog_of_id IS NULL');
  if (q.tags !== undefined) parts.push(`t.tag = ANY(${p.add([...q.tags])}::text[])`);
  if (q.accountId !== undefined) parts.push(`s.account_id = ${p.id(q.accountId)}`);
  return parts.join(' AND ');
}

export function tagRepository(db: Db): TagRepository {
  return {
    async follow(f) {
      const r = await db.row(
        `WITH added AS (
           INSERT INTO tag_follows (${TAG_COLUMNS}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id, tag) DO NOTHING RETURNING ${TAG_COLUMNS}
         )
         SELECT ${TAG_COLUMNS} FROM added UNION ALL SELECT ${TAG_COLUMNS} FROM tag_follows WHERE account_id = $2 AND tag = $3 LIMIT 1`,
        [key(f.id), key(f.accountId), f.tag, f.name, f.createdAt],
      );
      if (r !== undefined) return tagRowFrom(r);
      // A racing insert committed after this statement's snapshot: a new statement sees it.
      const raced = await db.row(`SELECT ${TAG_COLUMNS} FROM tag_follows WHERE account_id = $1 AND tag = $2`, [key(f.accountId), f.tag]);
      if (raced === undefined) throw new Error('the tag follow just written is missing');
      return tagRowFrom(raced);
    },
    async unfollow(accountId, tag) {
      return (await db.run('DELETE FROM tag_follows WHERE account_id = $1 AND tag = $2', [key(accountId), tag])) > 0;
    },
    async followedBy(accountId, page) {
      const p = new Params();
      return paged(db, p, `SELECT ${TAG_COLUMNS} FROM tag_follows`, `account_id = ${p.id(accountId)}`, 'id', page, tagRowFrom);
    },
    async followedAmong(accountId, tags) {
      if (tags.length === 0) return [];
      return (await db.rows('SELECT tag FROM tag_follows WHERE account_id = $1 AND tag = ANY($2::text[])', [key(accountId), [...tags]])).map((r) => text(r['tag']));
    },
    async followersOf(tags) {
      if (tags.length === 0) return [];
      return (await db.rows('SELECT DISTINCT account_id FROM tag_follows WHERE tag = ANY($1::text[])', [[...tags]])).map((r) => id(r['account_id']));
    },
    async feature(f, max) {
      // The limit counts the account's featured tags: they are taken one account at a time.
      return db.transaction(async (tx) => {
        await tx.row(`SELECT pg_advisory_xact_lock(hashtextextended('rookery.featured_tags:' || $1::text, 0))`, [key(f.accountId)]);
        const existing = await tx.row(`SELECT ${TAG_COLUMNS} FROM featured_tags WHERE account_id = $1 AND tag = $2`, [key(f.accountId), f.tag]);
        if (existing !== undefined) return { result: 'exists' as const, featured: tagRowFrom(existing) };
        const count = int((await tx.row('SELECT count(*)::int AS n FROM featured_tags WHERE account_id = $1', [key(f.accountId)]))?.['n']);
        if (count >= max) return { result: 'limit' as const, featured: null };
        await tx.run(`INSERT INTO featured_tags (${TAG_COLUMNS}) VALUES ($1, $2, $3, $4, $5)`, [key(f.id), key(f.accountId), f.tag, f.name, f.createdAt]);
        return { result: 'added' as const, featured: { ...f } };
      });
    },
    async unfeature(accountId, featuredId) {
      const k = lookupKey(featuredId);
      if (k === null) return false;
      return (await db.run('DELETE FROM featured_tags WHERE id = $1 AND account_id = $2', [k, key(accountId)])) > 0;
    },
    async featuredBy(accountId) {
      return (await db.rows(`SELECT ${TAG_COLUMNS} FROM featured_tags WHERE account_id = $1 ORDER BY id`, [key(accountId)])).map(tagRowFrom);
    },
    async statsOf(accountId, tags, visibilities) {
      if (tags.length === 0) return [];
      const rows = await db.rows(
        `SELECT t.tag, count(*)::int AS n, max(s.created_at) AS last FROM status_tags t JOIN statuses s ON s.id = t.status_id
         WHERE s.account_id = $1 AND s.deleted_at IS NULL AND s.visibility = ANY($2::text[]) AND t.tag = ANY($3::text[])
         GROUP BY t.tag`,
        [key(accountId), [...visibilities], [...tags]],
      );
      return rows.map((r) => ({ tag: text(r['tag']), count: int(r['n']), lastStatusAt: int(r['last']) }));
    },
    async uses(q, limit) {
      const p = new Params();
      const where = usesCondition(p, q);
      const rows = await db.rows(
        `SELECT t.tag, s.id AS status_id, s.account_id, s.created_at FROM statuses s JOIN status_tags t ON t.status_id = s.id
         WHERE ${where} ORDER BY s.id DESC, t.tag LIMIT ${p.add(limitOf(limit))}`,
        p.values,
      );
      return rows.map((r) => ({ tag: text(r['tag']), statusId: id(r['status_id']), accountId: id(r['account_id']), createdAt: int(r['created_at']) }));
    },
  };
}

function endorsementFromRow(r: Row): Endorsement {
  return { id: id(r['id']), accountId: id(r['account_id']), targetId: id(r['target_account_id']), createdAt: int(r['created_at']) };
}

export function endorsementRepository(db: Db): EndorsementRepository {
  return {
    async endorse(e) {
      const n = await db.run(
        'INSERT INTO endorsements (id, account_id, target_account_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (account_id, target_account_id) DO NOTHING',
        [key(e.id), key(e.accountId), key(e.targetId), e.createdAt],
      );
      return n > 0;
    },
    async unendorse(accountId, targetId) {
      return (await db.run('DELETE FROM endorsements WHERE account_id = $1 AND target_account_id = $2', [key(accountId), key(targetId)])) > 0;
    },
    async endorsedBy(accountId, page) {
      const p = new Params();
      return paged(db, p, 'SELECT id, account_id, target_account_id, created_at FROM endorsements', `account_id = ${p.id(accountId)}`, 'id', page, endorsementFromRow);
    },
    async endorsedAmong(accountId, targetIds) {
      const wanted = keys(targetIds);
      if (wanted.length === 0) return [];
      return (await db.rows('SELECT target_account_id FROM endorsements WHERE account_id = $1 AND target_account_id = ANY($2::bigint[])', [key(accountId), wanted])).map((r) =>
        id(r['target_account_id']),
      );
    },
  };
}
