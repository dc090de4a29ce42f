// Cross-site request forgery protection of the sign-in and consent forms: each form carries a
// token, and a post is only acted on when it sends that token back.
//
// A signed-in browser has a session, and its forms carry the session's token. A browser that
// is not signed in has no session (the pages it reads write nothing): its form carries a
// signed double-submit token instead, `<issued>.<signature>` over a random nonce held in a
// cookie of its own, so a form posted from elsewhere, without the cookie, fails, and nothing
// is stored until someone signs in.

import type { AppCore } from '../context.ts';
import type { WebSession } from '../../domain/model.ts';
import { str, type Params } from '../../domain/params.ts';

/** The name Rails uses, which people reading the form will recognise. */
export const CSRF_FIELD = 'authenticity_token';
export const CSRF_COOKIE = '_rookery_csrf';
/** How long a form stays good to post. */
export const FORM_SECONDS = 24 * 3600;
const NONCE = /^[A-Za-z0-9_-]{22,64}$/;

export function csrfValid(core: AppCore, session: WebSession | null, params: Params): boolean {
  const sent = str(params, CSRF_FIELD) ?? '';
  if (session === null || sent === '') return false;
  return core.secrets.equal(sent, session.csrfToken);
}

export interface AnonymousCsrf {
  token: string;
  /** Set-Cookie values (the nonce, when the browser had none). */
  cookies: string[];
}

function signature(core: AppCore, nonce: string, issued: number): string {
  return core.secrets.sign(`csrf:${nonce}:${issued}`);
}

/** The nonce this browser holds, if it is one of ours. */
export function heldNonce(cookies: Record<string, string>): string | null {
  const held = cookies[CSRF_COOKIE];
  return held !== undefined && NONCE.test(held) ? held : null;
}

/** The browser's nonce, or a new one with the Set-Cookie that gives it to the browser (a nonce
 * it already holds is kept, so that several tabs work together). */
export function browserNonce(core: AppCore, cookies: Record<string, string>): { nonce: string; cookies: string[] } {
  const held = heldNonce(cookies);
  if (held !== null) return { nonce: held, cookies: [] };
  const nonce = core.secrets.randomToken(16);
  const secure = core.config.baseUrl.startsWith('https:') ? '; Secure' : '';
  return { nonce, cookies: [`${CSRF_COOKIE}=${nonce}; Path=/; HttpOnly; SameSite=Lax${secure}`] };
}

/** A token for a form shown to a browser without a session; the nonce cookie it needs is set
 * unless the browser already holds one. */
export function anonymousCsrf(core: AppCore, cookies: Record<string, string>): AnonymousCsrf {
  const { nonce, cookies: set } = browserNonce(core, cookies);
  const issued = Math.floor(core.clock.now() / 1000);
  return { token: `${issued}.${signature(core, nonce, issued)}`, cookies: set };
}

/** Whether a post without a session carries a token made for this browser's nonce, recently. */
export function anonymousCsrfValid(core: AppCore, cookies: Record<string, string>, params: Params): boolean {
  const nonce = heldNonce(cookies);
  const sent = str(params, CSRF_FIELD) ?? '';
  const dot = sent.indexOf('.');
  if (nonce === null || dot <= 0 || sent.length > 200) return false;
  const issued = Number(sent.slice(0, dot));
  const age = core.clock.now() / 1000 - issued;
  if (!Number.isSafeInteger(issued) || age < -60 || age > FORM_SECONDS) return false;
  return core.secrets.equal(sent.slice(dot + 1), signature(core, nonce, issued));
}
