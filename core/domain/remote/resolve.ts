// Asking the installed resolver (the federation plugin) about something on another server,
// with a bound on how long a request waits for it. A resolver that fails, or is too slow,
// answers nothing: the request goes on without it.

import type { Core } from '../context.ts';
import type { Account, Status } from '../model.ts';
import { httpUrl } from './lookup.ts';

/** How long one resolution may take before it counts as not found. */
export const RESOLVE_TIMEOUT_MS = 5_000;

async function bounded<T>(core: Core, what: string, work: () => Promise<T | null>, timeoutMs: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), timeoutMs);
  });
  try {
    return await Promise.race([work(), late]);
  } catch (err) {
    core.logger.warn({ err, what }, 'remote resolution failed');
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/** `user@domain` (a leading @ allowed) on another server, fetched and stored by the resolver;
 * null when none is installed, the handle is local or malformed, or nothing answers in time. */
export async function resolveAccount(core: Core, acct: string, timeoutMs: number = RESOLVE_TIMEOUT_MS): Promise<Account | null> {
  const resolver = core.hooks.resolver;
  if (resolver === null || acct.length > 512) return null;
  const m = /^@?([^@\s]+)@([^@\s]+)$/.exec(acct.trim());
  if (m === null) return null;
  const domain = (m[2] as string).toLowerCase();
  if (domain === core.config.domain.toLowerCase()) return null;
  const handle = `${m[1] as string}@${domain}`;
  return bounded(core, handle, () => resolver.account(handle), timeoutMs);
}

/** An http(s) URL of a remote account or status, fetched and stored by the resolver. */
export async function resolveUrl(core: Core, url: string, timeoutMs: number = RESOLVE_TIMEOUT_MS): Promise<{ account: Account } | { status: Status } | null> {
  const resolver = core.hooks.resolver;
  if (resolver === null || httpUrl(url) === null) return null;
  return bounded(core, url, () => resolver.url(url), timeoutMs);
}
