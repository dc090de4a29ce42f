import type { ScheduledStatusRepository } from '../../core/ports/storage.ts';
import type { ScheduledStatus } from '../../core/model.ts';
import { id, int, intOrNull, json, jsonText, key, keyList, lookupKey, paged, type Db, type Row } from './db.ts';

const SCHEDULED = 'SELECT id, account_id, scheduled_at, params, claimed_until, created_at FROM scheduled_statuses';

function scheduledFromRow(r: Row): ScheduledStatus {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    scheduledAt: int(r.scheduled_at),
    params: json(r.params),
    claimedUntil: intOrNull(r.claimed_until),
    createdAt: int(r.created_at),
  };
}

export function scheduledStatusRepository(db: Db): ScheduledStatusRepository {
  const getScheduled = (k: bigint): ScheduledStatus | null => {
    const r = db.get(`${SCHEDULED} WHERE id = ?`, k);
    return r ? scheduledFromRow(r) : null;
  };
  return {
    async create(s) {
      await db.write(() => {
        db.run(
          'INSERT INTO scheduled_statuses (id, account_id, scheduled_at, params, claimed_until, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          key(s.id), key(s.accountId), s.scheduledAt, jsonText(s.params), s.claimedUntil, s.createdAt,
        );
      });
    },
    async get(scheduledId) {
      const k = lookupKey(scheduledId);
      return k === null ? null : getScheduled(k);
    },
    async listBy(accountId, page) {
      return paged(db, SCHEDULED, 'account_id = ?', [key(accountId)], 'id', page, scheduledFromRow);
    },
    async update(scheduledId, scheduledAt) {
      const k = lookupKey(scheduledId);
      if (k === null) return null;
      return db.write(() => (db.run('UPDATE scheduled_statuses SET scheduled_at = ? WHERE id = ?', scheduledAt, k) > 0 ? getScheduled(k) : null));
    },
    async delete(scheduledId) {
      const k = lookupKey(scheduledId);
      if (k === null) return false;
      return db.write(() => db.run('DELETE FROM scheduled_statuses WHERE id = ?', k) > 0);
    },
    async countBetween(accountId, from, to) {
      const r = db.get('SELECT count(*) AS n FROM scheduled_statuses WHERE account_id = ? AND scheduled_at >= ? AND scheduled_at < ?', key(accountId), from, to);
      return int(r?.n);
    },
    async countPending(accountId) {
      return int(db.get('SELECT count(*) AS n FROM scheduled_statuses WHERE account_id = ?', key(accountId))?.n);
    },
    async claimDue(now, leaseMs, limit) {
      return db.write(() => {
        const due = db
          .all(
            `${SCHEDULED} WHERE scheduled_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY scheduled_at, id LIMIT ?`,
            now, now, Math.max(0, Math.trunc(limit)),
          )
          .map(scheduledFromRow);
        if (due.length === 0) return due;
        const until = now + leaseMs;
        db.run('UPDATE scheduled_statuses SET claimed_until = ? WHERE id IN (SELECT value FROM json_each(?))', until, keyList(due.map((s) => s.id)));
        return due.map((s) => ({ ...s, claimedUntil: until }));
      });
    },
  };
}
