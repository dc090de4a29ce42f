import { type ScheduledStatus, StorageConflict } from 'rookery/plugin-kit';
import type { SqliteExtensionContext, SqliteRow } from 'rookery/sqlite';
import type { ScheduledStatusRepository } from './port.ts';

/** The plugin's own migrations; 1 is the shape core migration 1 created them with. */
export const SCHEDULED_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS scheduled_statuses (
    id INTEGER PRIMARY KEY,
    account_id INTEGER NOT NULL,
    scheduled_at INTEGER NOT NULL,
    params TEXT NOT NULL,
    claimed_until INTEGER,
    created_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX IF NOT EXISTS scheduled_statuses_account ON scheduled_statuses (account_id, scheduled_at);
  CREATE INDEX IF NOT EXISTS scheduled_statuses_due ON scheduled_statuses (scheduled_at, id);
  `,
];

const SCHEDULED = 'SELECT id, account_id, scheduled_at, params, claimed_until, created_at FROM scheduled_statuses';

export function sqliteScheduledRepository(context: SqliteExtensionContext): ScheduledStatusRepository {
  const { db, values: v } = context;
  context.migrate(SCHEDULED_MIGRATIONS);
  const fromRow = (r: SqliteRow): ScheduledStatus => ({
    id: v.id(r.id),
    accountId: v.id(r.account_id),
    scheduledAt: v.int(r.scheduled_at),
    params: v.json(r.params),
    claimedUntil: v.intOrNull(r.claimed_until),
    createdAt: v.int(r.created_at),
  });
  const getScheduled = (k: bigint): ScheduledStatus | null => {
    const r = db.get(`${SCHEDULED} WHERE id = ?`, k);
    return r ? fromRow(r) : null;
  };
  return {
    async create(s, outbox) {
      await context.writeWithOutbox(outbox, () => {
        db.run(
          'INSERT INTO scheduled_statuses (id, account_id, scheduled_at, params, claimed_until, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          v.key(s.id), v.key(s.accountId), s.scheduledAt, v.jsonText(s.params), s.claimedUntil, s.createdAt,
        );
      });
    },
    async get(scheduledId) {
      const k = v.lookupKey(scheduledId);
      return k === null ? null : getScheduled(k);
    },
    async listBy(accountId, page) {
      return v.paged(db, SCHEDULED, 'account_id = ?', [v.key(accountId)], 'id', page, fromRow);
    },
    async update(scheduledId, scheduledAt, outbox) {
      const k = v.lookupKey(scheduledId);
      if (k === null) return null;
      return context.writeWithOutbox(outbox, () => (db.run('UPDATE scheduled_statuses SET scheduled_at = ? WHERE id = ?', scheduledAt, k) > 0 ? getScheduled(k) : null));
    },
    async delete(scheduledId) {
      const k = v.lookupKey(scheduledId);
      if (k === null) return false;
      return db.write(() => db.run('DELETE FROM scheduled_statuses WHERE id = ?', k) > 0);
    },
    async countBetween(accountId, from, to) {
      const r = db.get('SELECT count(*) AS n FROM scheduled_statuses WHERE account_id = ? AND scheduled_at >= ? AND scheduled_at < ?', v.key(accountId), from, to);
      return v.int(r?.n);
    },
    async countPending(accountId) {
      return v.int(db.get('SELECT count(*) AS n FROM scheduled_statuses WHERE account_id = ?', v.key(accountId))?.n);
    },
    async claimDue(now, leaseMs, limit) {
      return db.write(() => {
        const due = db
          .all(`${SCHEDULED} WHERE scheduled_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?) ORDER BY scheduled_at, id LIMIT +?`, now, now, Math.max(0, Math.trunc(limit)))
          .map(fromRow);
        if (due.length === 0) return due;
        const until = now + leaseMs;
        db.run('UPDATE scheduled_statuses SET claimed_until = ? WHERE id IN (SELECT value FROM json_each(?))', until, v.keyList(due.map((s) => s.id)));
        return due.map((s) => ({ ...s, claimedUntil: until }));
      });
    },
    consume(scheduledId) {
      const k = v.lookupKey(scheduledId);
      return context.prepare({
        check(tx) {
          if (k === null || !tx.get('SELECT 1 FROM scheduled_statuses WHERE id = ?', k)) throw new StorageConflict('scheduled');
        },
        apply(tx) {
          tx.run('DELETE FROM scheduled_statuses WHERE id = ?', k);
        },
      });
    },
  };
}
