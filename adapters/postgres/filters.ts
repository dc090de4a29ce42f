import type { FilterRepository, MarkerRepository } from '../../core/domain/ports/storage.ts';
import type { Filter, Marker, MarkerTimeline } from '../../core/domain/model.ts';
import type { Db, Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { id, int, intOrNull, json, jsonText, key, lookupKey, text } from './values.ts';

// ---- filters ----------------------------------------------------------------------------------

const FILTER_COLUMNS = 'id, account_id, title, context, action, expires_at, keywords, statuses, created_at';
const FILTER = `SELECT ${FILTER_COLUMNS} FROM filters`;

function filterFromRow(r: Row): Filter {
  return {
    id: id(r['id']),
    accountId: id(r['account_id']),
    title: text(r['title']),
    context: json(r['context']),
    action: text(r['action']) as Filter['action'],
    expiresAt: intOrNull(r['expires_at']),
    keywords: json(r['keywords']),
    statuses: json(r['statuses']),
    createdAt: int(r['created_at']),
  };
}

export function filterRepository(db: Db): FilterRepository {
  return {
    async create(f, outbox) {
      await writeWithOutbox(db, outbox, async (sql) => {
        await sql.run(`INSERT INTO filters (${FILTER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
          key(f.id), key(f.accountId), f.title, jsonText(f.context), f.action, f.expiresAt, jsonText(f.keywords), jsonText(f.statuses), f.createdAt,
        ]);
        return f;
      });
    },
    async get(filterId) {
      const k = lookupKey(filterId);
      if (k === null) return null;
      const r = await db.row(`${FILTER} WHERE id = $1`, [k]);
      return r ? filterFromRow(r) : null;
    },
    async listBy(accountId) {
      const a = lookupKey(accountId);
      if (a === null) return [];
      return (await db.rows(`${FILTER} WHERE account_id = $1 ORDER BY id`, [a])).map(filterFromRow);
    },
    async replace(f, outbox) {
      const k = lookupKey(f.id);
      return writeWithOutbox(db, outbox, async (sql) => {
        if (k === null) return null;
        const r = await sql.row(
          `UPDATE filters SET account_id = $1, title = $2, context = $3, action = $4, expires_at = $5, keywords = $6, statuses = $7, created_at = $8
           WHERE id = $9 RETURNING ${FILTER_COLUMNS}`,
          [key(f.accountId), f.title, jsonText(f.context), f.action, f.expiresAt, jsonText(f.keywords), jsonText(f.statuses), f.createdAt, k],
        );
        return r ? filterFromRow(r) : null;
      });
    },
    async delete(filterId, outbox) {
      const k = lookupKey(filterId);
      return writeWithOutbox(db, outbox, async (sql) => k !== null && (await sql.run('DELETE FROM filters WHERE id = $1', [k])) > 0);
    },
  };
}

// ---- markers ----------------------------------------------------------------------------------

const MARKER_COLUMNS = 'account_id, timeline, last_read_id, version, updated_at';

function markerFromRow(r: Row): Marker {
  return {
    accountId: id(r['account_id']),
    timeline: text(r['timeline']) as MarkerTimeline,
    lastReadId: id(r['last_read_id']),
    version: int(r['version']),
    updatedAt: int(r['updated_at']),
  };
}

export function markerRepository(db: Db): MarkerRepository {
  return {
    async get(accountId, timelines) {
      const a = lookupKey(accountId);
      if (a === null || timelines.length === 0) return [];
      const rows = (await db.rows(`SELECT ${MARKER_COLUMNS} FROM markers WHERE account_id = $1 AND timeline = ANY($2::text[])`, [a, [...timelines]])).map(markerFromRow);
      const byTimeline = new Map(rows.map((m) => [m.timeline, m]));
      const out: Marker[] = [];
      for (const tl of new Set(timelines)) {
        const m = byTimeline.get(tl);
        if (m) out.push(m);
      }
      return out;
    },
    async set(accountId, timeline, lastReadId, updatedAt) {
      // ON CONFLICT DO UPDATE works on the newest row version, under its lock: concurrent sets
      // each add one to the version.
      const r = await db.row(
        `INSERT INTO markers (${MARKER_COLUMNS}) VALUES ($1, $2, $3, 0, $4)
         ON CONFLICT (account_id, timeline) DO UPDATE SET last_read_id = excluded.last_read_id, version = markers.version + 1, updated_at = excluded.updated_at
         RETURNING ${MARKER_COLUMNS}`,
        [key(accountId), timeline, key(lastReadId), updatedAt],
      );
      if (r === undefined) throw new Error('markers.set: RETURNING gave no row');
      return markerFromRow(r);
    },
  };
}
