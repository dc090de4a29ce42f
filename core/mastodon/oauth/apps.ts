// Registering an application (POST /api/v1/apps): its validations and texts (docs/behaviour.md, "OAuth").
// The client secret is returned once and stored only as a digest.

import type { AppCore } from '../context.ts';
import { unprocessable } from '../../domain/errors.ts';
import type { Application } from '../../domain/model.ts';
import { DEFAULT_SCOPES, isKnownScope, parseScopes } from './scopes.ts';

export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

export interface NewApplication {
  name: string;
  /** Whitespace separated, or a list. */
  redirectUris: string | readonly string[];
  /** Space separated, or a list; default `read`. */
  scopes?: string | readonly string[];
  website?: string | null;
}

/** Characters RFC 3986 allows in a URI: unreserved, reserved, and %-escapes of two hex digits.
 * Anything else (non-ASCII, spaces, controls, quotes, <>{}|\^`) makes it no URI. */
const URI_CHARACTERS = /^(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const USER_INFO = /^[A-Za-z0-9\-._~!$&'()*+,;=:%]*$/;
const REG_NAME = /^[A-Za-z0-9\-._~!$&'()*+,;=%]*$/;
const IP_LITERAL = /^\[(?:[0-9A-Fa-f:.]+|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]$/;

/** An absolute URI by RFC 3986's grammar, as Doorkeeper's parser reads redirect URIs: the
 * scheme, an authority (user info, a host name or bracketed IP literal, a numeric port) when
 * there is one, and no brackets anywhere else. Only ASCII: an IRI such as
 * https://client.example/café is not a URI until it is %-encoded. */
function isUri(uri: string): boolean {
  const scheme = SCHEME.exec(uri);
  if (scheme === null || !URI_CHARACTERS.test(uri)) return false;
  let rest = uri.slice(scheme[0].length);
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end + 2);
    rest = end < 0 ? '' : rest.slice(end + 2);
    const at = authority.lastIndexOf('@');
    if (at >= 0 && !USER_INFO.test(authority.slice(0, at))) return false;
    const hostPort = authority.slice(at + 1);
    const close = hostPort.startsWith('[') ? hostPort.indexOf(']') + 1 : 0;
    if (hostPort.startsWith('[') && (close === 0 || !IP_LITERAL.test(hostPort.slice(0, close)))) return false;
    const colon = hostPort.indexOf(':', close);
    const host = colon < 0 ? hostPort : hostPort.slice(0, colon);
    if (close === 0 && !REG_NAME.test(host)) return false;
    if (colon >= 0 && !/^[0-9]*$/.test(hostPort.slice(colon + 1))) return false;
  }
  // Path, query and fragment hold no brackets, and a fragment no second '#'.
  return !/[[\]]/.test(rest) && rest.indexOf('#') === rest.lastIndexOf('#');
}

function redirectUriErrors(uris: readonly string[], joined: string): string[] {
  if (uris.length === 0) return ["Redirect URI can't be blank"];
  if (joined.length > 2000) return ['Redirect URI is too long (maximum is 2000 characters)'];
  for (const uri of uris) {
    if (uri === OOB_REDIRECT_URI) continue;
    if (SCHEME.exec(uri) === null) return ['Redirect URI must be an absolute URI.'];
    if (!isUri(uri) || !URL.canParse(uri)) return ['Redirect URI must be a valid URI.'];
    const scheme = uri.slice(0, uri.indexOf(':')).toLowerCase();
    if (['javascript', 'data', 'vbscript'].includes(scheme)) return ['Redirect URI is forbidden by the server.'];
    if (uri.includes('#')) return ['Redirect URI cannot contain a fragment.'];
  }
  return [];
}

function websiteErrors(website: string): string[] {
  if (website === '') return [];
  if (website.length > 2000) return ['Application website is too long (maximum is 2000 characters)'];
  try {
    const url = new URL(website);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return ['Application website is invalid'];
  } catch {
    return ['Application website is invalid'];
  }
  return [];
}

function asList(value: string | readonly string[], split: RegExp): string[] {
  const items = typeof value === 'string' ? value.split(split) : value.flatMap((v) => v.split(split));
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

export interface RegisteredApplication {
  application: Application;
  /** Shown once, in the registration response. */
  clientSecret: string;
}

export async function registerApplication(core: AppCore, input: NewApplication): Promise<RegisteredApplication> {
  const name = input.name.trim();
  const redirectUris = [...new Set(asList(input.redirectUris, /\s+/))];
  const scopes = input.scopes === undefined ? [...DEFAULT_SCOPES] : parseScopes(asList(input.scopes, /\s+/).join(' '));
  const website = (input.website ?? '').trim();
  const errors: string[] = [];
  if (name === '') errors.push("Application name can't be blank");
  else if (name.length > 60) errors.push('Application name is too long (maximum is 60 characters)');
  errors.push(...redirectUriErrors(redirectUris, redirectUris.join('\n')));
  if (scopes.some((scope) => !isKnownScope(scope))) errors.push("Scopes doesn't match configured on the server.");
  errors.push(...websiteErrors(website));
  if (errors.length > 0) throw unprocessable(`Validation failed: ${errors.join(', ')}`);

  const clientSecret = core.secrets.randomToken(32);
  const application: Application = {
    id: core.smallIds.next(),
    name,
    website: website === '' ? null : website,
    redirectUris,
    scopes: scopes.length > 0 ? scopes : [...DEFAULT_SCOPES],
    clientId: core.secrets.randomToken(32),
    clientSecretHash: core.secrets.sha256(clientSecret),
    createdAt: core.clock.now(),
  };
  await core.storage.oauth.createApplication(application);
  return { application, clientSecret };
}

/** The Application entity (GET /api/v1/apps/verify_credentials): never the client credentials.
 * `vapidKey`: the instance's Web Push public key, '' without push. */
export function renderApplication(app: Application, vapidKey = '') {
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: app.scopes,
    redirect_uri: app.redirectUris.join('\n'),
    redirect_uris: app.redirectUris,
    vapid_key: vapidKey,
  };
}

/** The CredentialApplication entity: the registration response. */
export function renderCredentialApplication(registered: RegisteredApplication, vapidKey = '') {
  return {
    ...renderApplication(registered.application, vapidKey),
    client_id: registered.application.clientId,
    client_secret: registered.clientSecret,
    client_secret_expires_at: 0,
  };
}
