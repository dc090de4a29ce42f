// Reports (POST /api/v1/reports) and the moderators' reports API (/api/v1/admin/reports,
// as Mastodon 4.4 serves it). Admin endpoints take an optional token, as
// Mastodon's authorize_if_got_token! does: without a user whose role may manage reports they
// answer 403 "This action is not allowed".

import type { AppCore } from '../context.ts';
import { notFound } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import { assignToSelf, createReport, getReport, moderator, reopen, resolve, unassign, updateReport } from '../../domain/moderation/reports.ts';
import { bool, page, str, strArray } from '../../domain/params.ts';
import { presentAdminReports, presentReports } from '../present/report.ts';
import { pagedJson } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';
import type { Account, Report } from '../../domain/model.ts';

const ADMIN_READ = ['admin:read', 'admin:read:reports'];
const ADMIN_WRITE = ['admin:write', 'admin:write:reports'];
const LIMIT = 100;

const idOf = (request: ApiRequest): string => request.params['id'] ?? '';

export function reportEndpoints(core: AppCore): Endpoint[] {
  const one = async (report: Report, viewer: Account) => json((await presentAdminReports(core, [report], viewer))[0]);
  const action = (path: string, run: (core: AppCore, by: Account, id: string) => Promise<Report>): Endpoint => ({
    method: 'POST',
    path: `/api/v1/admin/reports/:id/${path}`,
    auth: 'optional',
    scopes: ADMIN_WRITE,
    handle: async (request) => {
      const by = moderator(request.caller.account);
      return one(await run(core, by, idOf(request)), by);
    },
  });
  return [
    {
      method: 'POST',
      path: '/api/v1/reports',
      auth: 'user',
      scopes: ['write', 'write:reports'],
      handle: async (request) => {
        const params = paramsOf(request);
        const report = await createReport(core, actorOf(request), {
          accountId: str(params, 'account_id'),
          statusIds: strArray(params, 'status_ids'),
          comment: str(params, 'comment'),
          category: str(params, 'category'),
          ruleIds: strArray(params, 'rule_ids'),
          forward: bool(params, 'forward'),
        });
        const [rendered] = await presentReports(core, [report]);
        if (rendered === undefined) throw notFound();
        return json(rendered);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/admin/reports',
      auth: 'optional',
      scopes: ADMIN_READ,
      handle: async (request) => {
        const by = moderator(request.caller.account);
        const params = request.query;
        const accountId = str(params, 'account_id');
        const targetAccountId = str(params, 'target_account_id');
        // An id that cannot exist matches no report.
        if ((accountId !== undefined && !isId(accountId)) || (targetAccountId !== undefined && !isId(targetAccountId))) return json([]);
        const wanted = page(params, LIMIT, LIMIT * 2);
        const filter = { resolved: bool(params, 'resolved') === true, ...(accountId === undefined ? {} : { accountId }), ...(targetAccountId === undefined ? {} : { targetAccountId }) };
        const reports = await core.storage.reports.list(filter, wanted);
        const next = reports.length > 0 && reports.length === wanted.limit ? (reports[reports.length - 1] as Report).id : null;
        const prev = reports.length > 0 ? (reports[0] as Report).id : null;
        return pagedJson(core, request, await presentAdminReports(core, reports, by), { next, prev });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/admin/reports/:id',
      auth: 'optional',
      scopes: ADMIN_READ,
      handle: async (request) => {
        const by = moderator(request.caller.account);
        return one(await getReport(core, idOf(request)), by);
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/admin/reports/:id',
      auth: 'optional',
      scopes: ADMIN_WRITE,
      handle: async (request) => {
        const by = moderator(request.caller.account);
        const params = paramsOf(request);
        const input: { category?: string; ruleIds?: string[] } = {};
        const category = str(params, 'category');
        const ruleIds = strArray(params, 'rule_ids');
        if (category !== undefined) input.category = category;
        if (ruleIds !== undefined) input.ruleIds = ruleIds;
        return one(await updateReport(core, by, idOf(request), input), by);
      },
    },
    action('assign_to_self', assignToSelf),
    action('unassign', unassign),
    action('resolve', resolve),
    action('reopen', reopen),
  ];
}
