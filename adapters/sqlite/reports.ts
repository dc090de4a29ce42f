import type { ReportRepository } from '../../core/domain/ports/storage.ts';
import type { AdminAction, AdminTargetType, Report } from '../../core/domain/model.ts';
import { isId } from '../../core/domain/ids.ts';
import { bool, flag, id, idOrNull, int, intOrNull, json, jsonOrNull, jsonText, key, keyList, keyOrNull, lookupKey, paged, setClause, text, type Db, type Param, type Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';

const REPORT = `SELECT id, account_id, target_account_id, status_ids, comment, category, rule_ids, forwarded, assigned_account_id,
  action_taken_at, action_taken_by_account_id, created_at, updated_at FROM reports`;
const ACTION = 'SELECT id, account_id, action, target_type, target_id, created_at FROM admin_actions';

function reportFromRow(r: Row): Report {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    targetAccountId: id(r.target_account_id),
    statusIds: json(r.status_ids),
    comment: text(r.comment),
    category: text(r.category) as Report['category'],
    ruleIds: jsonOrNull(r.rule_ids),
    forwarded: bool(r.forwarded),
    assignedAccountId: idOrNull(r.assigned_account_id),
    actionTakenAt: intOrNull(r.action_taken_at),
    actionTakenByAccountId: idOrNull(r.action_taken_by_account_id),
    createdAt: int(r.created_at),
    updatedAt: int(r.updated_at),
  };
}

function actionFromRow(r: Row): AdminAction {
  return { id: id(r.id), accountId: id(r.account_id), action: text(r.action), targetType: text(r.target_type) as AdminTargetType, targetId: id(r.target_id), createdAt: int(r.created_at) };
}

const asIs = (v: string | number | null) => v;

export function reportRepository(db: Db): ReportRepository {
  const getReport = (k: bigint): Report | null => {
    const r = db.get(`${REPORT} WHERE id = ?`, k);
    return r ? reportFromRow(r) : null;
  };
  return {
    async create(report, outbox) {
      await writeWithOutbox(db, outbox, () => {
        db.run(
          `INSERT INTO reports (id, account_id, target_account_id, status_ids, comment, category, rule_ids, forwarded, assigned_account_id,
             action_taken_at, action_taken_by_account_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          key(report.id), key(report.accountId), key(report.targetAccountId), jsonText(report.statusIds), report.comment, report.category,
          report.ruleIds === null ? null : jsonText(report.ruleIds), flag(report.forwarded), keyOrNull(report.assignedAccountId),
          report.actionTakenAt, keyOrNull(report.actionTakenByAccountId), report.createdAt, report.updatedAt,
        );
        return report;
      });
    },
    async get(reportId) {
      const k = lookupKey(reportId);
      return k === null ? null : getReport(k);
    },
    async getMany(ids) {
      const wanted = [...new Set(ids.filter(isId))];
      if (wanted.length === 0) return [];
      return db.all(`${REPORT} WHERE id IN (SELECT value FROM json_each(?))`, keyList(wanted)).map(reportFromRow);
    },
    async list(filter, page) {
      let base = filter.resolved ? 'action_taken_at IS NOT NULL' : 'action_taken_at IS NULL';
      const params: Param[] = [];
      if (filter.accountId !== undefined) {
        base += ' AND account_id = ?';
        params.push(key(filter.accountId));
      }
      if (filter.targetAccountId !== undefined) {
        base += ' AND target_account_id = ?';
        params.push(key(filter.targetAccountId));
      }
      return paged(db, REPORT, base, params, 'id', page, reportFromRow);
    },
    async update(reportId, patch, action) {
      const k = lookupKey(reportId);
      if (k === null) return null;
      const set = setClause(patch, {
        category: ['category', asIs],
        ruleIds: ['rule_ids', (v: string[] | null) => (v === null ? null : jsonText(v))],
        assignedAccountId: ['assigned_account_id', (v: string | null) => (v === null ? null : key(v))],
        actionTakenAt: ['action_taken_at', asIs],
        actionTakenByAccountId: ['action_taken_by_account_id', (v: string | null) => (v === null ? null : key(v))],
        updatedAt: ['updated_at', asIs],
      });
      return db.write(() => {
        if (getReport(k) === null) return null;
        if (set.sql !== '') db.run(`UPDATE reports SET ${set.sql} WHERE id = ?`, ...set.params, k);
        db.run(
          'INSERT INTO admin_actions (id, account_id, action, target_type, target_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          key(action.id), key(action.accountId), action.action, action.targetType, key(action.targetId), action.createdAt,
        );
        return getReport(k);
      });
    },
    async actions(page) {
      return paged(db, ACTION, '1 = 1', [], 'id', page, actionFromRow);
    },
  };
}
