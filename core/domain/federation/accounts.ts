// Remote accounts: stored and refreshed from what their server says about them, every value
// bounded and every piece of HTML kept to the allow-list before it is stored; removed with
// their statuses and follows when their server deletes them.

import { deleteAccount } from '../accounts/delete.ts';
import type { Core } from '../context.ts';
import { unprocessable } from '../errors.ts';
import type { Account, Millis, ProfileField } from '../model.ts';
import { StorageConflict } from '../ports/storage.ts';
import { boundText, sanitizeHtml } from '../text/sanitize.ts';
import { httpUrl } from '../remote/lookup.ts';

export interface RemoteAccountInput {
  /** The actor's ActivityPub id: what the account is keyed by. */
  uri: string;
  /** Its profile page. */
  url: string | null;
  username: string;
  domain: string;
  displayName: string;
  noteHtml: string;
  fields: { name: string; valueHtml: string }[];
  avatarUrl: string | null;
  headerUrl: string | null;
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  createdAt?: Millis | undefined;
  /** The actor's alsoKnownAs: the accounts it says it also is (a Move to it is checked there). */
  alsoKnownAs?: string[] | undefined;
}

export const REMOTE_ACCOUNT_LIMITS = {
  username: 255,
  domain: 253,
  displayName: 255,
  /** HTML read of a bio. */
  noteHtml: 20_000,
  fields: 16,
  fieldName: 255,
  fieldValueHtml: 2_048,
  alsoKnownAs: 20,
} as const;

const USERNAME = /^[^\s@/<>"'`]+$/;
const DOMAIN = /^[a-z0-9.-]+(?::[0-9]{1,5})?$/;

type RemoteProfile = Pick<Account, 'url' | 'displayName' | 'note' | 'fields' | 'avatarUrl' | 'headerUrl' | 'locked' | 'bot' | 'discoverable' | 'alsoKnownAs'>;

/** The stored form of what the remote server says, or a 422 when it cannot be an account. */
function readInput(core: Core, input: RemoteAccountInput): { uri: string; username: string; domain: string; profile: RemoteProfile } {
  const uri = httpUrl(input.uri);
  if (uri === null) throw unprocessable('Validation failed: Uri is invalid');
  const username = typeof input.username === 'string' ? input.username : '';
  if (username.length === 0 || username.length > REMOTE_ACCOUNT_LIMITS.username || !USERNAME.test(username)) throw unprocessable('Validation failed: Username is invalid');
  const domain = typeof input.domain === 'string' ? input.domain.toLowerCase() : '';
  if (domain.length === 0 || domain.length > REMOTE_ACCOUNT_LIMITS.domain || !DOMAIN.test(domain) || domain === core.config.domain.toLowerCase()) {
    throw unprocessable('Validation failed: Domain is invalid');
  }
  const fields: ProfileField[] = (Array.isArray(input.fields) ? input.fields : []).slice(0, REMOTE_ACCOUNT_LIMITS.fields).map((field) => ({
    name: boundText(String(field?.name ?? ''), REMOTE_ACCOUNT_LIMITS.fieldName),
    value: sanitizeHtml(String(field?.valueHtml ?? ''), REMOTE_ACCOUNT_LIMITS.fieldValueHtml),
    verifiedAt: null,
  }));
  return {
    uri,
    username,
    domain,
    profile: {
      url: httpUrl(input.url),
      displayName: boundText(typeof input.displayName === 'string' ? input.displayName : '', REMOTE_ACCOUNT_LIMITS.displayName),
      note: sanitizeHtml(typeof input.noteHtml === 'string' ? input.noteHtml : '', REMOTE_ACCOUNT_LIMITS.noteHtml),
      fields,
      avatarUrl: httpUrl(input.avatarUrl),
      headerUrl: httpUrl(input.headerUrl),
      locked: input.locked === true,
      bot: input.bot === true,
      discoverable: input.discoverable === true,
      alsoKnownAs: [...new Set((Array.isArray(input.alsoKnownAs) ? input.alsoKnownAs : []).slice(0, REMOTE_ACCOUNT_LIMITS.alsoKnownAs).flatMap((uri) => httpUrl(uri) ?? []))],
    },
  };
}

/** The part of `next` that differs from `current` (empty when nothing changed). */
function changes(current: Account, next: RemoteProfile): Partial<RemoteProfile> {
  const patch: Partial<RemoteProfile> = {};
  for (const key of Object.keys(next) as (keyof RemoteProfile)[]) {
    if (JSON.stringify(current[key]) !== JSON.stringify(next[key])) (patch as Record<string, unknown>)[key] = next[key];
  }
  return patch;
}

/** Creates the remote account `input.uri` names, or refreshes it; 'account.updated' is
 * recorded only when a refresh changed something. A 422 for input that cannot be an account
 * (no http(s) id, no username, our own domain) and for an acct another actor already holds. */
export async function upsertRemoteAccount(core: Core, input: RemoteAccountInput): Promise<Account> {
  const { uri, username, domain, profile } = readInput(core, input);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const existing = await core.storage.accounts.findByUri(uri);
    if (existing !== null) {
      const patch = changes(existing, profile);
      if (Object.keys(patch).length === 0) return existing;
      const updated = await core.storage.accounts.update(existing.id, patch, {
        outbox: (account) => (account === null ? [] : core.record({ type: 'account.updated', account })),
      });
      return updated ?? existing;
    }
    const now = core.clock.now();
    const createdAt = typeof input.createdAt === 'number' && Number.isFinite(input.createdAt) && input.createdAt > 0 && input.createdAt <= now ? input.createdAt : now;
    const account: Account = {
      id: core.ids.next(),
      username,
      domain,
      ...profile,
      uri,
      createdAt,
      statusesCount: 0,
      followersCount: 0,
      followingCount: 0,
      lastStatusAt: null,
      role: null,
      deletedAt: null,
      movedToAccountId: null,
    };
    try {
      await core.storage.accounts.create(account);
      return account;
    } catch (err) {
      if (!(err instanceof StorageConflict)) throw err;
      // Another delivery stored it meanwhile (same uri): refresh that one. Another actor with
      // this acct: refused.
      if (err.rule === 'username' && (await core.storage.accounts.findByUri(uri)) === null) {
        throw unprocessable('Validation failed: Username has already been taken');
      }
    }
  }
  throw unprocessable('Validation failed: Uri has already been taken');
}

/** An actor deleted on its server: deleted here too, as a local account is
 * (accounts/delete.ts): gone at once, its statuses, favourites and follows removed in the
 * background. The row stays, so that what still points at it resolves. false when no remote
 * account has this uri. */
export async function removeRemoteAccount(core: Core, uri: string): Promise<boolean> {
  const account = await core.storage.accounts.findByUri(uri);
  if (account === null || account.domain === null) return false;
  await deleteAccount(core, account, { kind: 'server' });
  return true;
}
