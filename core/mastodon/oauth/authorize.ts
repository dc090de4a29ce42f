// The rules of GET/POST /oauth/authorize (docs/behaviour.md, "OAuth"), checked in the order Mastodon
// servers check them. The client and the redirect URI come first and fail on a page of our own: until both
// are known good, sending the user agent anywhere would make us an open redirector. Every
// later error goes back to the client's redirect URI — except for the out-of-band URI, where
// the user reads errors on a page instead.

import type { AppCore } from '../context.ts';
import type { Application } from '../../domain/model.ts';
import { MAX_LENGTH } from '../../domain/lengths.ts';
import { bool, str, type Params } from '../../domain/params.ts';
import { OOB_REDIRECT_URI } from './apps.ts';
import { descriptions, missingParam } from './oauth-errors.ts';
import { CODE_CHALLENGE_METHODS } from './pkce.ts';
import { requestedScopes } from './requested-scopes.ts';

/** The parameters carried from the authorize URL through the sign-in and consent forms. */
export const AUTHORIZE_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'response_mode',
  'lang',
  'force_login',
] as const;

export type Carried = Partial<Record<(typeof AUTHORIZE_PARAMS)[number], string>>;

export interface ValidAuthorization {
  application: Application;
  redirectUri: string;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | null;
  forceLogin: boolean;
  carried: Carried;
}

export interface AuthorizeError {
  error: string;
  description: string;
}

export type AuthorizeCheck =
  | { kind: 'valid'; authorization: ValidAuthorization }
  /** Shown on a page of ours (unknown client, bad redirect URI, or any error of an OOB flow). */
  | { kind: 'page'; status: number; failure: AuthorizeError }
  /** Sent back to the client's redirect URI. */
  | { kind: 'redirect'; location: string; failure: AuthorizeError };

/** The string parameters the flow knows; anything else (and any non-string) is dropped. */
export function carriedParams(params: Params): Carried {
  const carried: Carried = {};
  for (const name of AUTHORIZE_PARAMS) {
    const value = str(params, name);
    if (value !== undefined) carried[name] = value;
  }
  return carried;
}

/** The redirect URI with parameters added, keeping any query it already has (RFC 6749 §3.1.2).
 * Works by text, not by URL parsing, so that a registered URI is never rewritten. */
export function withQuery(uri: string, values: Readonly<Record<string, string | undefined>>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value !== undefined) query.append(name, value);
  const text = query.toString();
  if (text === '') return uri;
  return uri.includes('?') ? `${uri}${uri.endsWith('?') || uri.endsWith('&') ? '' : '&'}${text}` : `${uri}?${text}`;
}

function pickRedirectUri(application: Application, requested: string | undefined): string | null {
  if (requested === undefined || requested === '') return application.redirectUris.length === 1 ? (application.redirectUris[0] ?? null) : null;
  return application.redirectUris.includes(requested) ? requested : null;
}

export async function checkAuthorizeRequest(core: AppCore, params: Params): Promise<AuthorizeCheck> {
  const carried = carriedParams(params);
  const clientId = carried.client_id ?? '';
  if (clientId === '') return { kind: 'page', status: 400, failure: { error: 'invalid_request', description: missingParam('client_id') } };
  const application = await core.storage.oauth.findApplicationByClientId(clientId);
  if (application === null) return { kind: 'page', status: 400, failure: { error: 'invalid_client', description: descriptions.invalid_client } };
  const redirectUri = pickRedirectUri(application, carried.redirect_uri);
  if (redirectUri === null) return { kind: 'page', status: 400, failure: { error: 'invalid_redirect_uri', description: descriptions.invalid_redirect_uri } };

  // Every carried parameter goes back into forms and a redirect: bounded, and a state too
  // long to echo is not echoed.
  const tooLong = AUTHORIZE_PARAMS.find((name) => (carried[name]?.length ?? 0) > MAX_LENGTH.authorizeParam);
  const state = tooLong === 'state' ? undefined : carried.state;
  const fail = (error: keyof typeof descriptions, description: string = descriptions[error]): AuthorizeCheck => {
    const failure = { error, description };
    if (redirectUri === OOB_REDIRECT_URI) return { kind: 'page', status: 400, failure };
    return { kind: 'redirect', location: withQuery(redirectUri, { error, error_description: description, state }), failure };
  };
  if (tooLong !== undefined) return fail('invalid_request', `The ${tooLong} parameter is too long (maximum is ${MAX_LENGTH.authorizeParam} characters).`);
  if (carried.response_type !== 'code') return fail('unsupported_response_type');
  if (carried.response_mode !== undefined && carried.response_mode !== '' && carried.response_mode !== 'query') return fail('unsupported_response_mode');
  const scopes = requestedScopes(params, application.scopes);
  if (scopes === null) return fail('invalid_scope');
  // PKCE: S256 only. `plain`, an unknown method, or a challenge without its method (which
  // RFC 7636 would read as plain) are refused rather than silently downgraded.
  const challenge = carried.code_challenge ?? '';
  const method = carried.code_challenge_method ?? '';
  if (method !== '' && !CODE_CHALLENGE_METHODS.includes(method)) return fail('invalid_request', descriptions.code_challenge_method);
  if (challenge !== '' && method === '') return fail('invalid_request', descriptions.code_challenge_method);
  if (method !== '' && challenge === '') return fail('invalid_request', 'Code challenge is required.');

  return {
    kind: 'valid',
    authorization: {
      application,
      redirectUri,
      scopes,
      state,
      codeChallenge: challenge === '' ? null : challenge,
      forceLogin: bool(params, 'force_login') === true,
      carried,
    },
  };
}
