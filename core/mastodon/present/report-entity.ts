// Mastodon's Report entity, rendered from a report and its target's rendered account.

import type { Report } from '../../domain/model.ts';
import { iso } from '../entities/time.ts';
import type { AccountJson } from './account.ts';

export interface ReportJson {
  id: string;
  action_taken: boolean;
  action_taken_at: string | null;
  category: string;
  comment: string;
  forwarded: boolean;
  created_at: string;
  status_ids: string[];
  rule_ids: string[] | null;
  target_account: AccountJson;
}

export function base(report: Report) {
  return {
    id: report.id,
    action_taken: report.actionTakenAt !== null,
    action_taken_at: report.actionTakenAt === null ? null : iso(report.actionTakenAt),
    category: report.category,
    comment: report.comment,
    forwarded: report.forwarded,
    created_at: iso(report.createdAt),
  };
}

export function renderReport(report: Report, target: AccountJson): ReportJson {
  return { ...base(report), status_ids: [...report.statusIds], rule_ids: report.ruleIds === null ? null : [...report.ruleIds], target_account: target };
}
