// Registering an application (POST /api/v1/apps): its validations and texts (docs/behaviour.md, "OAuth").
// The client secret is returned once and stored only as a digest.

import type { Core } from '../core.ts';
import { unprocessable } from '../errors.ts';
import type { Application } from '../model.ts';
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

function redirectUriErrors(uris: readonly string[], joined: string): string[] {
  if (uris.length === 0) return ["Redirect URI can't be blank"];
  if (joined.length > 2000) return ['Redirect URI is too long (maximum is 2000 characters)'];
  for (const uri of uris) {
    if (uri === OOB_REDIRECT_URI) continue;
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      return /^[a-z][a-z0-9+.-]*:/i.test(uri) ? ['Redirect URI must be a valid URI.'] : ['Redirect URI must be an absolute URI.'];
    }
    if (['javascript:', 'data:', 'vbscript:'].includes(url.protocol)) return ['Redirect URI is forbidden by the server.'];
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

export async function registerApplication(core: Core, input: NewApplication): Promise<RegisteredApplication> {
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
