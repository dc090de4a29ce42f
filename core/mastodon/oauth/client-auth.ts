// Client authentication at the token and revoke endpoints (RFC 6749 §2.3.1): HTTP Basic
// (client_secret_basic) or client_id + client_secret in the parameters (client_secret_post).
// Basic wins when both are present, as on Mastodon servers.

import type { AppCore } from '../context.ts';
import type { Application } from '../../domain/model.ts';
import { str, type Params } from '../../domain/params.ts';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** The form-urlencoding §2.3.1 asks for: `+` is a space, then percent-decoding. */
function formDecode(value: string): string | null {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

function decodeBase64(value: string): string | null {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value) || value.length % 4 === 1) return null;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
  } catch {
    return null;
  }
}

/** Credentials from `Authorization: Basic …`; undefined when the header is not Basic at all,
 * null when it is Basic but malformed (which fails authentication rather than falling back). */
export function basicCredentials(header: string | undefined): ClientCredentials | null | undefined {
  const match = header === undefined ? null : /^Basic\s+(\S*)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = decodeBase64(match[1] ?? '');
  const colon = decoded === null ? -1 : decoded.indexOf(':');
  if (decoded === null || colon < 0) return null;
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  return clientId === null || clientSecret === null ? null : { clientId, clientSecret };
}

export function clientCredentials(headers: Record<string, string | undefined>, params: Params): ClientCredentials | null {
  const basic = basicCredentials(headers['authorization']);
  if (basic !== undefined) return basic;
  const clientId = str(params, 'client_id');
  const clientSecret = str(params, 'client_secret');
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}

/** The application whose credentials these are, or null. The secret is compared as a digest
 * in constant time; only its digest is stored. */
export async function authenticateClient(core: AppCore, credentials: ClientCredentials | null): Promise<Application | null> {
  if (credentials === null || credentials.clientId === '' || credentials.clientSecret === '') return null;
  const application = await core.storage.oauth.findApplicationByClientId(credentials.clientId);
  const presented = core.secrets.sha256(credentials.clientSecret);
  // Compare even for an unknown client, so both failures take the same path.
  const matches = core.secrets.equal(presented, application?.clientSecretHash ?? core.secrets.sha256(''));
  return application !== null && matches ? application : null;
}
