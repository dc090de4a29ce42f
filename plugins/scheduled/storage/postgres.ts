import { type ScheduledStatus, StorageConflict } from 'rookery/plugin-kit';
import type { PostgresExtensionContext, PostgresRow } from 'rookery/postgres';
import type { ScheduledStatusRepository } from './port.ts';

/** The plugin's own migrations on PostgreSQL; never edit a released one. */
export const SCHEDULED_POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE scheduled_statuses (
    id bigint PRIMARY KEY,
    account_id bigint NOT NULL,
    scheduled_at bigint NOT NULL,
    params text NOT NULL,
    claimed_until bigint,
    created_at bigint NOT NULL
  );
  CREATE INDEX scheduled_statuses_account ON scheduled_statuses (account_id, scheduled_at);
  CREATE INDEX scheduled_statuses_due ON scheduled_statuses (scheduled_at, id);
  `,
];

const COLUMNS = 'id, account_id, scheduled_at, params, claimed_until, created_at';
const SCHEDULED = `SELECT ${COLUMNS} FROM scheduled_statuses`;

export function postgresScheduledRepository(context: PostgresExtensionContext): ScheduledStatusRepository {
  const { sql, values: v } = context;
  const ready = context.migrate(SCHEDULED_POSTGRES_MIGRATIONS);
  const fromRow = (r: PostgresRow): ScheduledStatus => ({
    id: v.id(r['id']),
    accountId: v.id(r['account_id']),
    scheduledAt: v.int(r['scheduled_at']),
    params: v.json(r['params']),
    claimedUntil: v.intOrNull(r['claimed_until']),
    createdAt: v.int(r['created_at']),
  });
  const dueFirst = (a: ScheduledStatus, b: ScheduledStatus): number =>
    a.scheduledAt - b.scheduledAt || (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0);
  return {
    async create(s, outbox) {
      await ready;
      const params = [v.key(s.id), v.key(s.accountId), s.scheduledAt, v.jsonText(s.params), s.claimedUntil, s.createdAt];
      const insert = `INSERT INTO scheduled_statuses (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`;
      if (outbox === undefined) await sql.run(insert, params);
      else await context.writeWithOutbox(outbox, async (tx) => void (await tx.run(insert, params)));
    },
    async get(scheduledId) {
      await ready;
      const k = v.lookupKey(scheduledId);
      const r = k === null ? undefined : await sql.row(`${SCHEDULED} WHERE id = $1`, [k]);
      return r ? fromRow(r) : null;
    },
    async listBy(accountId, page) {
      await ready;
      const p = new v.Params();
      return v.paged(sql, p, SCHEDULED, `account_id = ${p.id(accountId)}`, 'id', page, fromRow);
    },
    async update(scheduledId, scheduledAt, outbox) {
      await ready;
      const k = v.lookupKey(scheduledId);
      const move = async (on: typeof sql) => {
        if (k === null) return null;
        const r = await on.row(`UPDATE scheduled_statuses SET scheduled_at = $1 WHERE id = $2 RETURNING ${COLUMNS}`, [scheduledAt, k]);
        return r ? fromRow(r) : null;
      };
      return outbox === undefined ? move(sql) : context.writeWithOutbox(outbox, move);
    },
    async delete(scheduledId) {
      await ready;
      const k = v.lookupKey(scheduledId);
      return k !== null && (await sql.run('DELETE FROM scheduled_statuses WHERE id = $1', [k])) > 0;
    },
    async countBetween(accountId, from, to) {
      await ready;
      const a = v.lookupKey(accountId);
      if (a === null) return 0;
      const r = await sql.row('SELECT count(*) AS n FROM scheduled_statuses WHERE account_id = $1 AND scheduled_at >= $2 AND scheduled_at < $3', [a, v.ceilMs(from), v.ceilMs(to)]);
      return v.int(r?.['n']);
    },
    async countPending(accountId) {
      await ready;
      const a = v.lookupKey(accountId);
      if (a === null) return 0;
      return v.int((await sql.row('SELECT count(*) AS n FROM scheduled_statuses WHERE account_id = $1', [a]))?.['n']);
    },
    async claimDue(now, leaseMs, limit) {
      await ready;
      const n = v.limitOf(limit);
      if (n === 0) return [];
      // SKIP LOCKED: two processes claiming at once take disjoint rows; a row the other one
      // leased and committed meanwhile is re-checked against its lease and left out.
      const rows = await sql.rows(
        `UPDATE scheduled_statuses SET claimed_until = $3
         WHERE id IN (
           SELECT id FROM scheduled_statuses WHERE scheduled_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
           ORDER BY scheduled_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
         )
         RETURNING ${COLUMNS}`,
        [v.floorMs(now), n, v.ceilMs(now + leaseMs)],
      );
      return rows.map(fromRow).sort(dueFirst);
    },
    consume(scheduledId) {
      const k = v.lookupKey(scheduledId);
      return context.prepare({
        async check(tx) {
          await ready;
          // Locked: a second publication of the row waits here, then finds it gone.
          if (k === null || (await tx.row('SELECT 1 AS found FROM scheduled_statuses WHERE id = $1 FOR UPDATE', [k])) === undefined) {
            throw new StorageConflict('scheduled');
          }
        },
        async apply(tx) {
          await tx.run('DELETE FROM scheduled_statuses WHERE id = $1', [k]);
        },
      });
    },
  };
}
