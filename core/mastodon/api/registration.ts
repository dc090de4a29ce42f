// Sign-up and the signed-in account's own credentials (POST /api/v1/accounts,
// Sign-up and the signed-in account's own credentials (POST /api/v1/accounts,
// GET /api/v1/accounts/verify_credentials, PATCH /api/v1/accounts/update_credentials);
// docs/behaviour.md, "OAuth".

import { createLocalAccount } from '../../domain/accounts/create.ts';
import { clearProfileImage, updateProfile } from '../../domain/accounts/profile.ts';
import type { AppCore } from '../context.ts';
import { forbidden } from '../../domain/errors.ts';
import { clientIp } from '../ip-access.ts';
import type { Id } from '../../domain/model.ts';
import { issueToken, renderToken } from '../oauth/tokens.ts';
import { bool, str } from '../../domain/params.ts';
import { renderCredentialAccount } from '../present/account.ts';
import { loadAccountDecorators } from '../present/load.ts';
import { json, type Endpoint } from '../endpoint/types.ts';

const COUNT_PAGE = 200;

/** Pending follow requests to the account, counted a page at a time. */
async function countFollowRequests(core: AppCore, accountId: Id): Promise<number> {
  let count = 0;
  let maxId: Id | undefined;
  for (;;) {
    const rows = await core.storage.relationships.followRequestsTo(accountId, { limit: COUNT_PAGE, maxId });
    count += rows.length;
    const last = rows.at(-1);
    if (rows.length < COUNT_PAGE || last === undefined) return count;
    maxId = last.id;
  }
}

/** Request bytes update_credentials may take: the files the profile hooks accept, plus room for
 * the text parameters (the front's default when no hook takes files); and each file's own
 * limit, from the hook that takes its parameter. */
function profilePayload(core: AppCore): Endpoint['payload'] {
  const hooks = core.hooks.profileHooks;
  const files = hooks.reduce((sum, hook) => sum + (hook.maxBytes ?? 0), 0);
  const fileLimit = (field: string, head: Uint8Array) => hooks.find((hook) => hook.params.includes(field))?.fileLimit?.(field, head) ?? null;
  return files === 0 ? { fileLimit } : { maxBytes: files + 1_048_576, fileLimit };
}

export function registrationEndpoints(core: AppCore): Endpoint[] {
  const payload = profilePayload(core);
  return [
    {
      // An app signs a person up with its client_credentials token and gets that person's
      // token back, with the app's registered scopes (as Mastodon does).
      method: 'POST',
      path: '/api/v1/accounts',
      auth: 'client',
      scopes: ['write', 'write:accounts'],
      openInLimitedMode: true,
      async handle(request) {
        const application = request.caller.application;
        if (application === null) throw new Error('the client guard lets no request through without an application');
        const { registrations } = core.config;
        if (!registrations.open) throw forbidden();
        const params = request.body;
        const locale = str(params, 'locale');
        const { account } = await createLocalAccount(
          core,
          {
            username: str(params, 'username') ?? '',
            email: str(params, 'email') ?? '',
            password: str(params, 'password') ?? '',
            agreement: bool(params, 'agreement') === true,
            ...(locale === undefined ? {} : { locale }),
            reason: str(params, 'reason') ?? '',
            reasonRequired: registrations.approvalRequired,
            confirmed: !registrations.confirmationRequired,
            approved: !registrations.approvalRequired,
            applicationId: application.id,
            signUpIp: clientIp(core.config, request.remoteAddress, request.headers['x-forwarded-for']),
          },
          true,
        );
        return json(renderToken(await issueToken(core, application.id, account.id, application.scopes)));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/accounts/verify_credentials',
      auth: 'user',
      scopes: ['profile', 'read', 'read:accounts'],
      async handle(request) {
        const { account, user } = request.caller;
        if (account === null || user === null) throw new Error('the user guard lets no request through without a local user');
        return json(renderCredentialAccount(core.config, account, user, await countFollowRequests(core, account.id), await loadAccountDecorators(core, [account])));
      },
    },
    {
      method: 'PATCH',
      path: '/api/v1/accounts/update_credentials',
      auth: 'user',
      scopes: ['write', 'write:accounts'],
      ...(payload === undefined ? {} : { payload }),
      async handle(request) {
        const { account, user } = request.caller;
        if (account === null || user === null) throw new Error('the user guard lets no request through without a local user');
        const updated = await updateProfile(core, account, user, { ...request.query, ...request.body });
        return json(renderCredentialAccount(core.config, updated.account, updated.user, await countFollowRequests(core, account.id), await loadAccountDecorators(core, [updated.account])));
      },
    },
    ...(['avatar', 'header'] as const).map(
      (image): Endpoint => ({
        // Mastodon 4.2: back to the default image; the CredentialAccount as it now is.
        method: 'DELETE',
        path: `/api/v1/profile/${image}`,
        auth: 'user',
        scopes: ['write', 'write:accounts'],
        async handle(request) {
          const { account, user } = request.caller;
          if (account === null || user === null) throw new Error('the user guard lets no request through without a local user');
          const updated = await clearProfileImage(core, account, user, image);
          return json(renderCredentialAccount(core.config, updated, user, await countFollowRequests(core, account.id)));
        },
      }),
    ),
  ];
}
