import type { ReportRepository } from '../../core/domain/ports/storage.ts';
import type { AdminAction, AdminTargetType, Report } from '../../core/domain/model.ts';
import type { Db, Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { Params, bool, id, idOrNull, int, intOrNull, json, jsonOrNull, jsonText, key, keyOrNull, keys, lookupKey, paged, setClause, text } from './values.ts';

const REPORT_COLUMNS = `id, account_id, target_account_id, status_ids, comment, category, rule_ids, forwarded, assigned_account_id,
  action_taken_at, action_taken_by_account_id, created_at, updated_at`;
const REPORT = `SELECT ${REPORT_COLUMNS} FROM reports`;
const ACTION = 'SELECT id, account_id, action, target_type, target_id, created_at FROM admin_actions';

function reportFromRow(r: Row): Report {
  return {
    id: id(r['id']),
    accountId: id(r['account_id']),
    targetAccountId: id(r['target_account_id']),
    statusIds: json(r['status_ids']),
    comment: text(r['comment']),
    category: text(r['category']) as Report['category'],
    ruleIds: jsonOrNull(r['rule_ids']),
    forwarded: bool(r['forwarded']),
    assignedAccountId: idOrNull(r['assigned_account_id']),
    actionTakenAt: intOrNull(r['action_taken_at']),
    actionTakenByAccountId: idOrNull(r['action_taken_by_account_id']),
    createdAt: int(r['created_at']),
    updatedAt: int(r['updated_at']),
  };
}

function actionFromRow(r: Row): AdminAction {
  return { id: id(r['id']), accountId: id(r['account_id']), action: text(r['action']), targetType: text(r['target_type']) as AdminTargetType, targetId: id(r['target_id']), createdAt: int(r['created_at']) };
}

const asIs = <T>(v: T) => v;
const idParam = (v: string | null) => (v === null ? null : key(v));

export function reportRepository(db: Db): ReportRepository {
  return {
    async create(report, outbox) {
      await writeWithOutbox(db, outbox, async (sql) => {
        await sql.run(`INSERT INTO reports (${REPORT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
          key(report.id), key(report.accountId), key(report.targetAccountId), jsonText(report.statusIds), report.comment, report.category,
          report.ruleIds === null ? null : jsonText(report.ruleIds), report.forwarded, keyOrNull(report.assignedAccountId),
          report.actionTakenAt, keyOrNull(report.actionTakenByAccountId), report.createdAt, report.updatedAt,
        ]);
        return report;
      });
    },
    async get(reportId) {
      const k = lookupKey(reportId);
      if (k === null) return null;
      const r = await db.row(`${REPORT} WHERE id = $1`, [k]);
      return r ? reportFromRow(r) : null;
    },
    async getMany(ids) {
      const wanted = keys(ids);
      if (wanted.length === 0) return [];
      return (await db.rows(`${REPORT} WHERE id = ANY($1::bigint[])`, [wanted])).map(reportFromRow);
    },
    async list(filter, page) {
      const p = new Params();
      let base = filter.resolved ? 'action_taken_at IS NOT NULL' : 'action_taken_at IS NULL';
      if (filter.accountId !== undefined) base += ` AND account_id = ${p.id(filter.accountId)}`;
      if (filter.targetAccountId !== undefined) base += ` AND target_account_id = ${p.id(filter.targetAccountId)}`;
      return paged(db, p, REPORT, base, 'id', page, reportFromRow);
    },
    async update(reportId, patch, action) {
      const k = lookupKey(reportId);
      if (k === null) return null;
      const p = new Params();
      const set = setClause(p, patch, {
        category: ['category', asIs],
        ruleIds: ['rule_ids', (v: string[] | null) => (v === null ? null : jsonText(v))],
        assignedAccountId: ['assigned_account_id', idParam],
        actionTakenAt: ['action_taken_at', asIs],
        actionTakenByAccountId: ['action_taken_by_account_id', idParam],
        updatedAt: ['updated_at', asIs],
      });
      const target = p.add(k);
      return db.transaction(async (tx) => {
        const r = await tx.row(set === '' ? `${REPORT} WHERE id = ${target}::bigint` : `UPDATE reports SET ${set} WHERE id = ${target}::bigint RETURNING ${REPORT_COLUMNS}`, p.values);
        if (r === undefined) return null;
        await tx.run('INSERT INTO admin_actions (id, account_id, action, target_type, target_id, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
          key(action.id), key(action.accountId), action.action, action.targetType, key(action.targetId), action.createdAt,
        ]);
        return reportFromRow(r);
      });
    },
    async actions(page) {
      return paged(db, new Params(), ACTION, 'true', 'id', page, actionFromRow);
    },
  };
}
