// Reports, one document each. What a moderator did to a report is pushed into the report's own
// `actions` in the same single-document update that changes it (atomic without a transaction);
// the audit log is those actions, unwound, newest first.

import type { AdminAction, AdminTargetType, Id, Report } from '../../core/domain/model.ts';
import type { ReportRepository } from '../../core/domain/ports/storage.ts';
import type { Mongo } from './db.ts';
import { C } from './schema.ts';
import { inPageOrder, lookupId, num, pageQuery, validIds, withRange, type Doc } from './values.ts';

export const REPORT_PATCH_FIELDS = ['category', 'ruleIds', 'assignedAccountId', 'actionTakenAt', 'actionTakenByAccountId', 'updatedAt'] as const;

export function reportDoc(r: Report): Doc {
  const { id, ...fields } = r;
  return { _id: id, num: num(id), ...fields, actions: [] };
}

export function reportFromDoc(d: Doc): Report {
  return {
    id: d['_id'] as Id,
    accountId: d['accountId'] as Id,
    targetAccountId: d['targetAccountId'] as Id,
    statusIds: [...(d['statusIds'] as Id[])],
    comment: d['comment'] as string,
    category: d['category'] as Report['category'],
    ruleIds: d['ruleIds'] === null ? null : [...(d['ruleIds'] as string[])],
    forwarded: d['forwarded'] as boolean,
    assignedAccountId: d['assignedAccountId'] as Id | null,
    actionTakenAt: d['actionTakenAt'] as number | null,
    actionTakenByAccountId: d['actionTakenByAccountId'] as Id | null,
    createdAt: d['createdAt'] as number,
    updatedAt: d['updatedAt'] as number,
  };
}

function actionFromDoc(d: Doc): AdminAction {
  return { id: d['id'] as Id, accountId: d['accountId'] as Id, action: d['action'] as string, targetType: d['targetType'] as AdminTargetType, targetId: d['targetId'] as Id, createdAt: d['createdAt'] as number };
}

/** Ids (decimal strings) in numeric order. */
const compareIds = (a: unknown, b: unknown): number => {
  const x = BigInt(String(a));
  const y = BigInt(String(b));
  return x < y ? -1 : x > y ? 1 : 0;
};

const PROJECTION = { actions: 0, _jobs: 0 };

export function reportRepository(m: Mongo): ReportRepository {
  const reports = m.collection(C.reports);
  return {
    async create(report, outbox) {
      await m.insertWithJobs(C.reports, reportDoc(report), outbox === undefined ? [] : outbox(report));
    },
    async get(reportId) {
      const id = lookupId(reportId);
      const d = id === null ? null : await reports.findOne({ _id: id }, { projection: PROJECTION });
      return d ? reportFromDoc(d) : null;
    },
    async getMany(ids) {
      const wanted = validIds(ids);
      if (wanted.length === 0) return [];
      return (await reports.find({ _id: { $in: wanted } }, { projection: PROJECTION }).toArray()).map(reportFromDoc);
    },
    async list(filter, page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const query: Doc = { actionTakenAt: filter.resolved ? { $ne: null } : null };
      if (filter.accountId !== undefined) query['accountId'] = filter.accountId;
      if (filter.targetAccountId !== undefined) query['targetAccountId'] = filter.targetAccountId;
      const rows = await reports.find(withRange(query, p), { projection: PROJECTION }).sort({ num: p.sort }).limit(p.limit).toArray();
      return inPageOrder(rows, p).map(reportFromDoc);
    },
    async update(reportId, patch, action) {
      const id = lookupId(reportId);
      if (id === null) return null;
      const set: Doc = {};
      for (const field of REPORT_PATCH_FIELDS) if (patch[field] !== undefined) set[field] = patch[field];
      const entry = { ...action, num: num(action.id) };
      const update: Doc = { $push: { actions: entry } };
      if (Object.keys(set).length > 0) update['$set'] = set;
      const d = await reports.findOneAndUpdate({ _id: id }, update, { returnDocument: 'after', projection: PROJECTION });
      return d ? reportFromDoc(d) : null;
    },
    async actions(page) {
      const p = pageQuery(page);
      if (p.empty) return [];
      const stages: Doc[] = [{ $match: { 'actions.num': { $exists: true } } }, { $unwind: '$actions' }, { $replaceWith: '$actions' }];
      if (p.range !== null) stages.push({ $match: { num: p.range } });
      stages.push({ $sort: { num: p.sort } }, { $limit: p.limit });
      const fromReports = await reports.aggregate<Doc>(stages).toArray();
      // The actions on blocks live in their own collection; the page is the newest of both.
      const others = await m.collection(C.adminActions).find(p.range === null ? {} : { num: p.range }).sort({ num: p.sort }).limit(p.limit).toArray();
      const sign = p.sort === 1 ? 1 : -1;
      const rows = [...fromReports, ...others].sort((a, b) => sign * compareIds(a['id'], b['id'])).slice(0, p.limit);
      return inPageOrder(rows, p).map(actionFromDoc);
    },
  };
}
