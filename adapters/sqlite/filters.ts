import type { FilterRepository, MarkerRepository } from '../../core/domain/ports/storage.ts';
import type { Filter, Marker, MarkerTimeline } from '../../core/domain/model.ts';
import { id, int, intOrNull, json, jsonText, key, lookupKey, text, type Db, type Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { RowCache } from './cache.ts';

// ---- filters ----------------------------------------------------------------------------------

const FILTER = 'SELECT id, account_id, title, context, action, expires_at, keywords, statuses, created_at FROM filters';

function filterFromRow(r: Row): Filter {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    title: text(r.title),
    context: json(r.context),
    action: text(r.action) as Filter['action'],
    expiresAt: intOrNull(r.expires_at),
    keywords: json(r.keywords),
    statuses: json(r.statuses),
    createdAt: int(r.created_at),
  };
}

const copyFilter = (f: Filter): Filter => ({
  ...f,
  context: [...f.context],
  keywords: f.keywords.map((k) => ({ ...k })),
  statuses: f.statuses.map((s) => ({ ...s })),
});

export function filterRepository(db: Db): FilterRepository {
  // An account's filters, read on every signed-in render (for `filtered`).
  const byAccount = new RowCache<string, Filter[]>(db, 'filters', 5_000, (list) => list.map(copyFilter));
  const getFilter = (k: bigint): Filter | null => {
    const r = db.get(`${FILTER} WHERE id = ?`, k);
    return r ? filterFromRow(r) : null;
  };
  return {
    async create(f, outbox) {
      await writeWithOutbox(db, outbox, () => {
        db.run(
          'INSERT INTO filters (id, account_id, title, context, action, expires_at, keywords, statuses, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          key(f.id), key(f.accountId), f.title, jsonText(f.context), f.action, f.expiresAt, jsonText(f.keywords), jsonText(f.statuses), f.createdAt,
        );
        return f;
      });
    },
    async get(filterId) {
      const k = lookupKey(filterId);
      return k === null ? null : getFilter(k);
    },
    async listBy(accountId) {
      const hit = byAccount.get(accountId);
      if (hit !== undefined) return hit;
      const found = db.all(`${FILTER} WHERE account_id = ? ORDER BY id`, key(accountId)).map(filterFromRow);
      byAccount.set(accountId, found);
      return found;
    },
    async replace(f, outbox) {
      const k = lookupKey(f.id);
      if (k === null) return null;
      return writeWithOutbox(db, outbox, () => {
        const changed = db.run(
          'UPDATE filters SET account_id = ?, title = ?, context = ?, action = ?, expires_at = ?, keywords = ?, statuses = ?, created_at = ? WHERE id = ?',
          key(f.accountId), f.title, jsonText(f.context), f.action, f.expiresAt, jsonText(f.keywords), jsonText(f.statuses), f.createdAt, k,
        );
        return changed > 0 ? getFilter(k) : null;
      });
    },
    async delete(filterId, outbox) {
      const k = lookupKey(filterId);
      if (k === null) return false;
      return writeWithOutbox(db, outbox, () => db.run('DELETE FROM filters WHERE id = ?', k) > 0);
    },
  };
}

// ---- markers ----------------------------------------------------------------------------------

function markerFromRow(r: Row): Marker {
  return {
    accountId: id(r.account_id),
    timeline: text(r.timeline) as MarkerTimeline,
    lastReadId: id(r.last_read_id),
    version: int(r.version),
    updatedAt: int(r.updated_at),
  };
}

export function markerRepository(db: Db): MarkerRepository {
  return {
    async get(accountId, timelines) {
      const rows = db
        .all(
          'SELECT account_id, timeline, last_read_id, version, updated_at FROM markers WHERE account_id = ? AND timeline IN (SELECT value FROM json_each(?))',
          key(accountId), jsonText(timelines),
        )
        .map(markerFromRow);
      const byTimeline = new Map(rows.map((m) => [m.timeline, m]));
      const out: Marker[] = [];
      for (const tl of new Set(timelines)) {
        const m = byTimeline.get(tl);
        if (m) out.push(m);
      }
      return out;
    },
    async set(accountId, timeline, lastReadId, updatedAt) {
      return db.write(() => {
        const r = db.get(
          `INSERT INTO markers (account_id, timeline, last_read_id, version, updated_at) VALUES (?, ?, ?, 0, ?)
           ON CONFLICT (account_id, timeline) DO UPDATE SET last_read_id = excluded.last_read_id, version = version + 1, updated_at = excluded.updated_at
           RETURNING account_id, timeline, last_read_id, version, updated_at`,
          key(accountId), timeline, key(lastReadId), updatedAt,
        );
        if (!r) throw new Error('markers.set: RETURNING gave no row');
        return markerFromRow(r);
      });
    },
  };
}
