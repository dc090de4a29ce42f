// Finding what an ActivityPub id names: a remote account or status by the id it was stored
// under, or one of ours by the id our URLs give it (core/urls.ts), which is never stored.

import type { Core } from '../context.ts';
import { isId } from '../ids.ts';
import type { Account, Status } from '../model.ts';
import { accountUri, statusUri, statusUrl } from '../urls.ts';

/** Longest ActivityPub id or URL accepted from another server. */
export const MAX_URI = 2048;

/** `value` when it is an http(s) URL of reasonable length, else null. */
export function httpUrl(value: string | null | undefined): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URI) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : null;
  } catch {
    return null;
  }
}

/** The path of one of our URLs after the base, or null when it is not ours. */
function localPath(core: Core, uri: string): string | null {
  const base = core.config.baseUrl;
  return uri.startsWith(`${base}/`) ? uri.slice(base.length) : null;
}

/** The account an ActivityPub id (or profile URL) names, local or remote. */
export async function findAccountByUri(core: Core, uri: string): Promise<Account | null> {
  if (httpUrl(uri) === null) return null;
  const path = localPath(core, uri);
  if (path !== null) {
    const m = /^\/(?:users\/|@)([A-Za-z0-9_]{1,64})$/.exec(path);
    if (m === null) return null;
    const account = await core.storage.accounts.findByUsername(m[1] as string, null);
    return account !== null && account.deletedAt === null && (accountUri(core.config, account) === uri || `${core.config.baseUrl}/@${account.username}` === uri) ? account : null;
  }
  // A deleted account is found by nobody.
  const account = await core.storage.accounts.findByUri(uri);
  return account !== null && account.deletedAt === null ? account : null;
}

/** The live status an ActivityPub id (or its URL) names, local or remote. */
export async function findStatusByUri(core: Core, uri: string): Promise<Status | null> {
  if (httpUrl(uri) === null) return null;
  const path = localPath(core, uri);
  if (path === null) return core.storage.statuses.findByUri(uri);
  const m = /^\/(?:users\/[A-Za-z0-9_]{1,64}\/statuses\/|@[A-Za-z0-9_]{1,64}\/)([0-9]{1,20})(?:\/activity)?$/.exec(path);
  if (m === null || !isId(m[1] as string)) return null;
  const status = await core.storage.statuses.get(m[1] as string);
  if (status === null || !status.local) return null;
  const author = await core.storage.accounts.get(status.accountId);
  if (author === null) return null;
  return statusUri(core.config, status, author) === uri || statusUrl(core.config, status, author) === uri ? status : null;
}
