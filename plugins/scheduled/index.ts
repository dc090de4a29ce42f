// Scheduled statuses: scheduled_at on
// publish answers a ScheduledStatus; GET/PUT/DELETE /api/v1/scheduled_statuses[/:id]. At its time
// a job queued with the row (runAt = scheduled_at) publishes it through the core's publish, with a
// write that removes the row inside the status's own transaction: whichever process runs the job,
// and however often, the status is published exactly once. A periodic sweep publishes rows whose
// job was lost (leased through claimDue, so two processes never take the same row).

import {
  bool,
  checkOptions,
  isId,
  json,
  linkHeader,
  obj,
  page,
  renderScheduledStatus,
  RookeryError,
  StorageConflict,
  str,
  strArray,
  unprocessable,
  type ApiRequest,
  type Clock,
  type Endpoint,
  type Id,
  type Params,
  type RookeryPlugin,
  type ScheduledParams,
  type ScheduledStatus,
  type Status,
  type Visibility,
} from 'rookery/plugin-kit';
import { scheduledStorage, type ScheduledStatusRepository } from './storage/index.ts';

export { scheduledStorage, type ScheduledStatusRepository } from './storage/index.ts';

export const scheduledTexts = {
  recordInvalid: 'Record invalid',
  tooSoon: 'Validation failed: Scheduled at date must be in the future',
  daily: (max: number) => `Validation failed: You have exceeded the limit of ${max} scheduled posts for today`,
  total: (max: number) => `Validation failed: You have exceeded the limit of ${max} scheduled posts`,
} as const;

const MIN_AHEAD = 5 * 60_000;
const DAILY_LIMIT = 25;
const TOTAL_LIMIT = 300;
const DAY = 86_400_000;

/** scheduled_at: undefined when absent; null when in the past (publish at once). */
function readScheduledAt(clock: Clock, value: unknown): number | null | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const at = typeof value === 'string' ? Date.parse(value) : NaN;
  if (!Number.isFinite(at)) throw unprocessable(scheduledTexts.recordInvalid);
  const now = clock.now();
  if (at <= now) return null;
  if (at <= now + MIN_AHEAD) throw unprocessable(scheduledTexts.tooSoon);
  return at;
}

async function checkLimits(repo: ScheduledStatusRepository, accountId: Id, at: number, ignore: ScheduledStatus | null): Promise<void> {
  const dayStart = Math.floor(at / DAY) * DAY;
  const sameDay = (await repo.countBetween(accountId, dayStart, dayStart + DAY)) - (ignore && ignore.scheduledAt >= dayStart && ignore.scheduledAt < dayStart + DAY ? 1 : 0);
  if (sameDay >= DAILY_LIMIT) throw unprocessable(scheduledTexts.daily(DAILY_LIMIT));
  if (ignore === null && (await repo.countPending(accountId)) >= TOTAL_LIMIT) throw unprocessable(scheduledTexts.total(TOTAL_LIMIT));
}

function storedParams(params: Params, idempotency: string | null, applicationId: Id | null): ScheduledParams {
  const poll = obj(params, 'poll');
  const options = poll ? strArray(poll, 'options') : undefined;
  const expiresIn = poll ? Number(str(poll, 'expires_in')) : NaN;
  return {
    text: str(params, 'status') ?? null,
    mediaIds: strArray(params, 'media_ids') ?? null,
    sensitive: bool(params, 'sensitive') ?? null,
    spoilerText: str(params, 'spoiler_text') ?? null,
    visibility: (str(params, 'visibility') as Visibility | undefined) ?? null,
    inReplyToId: str(params, 'in_reply_to_id') ?? null,
    language: str(params, 'language') ?? null,
    poll: poll && options ? { options, expiresIn: Number.isFinite(expiresIn) ? expiresIn : 0, multiple: bool(poll, 'multiple') ?? false, hideTotals: bool(poll, 'hide_totals') ?? false } : null,
    idempotency,
    applicationId,
    quotedStatusId: str(params, 'quoted_status_id') ?? null,
    quoteApprovalPolicy: str(params, 'quote_approval_policy') ?? null,
  };
}

/** The publish parameters a stored row stands for. */
function paramsOf(p: ScheduledParams): Params {
  const params: Params = {};
  if (p.text !== null) params['status'] = p.text;
  if (p.mediaIds !== null) params['media_ids'] = p.mediaIds;
  if (p.sensitive !== null) params['sensitive'] = p.sensitive;
  if (p.spoilerText !== null) params['spoiler_text'] = p.spoilerText;
  if (p.visibility !== null) params['visibility'] = p.visibility;
  if (p.inReplyToId !== null) params['in_reply_to_id'] = p.inReplyToId;
  if (p.language !== null) params['language'] = p.language;
  if (p.poll !== null) params['poll'] = { options: p.poll.options, expires_in: p.poll.expiresIn, multiple: p.poll.multiple, hide_totals: p.poll.hideTotals };
  if (typeof p.quotedStatusId === 'string') params['quoted_status_id'] = p.quotedStatusId;
  if (typeof p.quoteApprovalPolicy === 'string') params['quote_approval_policy'] = p.quoteApprovalPolicy;
  return params;
}

/** It takes no options (an object with any is refused, so that a misspelt one is not ignored). */
export function scheduledPlugin(options: Record<string, never> = {}): RookeryPlugin {
  checkOptions('scheduledPlugin', options, {});
  return {
    name: 'scheduled',
    register(host) {
      const repo = host.storage(scheduledStorage);

      const render = async (row: ScheduledStatus) => {
        // Its media as the media plugin renders them (none without it).
        const probe = { id: row.id, mediaIds: row.params.mediaIds ?? [], pollId: null } as unknown as Status;
        const parts = row.params.mediaIds === null ? { media_attachments: [] } : await host.present.pluginParts(probe);
        return renderScheduledStatus(row, parts.media_attachments);
      };

      /** Publishes a due row; the row's removal commits with the status, so this is idempotent. */
      const publishRow = async (row: ScheduledStatus): Promise<void> => {
        const account = await host.accounts.get(row.accountId);
        if (account === null) {
          await repo.delete(row.id);
          return;
        }
        const user = await host.system.accounts.getUser(row.accountId);
        try {
          const result = await host.statuses.publish({ account, user, applicationId: row.params.applicationId }, paramsOf(row.params), row.params.idempotency, { writes: [repo.consume(row.id)] });
          host.logger.info({ scheduled: row.id, status: result.kind === 'status' ? result.status.id : null }, 'scheduled status published');
        } catch (error) {
          if (error instanceof StorageConflict && error.rule === 'scheduled') return; // published already
          if (error instanceof RookeryError) {
            // What was valid when scheduled no longer is (a reply target deleted …): dropped.
            host.logger.warn({ scheduled: row.id, error: error.message }, 'a scheduled status could not be published');
            await repo.delete(row.id);
            return;
          }
          throw error;
        }
      };
      const publishJob = host.handleJob('publish', async (payload) => {
        const { id, at } = payload as { id: Id; at: number };
        const row = await repo.get(id);
        // Gone (published, deleted) or moved (a later job publishes it).
        if (row === null || row.scheduledAt !== at || row.scheduledAt > host.clock.now()) return;
        await publishRow(row);
      });
      const jobFor = (row: ScheduledStatus) => [{ name: publishJob, payload: { id: row.id, at: row.scheduledAt }, runAt: row.scheduledAt }];
      host.addJob({
        name: 'scheduled:sweep',
        intervalMs: 60_000,
        async run() {
          // Rows a minute overdue whose job was lost (buried after failing): leased, then published.
          for (const row of await repo.claimDue(host.clock.now() - 60_000, 120_000, 20)) await publishRow(row);
        },
      });

      host.onPublish({
        params: ['scheduled_at'],
        async prepare(draft) {
          const at = readScheduledAt(host.clock, draft.params['scheduled_at']);
          if (at === undefined || at === null) return; // in the past: published at once
          host.statuses.validateText(host.statuses.readText(draft.params, false), draft.mediaIds.length > 0);
          await checkLimits(repo, draft.account.id, at, null);
          const row: ScheduledStatus = {
            id: host.newId(),
            accountId: draft.account.id,
            scheduledAt: at,
            params: storedParams(draft.params, draft.idempotencyKey, draft.applicationId),
            claimedUntil: null,
            createdAt: host.clock.now(),
          };
          await repo.create(row, () => jobFor(row));
          return { divert: await render(row) };
        },
      });

      const own = async (request: ApiRequest): Promise<ScheduledStatus> => {
        const id = request.params['id'] ?? '';
        const row = isId(id) ? await repo.get(id) : null;
        if (row === null || row.accountId !== request.caller.account?.id) throw new RookeryError(404, 'Record not found');
        return row;
      };
      const READ = ['read', 'read:statuses'];
      const WRITE = ['write', 'write:statuses'];
      const endpoints: Endpoint[] = [
        {
          method: 'GET',
          path: '/api/v1/scheduled_statuses',
          auth: 'user',
          scopes: READ,
          handle: async (request) => {
            const account = request.caller.account;
            if (account === null) throw new Error('the user guard lets no request through without an account');
            const paging = page({ ...request.query }, 20, 40);
            const rows = await repo.listBy(account.id, paging);
            const link = rows.length === 0 ? null : linkHeader(host.config, request.path, request.query, { next: rows.length === paging.limit ? (rows.at(-1)?.id ?? null) : null, prev: rows[0]?.id ?? null, prevParam: 'min_id' });
            return json(await Promise.all(rows.map(render)), 200, link ? { link } : undefined);
          },
        },
        { method: 'GET', path: '/api/v1/scheduled_statuses/:id', auth: 'user', scopes: READ, handle: async (request) => json(await render(await own(request))) },
        {
          method: 'PUT',
          path: '/api/v1/scheduled_statuses/:id',
          auth: 'user',
          scopes: WRITE,
          handle: async (request) => {
            const row = await own(request);
            const at = readScheduledAt(host.clock, { ...request.query, ...request.body }['scheduled_at']);
            if (at === undefined) return json(await render(row));
            if (at === null) throw unprocessable(scheduledTexts.tooSoon);
            await checkLimits(repo, row.accountId, at, row);
            const moved = await repo.update(row.id, at, (updated) => (updated === null ? [] : jobFor(updated)));
            if (moved === null) throw new RookeryError(404, 'Record not found');
            return json(await render(moved));
          },
        },
        {
          method: 'DELETE',
          path: '/api/v1/scheduled_statuses/:id',
          auth: 'user',
          scopes: WRITE,
          handle: async (request) => {
            const row = await own(request);
            await repo.delete(row.id);
            return json({});
          },
        },
      ];
      for (const endpoint of endpoints) host.addEndpoint(endpoint);
    },
  };
}
