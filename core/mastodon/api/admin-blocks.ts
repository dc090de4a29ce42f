// The admin API for the server's blocks and allows (Mastodon 4.4's /api/v1/admin/email_domain_blocks,
// canonical_email_blocks, ip_blocks and domain_allows). Like the reports API they take an optional token
// (authorize_if_got_token!): without a user whose role may manage blocks they answer 403.

import type { AppCore } from '../context.ts';
import { badRequest } from '../../domain/errors.ts';
import type { AdminTargetType, ServerBlock, ServerBlockKind } from '../../domain/model.ts';
import { createCanonicalEmailBlock, createDomainAllow, createEmailDomainBlock, matchingCanonicalBlocks } from '../../domain/moderation/email-blocks.ts';
import { blockManager, deleteServerBlock, getServerBlock } from '../../domain/moderation/server-blocks.ts';
import type { Permission } from '../../domain/moderation/roles.ts';
import { createIpBlock, forget, updateIpBlock, type IpBlockInput } from '../../domain/moderation/ip-blocks.ts';
import { page, str } from '../../domain/params.ts';
import { iso } from '../entities/time.ts';
import { pagedJson } from './paging.ts';
import { paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const LIMIT = 100;
const DAY = 86_400_000;
const idOf = (request: ApiRequest): string => request.params['id'] ?? '';

/** Mastodon's per-day sign-up attempts; we count none, so seven days of zeros (newest first). */
function history(now: number) {
  const today = Math.floor(now / DAY) * DAY;
  return Array.from({ length: 7 }, (_, i) => ({ day: String((today - i * DAY) / 1000), accounts: '0', uses: '0' }));
}

interface Resource {
  path: string;
  kind: ServerBlockKind;
  targetType: AdminTargetType;
  scope: string;
  render: (block: ServerBlock) => unknown;
  /** The role permission it needs (manage_blocks when not said). */
  permission?: Permission;
  /** After a delete (the IP blocks' cache). */
  deleted?: () => void;
}

/** List (Link paging), show and delete, the same for every kind. */
function readAndDelete(core: AppCore, r: Resource): Endpoint[] {
  const read = ['admin:read', `admin:read:${r.scope}`];
  const write = ['admin:write', `admin:write:${r.scope}`];
  return [
    {
      method: 'GET',
      path: r.path,
      auth: 'optional',
      scopes: read,
      handle: async (request) => {
        blockManager(request.caller.account, r.permission);
        const wanted = page(request.query, LIMIT, LIMIT * 2);
        const blocks = await core.storage.serverBlocks.list(r.kind, wanted);
        const next = blocks.length > 0 && blocks.length === wanted.limit ? (blocks.at(-1)?.id ?? null) : null;
        const prev = blocks[0]?.id ?? null;
        return pagedJson(core, request, blocks.map(r.render), { next, prev });
      },
    },
    {
      method: 'GET',
      path: `${r.path}/:id`,
      auth: 'optional',
      scopes: read,
      handle: async (request) => {
        blockManager(request.caller.account, r.permission);
        return json(r.render(await getServerBlock(core, r.kind, idOf(request))));
      },
    },
    {
      method: 'DELETE',
      path: `${r.path}/:id`,
      auth: 'optional',
      scopes: write,
      handle: async (request) => {
        await deleteServerBlock(core, blockManager(request.caller.account, r.permission), r.kind, r.targetType, idOf(request));
        r.deleted?.();
        return json({});
      },
    },
  ];
}

export function adminBlockEndpoints(core: AppCore): Endpoint[] {
  const emailDomain: Resource = {
    path: '/api/v1/admin/email_domain_blocks',
    kind: 'email_domain',
    targetType: 'EmailDomainBlock',
    scope: 'email_domain_blocks',
    render: (b) => ({ id: b.id, domain: b.key, created_at: iso(b.createdAt), history: history(core.clock.now()) }),
  };
  const canonical: Resource = {
    path: '/api/v1/admin/canonical_email_blocks',
    kind: 'canonical_email',
    targetType: 'CanonicalEmailBlock',
    scope: 'canonical_email_blocks',
    render: (b) => ({ id: b.id, canonical_email_hash: b.key }),
  };
  const ip: Resource = {
    path: '/api/v1/admin/ip_blocks',
    kind: 'ip',
    targetType: 'IpBlock',
    scope: 'ip_blocks',
    render: (b) => ({ id: b.id, ip: b.key, severity: b.severity, comment: b.comment, created_at: iso(b.createdAt), expires_at: b.expiresAt === null ? null : iso(b.expiresAt) }),
    deleted: () => forget(core),
  };
  const ipInput = (request: ApiRequest): IpBlockInput => {
    const params = paramsOf(request);
    // expires_in may come as a JSON number.
    const raw = params['expires_in'];
    const expiresIn = typeof raw === 'number' && Number.isFinite(raw) ? String(Math.trunc(raw)) : str(params, 'expires_in');
    return { ip: str(params, 'ip'), severity: str(params, 'severity'), comment: str(params, 'comment'), expiresIn };
  };
  const allow: Resource = {
    path: '/api/v1/admin/domain_allows',
    kind: 'domain_allow',
    targetType: 'DomainAllow',
    scope: 'domain_allows',
    permission: 'manage_federation',
    render: (b) => ({ id: b.id, domain: b.key, created_at: iso(b.createdAt) }),
  };
  return [
    ...readAndDelete(core, allow),
    {
      method: 'POST',
      path: allow.path,
      auth: 'optional',
      scopes: ['admin:write', 'admin:write:domain_allows'],
      handle: async (request) => {
        const by = blockManager(request.caller.account, 'manage_federation');
        return json(allow.render(await createDomainAllow(core, by, str(paramsOf(request), 'domain'))));
      },
    },
    ...readAndDelete(core, ip),
    {
      method: 'POST',
      path: ip.path,
      auth: 'optional',
      scopes: ['admin:write', 'admin:write:ip_blocks'],
      handle: async (request) => {
        const by = blockManager(request.caller.account);
        return json(ip.render(await createIpBlock(core, by, ipInput(request))));
      },
    },
    {
      method: 'PUT',
      path: `${ip.path}/:id`,
      auth: 'optional',
      scopes: ['admin:write', 'admin:write:ip_blocks'],
      handle: async (request) => {
        const by = blockManager(request.caller.account);
        return json(ip.render(await updateIpBlock(core, by, idOf(request), ipInput(request))));
      },
    },
    ...readAndDelete(core, emailDomain),
    {
      method: 'POST',
      path: emailDomain.path,
      auth: 'optional',
      scopes: ['admin:write', 'admin:write:email_domain_blocks'],
      handle: async (request) => {
        const by = blockManager(request.caller.account);
        return json(emailDomain.render(await createEmailDomainBlock(core, by, str(paramsOf(request), 'domain'))));
      },
    },
    {
      method: 'POST',
      path: `${canonical.path}/test`,
      auth: 'optional',
      scopes: ['admin:read', 'admin:read:canonical_email_blocks'],
      handle: async (request) => {
        blockManager(request.caller.account);
        const email = str(paramsOf(request), 'email');
        if (email === undefined || email === '') throw badRequest('param is missing or the value is empty or invalid: email');
        return json((await matchingCanonicalBlocks(core, email)).map(canonical.render));
      },
    },
    ...readAndDelete(core, canonical),
    {
      method: 'POST',
      path: canonical.path,
      auth: 'optional',
      scopes: ['admin:write', 'admin:write:canonical_email_blocks'],
      handle: async (request) => {
        const by = blockManager(request.caller.account);
        const params = paramsOf(request);
        return json(canonical.render(await createCanonicalEmailBlock(core, by, { email: str(params, 'email'), hash: str(params, 'canonical_email_hash') })));
      },
    },
  ];
}
