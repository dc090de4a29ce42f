// Mastodon 4.4's admin domain blocks API (/api/v1/admin/domain_blocks), over the one store of
// domain blocks this plugin keeps: a block the operator's CLI makes shows here (a suspension),
// and a suspension made here stops federation as the CLI's does. Silence and noop, reject_media,
// reject_reports and obfuscate are kept and shown; federation does not act on them yet.
// The API needs manage_federation; every change is recorded in the audit log.

import { bool, forbidden, json, linkHeader, notFound, page, RookeryError, str, type Account, type ApiRequest, type Endpoint, type PluginHost } from 'rookery/plugin-kit';
import { canonicalDomain, coveringDomains, MAX_REASON_LENGTH } from './domain-blocks.ts';
import type { DomainBlock, DomainBlockSettings, DomainBlockWithSettings, FederationRepository } from './storage/index.ts';

const LIMIT = 100;
const SEVERITIES = ['silence', 'suspend', 'noop'] as const;
const READ = ['admin:read', 'admin:read:domain_blocks'];
const WRITE = ['admin:write', 'admin:write:domain_blocks'];
const PATH = '/api/v1/admin/domain_blocks';

const invalid = (message: string) => new RookeryError(422, `Validation failed: ${message}`);

/** A block's id: its creation time with 16 bits of its domain's hash below, as Mastodon's ids are
 * time-ordered; the same for a block whoever made it, and nothing more to store. */
export function blockId(block: DomainBlock): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < block.domain.length; i += 1) hash = Math.imul(hash ^ block.domain.charCodeAt(i), 0x01000193) >>> 0;
  return String((BigInt(Math.max(0, Math.trunc(block.createdAt))) << 16n) | BigInt(hash & 0xffff));
}

function render(block: DomainBlockWithSettings) {
  return {
    id: blockId(block),
    domain: block.domain,
    created_at: new Date(block.createdAt).toISOString(),
    severity: block.settings.severity,
    reject_media: block.settings.rejectMedia,
    reject_reports: block.settings.rejectReports,
    private_comment: block.reason,
    public_comment: block.settings.publicComment,
    obfuscate: block.settings.obfuscate,
  };
}

const byIdDesc = (a: DomainBlockWithSettings, b: DomainBlockWithSettings) => {
  const x = BigInt(blockId(a));
  const y = BigInt(blockId(b));
  return x < y ? 1 : x > y ? -1 : 0;
};

interface Change {
  settings: Partial<DomainBlockSettings>;
  reason?: string | null;
}

/** The parameters Mastodon permits, checked; absent ones left out. */
function changeOf(request: ApiRequest): Change {
  const params = { ...request.query, ...request.body };
  const settings: Partial<DomainBlockSettings> = {};
  const severity = str(params, 'severity');
  if (severity !== undefined && severity !== '') {
    if (!(SEVERITIES as readonly string[]).includes(severity)) throw invalid('Severity is not included in the list');
    settings.severity = severity as DomainBlockSettings['severity'];
  }
  for (const [param, field] of [['reject_media', 'rejectMedia'], ['reject_reports', 'rejectReports'], ['obfuscate', 'obfuscate']] as const) {
    const value = bool(params, param);
    if (value !== undefined) settings[field] = value;
  }
  const change: Change = { settings };
  const comment = (param: string, label: string): string | null | undefined => {
    const value = str(params, param);
    if (value === undefined) return undefined;
    if ([...value].length > MAX_REASON_LENGTH) throw invalid(`${label} is too long (maximum is ${MAX_REASON_LENGTH} characters)`);
    return value === '' ? null : value;
  };
  const publicComment = comment('public_comment', 'Public comment');
  const privateComment = comment('private_comment', 'Private comment');
  if (publicComment !== undefined) settings.publicComment = publicComment;
  if (privateComment !== undefined) change.reason = privateComment;
  return change;
}

export function adminDomainBlockEndpoints(host: PluginHost, repository: FederationRepository): Endpoint[] {
  const admin = (request: ApiRequest): Account => {
    const caller = request.caller.account;
    if (caller === null || !host.moderation.can(caller, 'manage_federation')) throw forbidden();
    return caller;
  };
  const find = async (id: string): Promise<DomainBlockWithSettings> => {
    const found = (await repository.listBlocksWithSettings()).find((b) => blockId(b) === id);
    if (found === undefined) throw notFound();
    return found;
  };
  const idOf = (request: ApiRequest) => request.params['id'] ?? '';
  return [
    {
      method: 'GET',
      path: PATH,
      auth: 'optional',
      scopes: READ,
      handle: async (request) => {
        admin(request);
        const wanted = page(request.query, LIMIT, LIMIT * 2);
        const ids = (b: DomainBlockWithSettings) => BigInt(blockId(b));
        const bound = (v: string | undefined) => (v !== undefined && /^\d{1,20}$/.test(v) ? BigInt(v) : null);
        const [max, since, min] = [bound(wanted.maxId), bound(wanted.sinceId), bound(wanted.minId)];
        let all = (await repository.listBlocksWithSettings()).sort(byIdDesc);
        if (max !== null) all = all.filter((b) => ids(b) < max);
        if (since !== null) all = all.filter((b) => ids(b) > since);
        // min_id: the page right above it.
        const blocks = min !== null ? all.filter((b) => ids(b) > min).slice(-wanted.limit) : all.slice(0, wanted.limit);
        const first = blocks[0];
        const last = blocks.at(-1);
        const link = linkHeader(host.config, request.path, request.query, {
          next: last !== undefined && blocks.length === wanted.limit ? blockId(last) : null,
          prev: first === undefined ? null : blockId(first),
        });
        return json(blocks.map(render), 200, link === undefined ? undefined : { link });
      },
    },
    {
      method: 'GET',
      path: `${PATH}/:id`,
      auth: 'optional',
      scopes: READ,
      handle: async (request) => {
        admin(request);
        return json(render(await find(idOf(request))));
      },
    },
    {
      method: 'POST',
      path: PATH,
      auth: 'optional',
      scopes: WRITE,
      handle: async (request) => {
        const by = admin(request);
        const given = str({ ...request.query, ...request.body }, 'domain');
        if (given === undefined || given.trim() === '') throw invalid("Domain can't be blank");
        const domain = canonicalDomain(given);
        if (domain === null) throw invalid('Domain is invalid');
        const change = changeOf(request);
        // A block of the domain or a parent of it is already there: Mastodon answers it.
        const covering = new Set(coveringDomains(domain));
        const existing = (await repository.listBlocksWithSettings()).find((b) => covering.has(b.domain));
        if (existing !== undefined) {
          return json({ error: `You have already imposed stricter limits on ${existing.domain}.`, existing_domain_block: render(existing) }, 422);
        }
        const settings: DomainBlockSettings = { severity: 'silence', rejectMedia: false, rejectReports: false, publicComment: null, obfuscate: false, ...change.settings };
        const block = await repository.blockWithSettings(domain, settings, { reason: change.reason ?? null, now: host.clock.now() });
        await host.moderation.record(by, 'create', 'DomainBlock', blockId(block));
        return json(render(block));
      },
    },
    {
      method: 'PUT',
      path: `${PATH}/:id`,
      auth: 'optional',
      scopes: WRITE,
      handle: async (request) => {
        const by = admin(request);
        const current = await find(idOf(request));
        const change = changeOf(request);
        const block = await repository.blockWithSettings(current.domain, { ...current.settings, ...change.settings }, { reason: change.reason === undefined ? current.reason : change.reason, now: current.createdAt });
        await host.moderation.record(by, 'update', 'DomainBlock', blockId(block));
        return json(render(block));
      },
    },
    {
      method: 'DELETE',
      path: `${PATH}/:id`,
      auth: 'optional',
      scopes: WRITE,
      handle: async (request) => {
        const by = admin(request);
        const current = await find(idOf(request));
        if (await repository.unblock(current.domain)) await host.moderation.record(by, 'destroy', 'DomainBlock', blockId(current));
        return json({});
      },
    },
  ];
}
