// OAuth endpoints (apps, authorize, token, revoke, server metadata). All but
// apps/verify_credentials are 'public' for the bearer guard: they authenticate clients and
// people themselves (client credentials, the sign-in session). The rules live in core/oauth.

import { DELETE_ACCOUNT_PATH, showDeleteAccount, submitDeleteAccount } from '../oauth/delete-page.ts';
import { ALIASES_PATH, MIGRATION_PATH, showAliases, showMigration, submitAliases, submitMigration } from '../oauth/move-pages.ts';
import { PASSWORD_NEW_PATH, PASSWORD_PATH, showPasswordEdit, showPasswordNew, submitPassword } from '../oauth/password-pages.ts';
import type { CounterStore } from '../../domain/ports/counters.ts';
import { createMemoryCounters } from '../../domain/counters.ts';
import { showConfirmation } from '../oauth/confirmation-page.ts';
import type { AppCore } from '../context.ts';
import { registerApplication, renderApplication, renderCredentialApplication } from '../oauth/apps.ts';
import { serverMetadata } from '../oauth/metadata.ts';
import { revokeEndpoint } from '../oauth/revoke.ts';
import { tokenEndpoint } from '../oauth/token-endpoint.ts';
import type { SignInPort } from '../oauth/sign-in-port.ts';
import { showAuthorize, showNativeCode, showSignIn, submitDecision, submitSignIn } from '../oauth/web-flow.ts';
import { str, strArray, type Params } from '../../domain/params.ts';
import { json, type Endpoint } from '../endpoint/types.ts';

/** A parameter that may be a string or a list (redirect_uris, scopes). */
function stringOrList(params: Params, name: string): string | string[] | undefined {
  const value = params[name];
  return Array.isArray(value) || (value !== null && typeof value === 'object') ? strArray(params, name) : str(params, name);
}

/** The Web Push public key a push plugin states (configuration.vapid), '' without one. */
function vapidKeyOf(core: AppCore): string {
  const vapid = core.hooks.instanceConfiguration['vapid'] as { public_key?: unknown } | undefined;
  return typeof vapid?.public_key === 'string' ? vapid.public_key : '';
}

/** With a host sign-in port, /auth/sign_in is the host's and the flow asks the port instead. */
/** `counters`: where a password-reset link is spent (shared by the processes that share them). */
export function oauthEndpoints(core: AppCore, signIn?: SignInPort, counters: CounterStore = createMemoryCounters()): Endpoint[] {
  const open = { auth: 'public', scopes: [], openInLimitedMode: true } as const;
  // The sign-in and consent pages (and the forms they post) are same-origin only.
  const page = { ...open, cors: false } as const;
  // The authorize pages answer in HTML; what is refused before them (a body that cannot be
  // read, an encoding, a limit) is JSON, in RFC 6749's shape as on the token endpoint.
  const authorizePage = { ...page, oauthErrors: true } as const;
  return [
    {
      method: 'POST',
      path: '/api/v1/apps',
      ...open,
      async handle(request) {
        const params = request.body;
        const scopes = stringOrList(params, 'scopes');
        const registered = await registerApplication(core, {
          name: str(params, 'client_name') ?? '',
          redirectUris: stringOrList(params, 'redirect_uris') ?? '',
          ...(scopes === undefined || scopes === '' ? {} : { scopes }),
          website: str(params, 'website') ?? null,
        });
        return json(renderCredentialApplication(registered, vapidKeyOf(core)));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/apps/verify_credentials',
      auth: 'app',
      scopes: [],
      openInLimitedMode: true,
      async handle(request) {
        const application = request.caller.application;
        if (application === null) throw new Error('the app guard lets no request through without an application');
        return json(renderApplication(application, vapidKeyOf(core)));
      },
    },
    { method: 'GET', path: '/oauth/authorize', ...authorizePage, handle: (request) => showAuthorize(core, request, signIn) },
    { method: 'POST', path: '/oauth/authorize', ...authorizePage, handle: (request) => submitDecision(core, request, signIn) },
    { method: 'DELETE', path: '/oauth/authorize', ...authorizePage, handle: (request) => submitDecision(core, request, signIn) },
    { method: 'GET', path: '/oauth/authorize/native', ...authorizePage, handle: (request) => showNativeCode(core, request) },
    ...(signIn
      ? []
      : ([
          { method: 'GET', path: '/auth/sign_in', ...page, handle: (request) => showSignIn(core, request) },
          { method: 'POST', path: '/auth/sign_in', ...page, handle: (request) => submitSignIn(core, request) },
          { method: 'GET', path: PASSWORD_NEW_PATH, ...page, handle: (request) => showPasswordNew(core, request) },
          { method: 'GET', path: '/auth/password/edit', ...page, handle: (request) => showPasswordEdit(core, request) },
          { method: 'POST', path: PASSWORD_PATH, ...page, handle: (request) => submitPassword(core, request, counters) },
          { method: 'GET', path: DELETE_ACCOUNT_PATH, ...page, handle: (request) => showDeleteAccount(core, request) },
          { method: 'POST', path: DELETE_ACCOUNT_PATH, ...page, handle: (request) => submitDeleteAccount(core, request) },
          { method: 'DELETE', path: DELETE_ACCOUNT_PATH, ...page, handle: (request) => submitDeleteAccount(core, request) },
          { method: 'GET', path: ALIASES_PATH, ...page, handle: (request) => showAliases(core, request) },
          { method: 'POST', path: ALIASES_PATH, ...page, handle: (request) => submitAliases(core, request) },
          { method: 'GET', path: MIGRATION_PATH, ...page, handle: (request) => showMigration(core, request) },
          { method: 'POST', path: MIGRATION_PATH, ...page, handle: (request) => submitMigration(core, request) },
        ] satisfies Endpoint[])),
    { method: 'GET', path: '/auth/confirmation', ...page, handle: (request) => showConfirmation(core, request) },
    { method: 'POST', path: '/oauth/token', ...open, oauthErrors: true, handle: (request) => tokenEndpoint(core, request) },
    { method: 'POST', path: '/oauth/revoke', ...open, oauthErrors: true, handle: (request) => revokeEndpoint(core, request) },
    {
      method: 'GET',
      path: '/.well-known/oauth-authorization-server',
      ...open,
      handle: async () => json(serverMetadata(core)),
    },
  ];
}
