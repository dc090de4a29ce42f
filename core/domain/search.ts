// Search (GET /api/v2/search) without a full-text index: accounts by exact handle or profile
// URL, a hashtag by its exact name when some public status carries it, and statuses by their
// local URL. The storage port offers no prefix search, so nothing is matched partially.

import { findAccountOrNull, parseAcct } from './accounts/find.ts';
import type { Core } from './context.ts';
import { RookeryError } from './errors.ts';
import { findAccountByUri, findStatusByUri, httpUrl } from './remote/lookup.ts';
import { resolveAccount, resolveUrl } from './remote/resolve.ts';
import type { Account, Status } from './model.ts';
import { normalizeTag } from './text/index.ts';
import { isSuspended } from './policy.ts';
import { findVisible } from './viewer.ts';

export type SearchType = 'accounts' | 'hashtags' | 'statuses';

export interface SearchResults {
  accounts: Account[];
  statuses: Status[];
  hashtags: string[];
}

/** `https://<our domain>/@user/123`, `…/users/user/statuses/123`, `…/@user`, `…/users/user`. */
function localPath(core: Core, q: string): { username: string; statusId: string | null } | null {
  const base = core.config.baseUrl;
  if (!q.startsWith(`${base}/`)) return null;
  const path = q.slice(base.length).replace(/[?#].*$/, '').replace(/\/+$/, '');
  const match = /^\/@([A-Za-z0-9_]+)(?:\/(\d+))?$/.exec(path) ?? /^\/users\/([A-Za-z0-9_]+)(?:\/statuses\/(\d+))?$/.exec(path);
  if (match === null || match[1] === undefined) return null;
  return { username: match[1], statusId: match[2] ?? null };
}

/** A status the viewer may see, or null. */
async function visibleOrNull(core: Core, viewer: Account | null, id: string): Promise<Status | null> {
  try {
    return (await findVisible(core, viewer, id)).status;
  } catch (err) {
    if (err instanceof RookeryError && err.status === 404) return null;
    throw err;
  }
}

async function accountByHandle(core: Core, q: string): Promise<Account | null> {
  const local = localPath(core, q);
  const parsed = local === null ? parseAcct(core, q) : local.statusId === null ? { username: local.username, domain: null } : null;
  if (parsed === null || !/^[A-Za-z0-9_]+$/.test(parsed.username)) return null;
  const account = await core.storage.accounts.findByUsername(parsed.username, parsed.domain);
  return account === null ? null : findAccountOrNull(core, account.id);
}

async function hashtag(core: Core, q: string): Promise<string | null> {
  const name = normalizeTag(q.replace(/^#/, ''));
  if (name === '') return null;
  const used = await core.storage.statuses.query({ visibilities: ['public', 'unlisted'], tag: name }, { limit: 1 });
  return used.length > 0 ? name : null;
}

async function statusByUrl(core: Core, viewer: Account | null, q: string): Promise<Status | null> {
  const local = localPath(core, q);
  if (local === null || local.statusId === null) return null;
  return visibleOrNull(core, viewer, local.statusId);
}

export interface SearchOptions {
  type?: SearchType | undefined;
  /** Only accounts the viewer follows. */
  following?: boolean | undefined;
  /** Ask other servers (through the installed resolver) about a handle or URL not known here. */
  resolve?: boolean | undefined;
  limit: number;
  offset: number;
}

export async function search(core: Core, viewer: Account | null, query: string, options: SearchOptions): Promise<SearchResults> {
  const q = query.trim();
  const results: SearchResults = { accounts: [], statuses: [], hashtags: [] };
  // Every match is exact, so there is at most one per type: later pages are empty.
  if (q === '' || options.limit <= 0 || options.offset > 0) return results;
  const wants = (type: SearchType) => options.type === undefined || options.type === type;
  const remote = await remoteMatch(core, q, options.resolve === true && viewer !== null);
  if (wants('accounts')) {
    const account = (await accountByHandle(core, q)) ?? remote.account;
    // A suspended account is not found by anyone (Mastodon's searchable accounts).
    if (account !== null && !isSuspended(account) && (await passesFollowing(core, viewer, account, options.following))) results.accounts.push(account);
  }
  if (wants('hashtags') && !q.includes('/')) {
    const name = await hashtag(core, q);
    if (name !== null) results.hashtags.push(name);
  }
  if (wants('statuses')) {
    const status = (await statusByUrl(core, viewer, q)) ?? (remote.status === null ? null : await visibleOrNull(core, viewer, remote.status.id));
    if (status !== null) results.statuses.push(status);
  }
  return results;
}

/** A remote account or status the query names: `user@domain` or a URL of another server,
 * stored already, or (with `resolve`) fetched by the resolver. */
async function remoteMatch(core: Core, q: string, resolve: boolean): Promise<{ account: Account | null; status: Status | null }> {
  const none = { account: null, status: null };
  if (httpUrl(q) !== null) {
    if (q.startsWith(`${core.config.baseUrl}/`)) return none;
    const account = await findAccountByUri(core, q);
    if (account !== null) return { account, status: null };
    const status = await findStatusByUri(core, q);
    if (status !== null) return { account: null, status };
    if (!resolve) return none;
    const found = await resolveUrl(core, q);
    if (found === null) return none;
    if ('account' in found) return found.account.deletedAt === null ? { account: found.account, status: null } : none;
    return { account: null, status: found.status };
  }
  if (!resolve || !/^@?[^@\s/]+@[^@\s/]+$/.test(q)) return none;
  const parsed = parseAcct(core, q);
  if (parsed === null || parsed.domain === null) return none;
  if ((await core.storage.accounts.findByUsername(parsed.username, parsed.domain)) !== null) return none;
  const resolved = await resolveAccount(core, q);
  return { account: resolved !== null && resolved.deletedAt === null ? resolved : null, status: null };
}

async function passesFollowing(core: Core, viewer: Account | null, account: Account, following: boolean | undefined): Promise<boolean> {
  if (!following) return true;
  if (viewer === null) return false;
  const [facts] = await core.storage.relationships.relationships(viewer.id, [account.id]);
  return (facts?.following ?? null) !== null;
}
