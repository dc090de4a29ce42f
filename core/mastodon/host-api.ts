// What a host app with its own sign-up needs from code: creating local accounts for its users
// and issuing them access tokens, with the same validations the API applies.

import { createLocalAccount } from '../domain/accounts/create.ts';
import { accountById, deleteAccount } from '../domain/accounts/delete.ts';
import type { AppCore } from './context.ts';
import { notFound, unprocessable } from '../domain/errors.ts';
import type { Account, Id } from '../domain/model.ts';
import { OOB_REDIRECT_URI, registerApplication } from './oauth/apps.ts';
import { isKnownScope } from './oauth/scopes.ts';
import { issueToken } from './oauth/tokens.ts';

export interface HostAccountInput {
  username: string;
  email: string;
  /** For Rookery's own sign-in pages. Leave it out when the host signs people in itself
   * (see the signIn option): the account then gets a random password nobody knows. */
  password?: string;
  displayName?: string;
  locale?: string;
  bot?: boolean;
  /** Whether the e-mail address is confirmed (default true: the host vouches for it). */
  confirmed?: boolean;
  /** Whether the sign-up is approved (default true). */
  approved?: boolean;
}

export interface HostAccounts {
  /** Creates a local account; a 422 RookeryError lists what is wrong (a taken username …). */
  create(input: HostAccountInput): Promise<Account>;
  /** Deletes a local account: gone at once (its tokens refused, its profile 404, its username
   * never given again), its statuses, media, follows and notifications removed in the
   * background, its deletion told to the servers that knew it. A 404 RookeryError when there
   * is no such local account (or it was deleted already). */
  delete(accountId: Id): Promise<void>;
}

export interface HostTokens {
  /** A new access token for a local account (default scopes: read write follow push). The
   * token belongs to an application named after the instance, registered once per Rookery. */
  issue(accountId: Id, scopes?: readonly string[]): Promise<string>;
}

const DEFAULT_SCOPES = ['read', 'write', 'follow', 'push'];

export function hostAccounts(core: AppCore): HostAccounts {
  return {
    async create(input) {
      const { password, ...rest } = input;
      const created = await createLocalAccount(core, { ...rest, password: password ?? core.secrets.randomToken(32) });
      return created.account;
    },
    async delete(accountId) {
      const account = await accountById(core, String(accountId));
      if (account.domain !== null || account.deletedAt !== null) throw notFound();
      await deleteAccount(core, account, { kind: 'app' });
    },
  };
}

export function hostTokens(core: AppCore): HostTokens {
  let application: Promise<Id> | null = null;
  const applicationId = () =>
    (application ??= registerApplication(core, { name: core.config.title, redirectUris: OOB_REDIRECT_URI, scopes: DEFAULT_SCOPES }).then(
      (registered) => registered.application.id,
      (err: unknown) => {
        application = null;
        throw err;
      },
    ));
  return {
    async issue(accountId, scopes = DEFAULT_SCOPES) {
      const unknown = scopes.find((scope) => !isKnownScope(scope));
      if (unknown !== undefined) throw unprocessable(`Unknown scope: ${unknown}`);
      if (scopes.length === 0) throw unprocessable('A token needs at least one scope');
      if ((await core.storage.accounts.getUser(accountId)) === null) throw notFound();
      const issued = await issueToken(core, await applicationId(), accountId, [...new Set(scopes)]);
      return issued.accessToken;
    },
  };
}
