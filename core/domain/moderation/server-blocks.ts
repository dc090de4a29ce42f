// What every kind of server block shares (the admin API's e-mail domain, canonical e-mail, IP
// blocks and domain allows): who may manage them, the audit entry, finding and deleting one.

import type { Core } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import { isId } from '../ids.ts';
import type { Account, AdminAction, AdminTargetType, ServerBlock, ServerBlockKind } from '../model.ts';
import { can, type Permission } from './roles.ts';

/** The caller, when its role has the permission (manage_blocks by default); Mastodon's 403
 * otherwise. */
export function blockManager(caller: Account | null, permission: Permission = 'manage_blocks'): Account {
  if (caller === null || !can(caller.role, permission)) throw forbidden();
  return caller;
}

export function adminAction(core: Core, by: Account, action: string, targetType: AdminTargetType, targetId: string): AdminAction {
  return { id: core.ids.next(), accountId: by.id, action, targetType, targetId, createdAt: core.clock.now() };
}

export function newBlock(core: Core, kind: ServerBlockKind, key: string, extra: Partial<ServerBlock> = {}): ServerBlock {
  const now = core.clock.now();
  return { id: core.ids.next(), kind, key, severity: null, comment: '', expiresAt: null, createdAt: now, updatedAt: now, ...extra };
}

export async function getServerBlock(core: Core, kind: ServerBlockKind, id: string): Promise<ServerBlock> {
  const block = isId(id) ? await core.storage.serverBlocks.get(kind, id) : null;
  if (block === null) throw notFound();
  return block;
}

/** Deletes it and records 'destroy'; 404 when there is none. */
export async function deleteServerBlock(core: Core, by: Account, kind: ServerBlockKind, targetType: AdminTargetType, id: string): Promise<void> {
  const deleted = isId(id) ? await core.storage.serverBlocks.delete(kind, id, adminAction(core, by, 'destroy', targetType, id)) : null;
  if (deleted === null) throw notFound();
}

