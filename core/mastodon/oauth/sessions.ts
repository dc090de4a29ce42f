// The browser session of the sign-in and consent pages. The cookie holds a random id; the
// store keeps only its digest. A session begins when someone signs in (the pages read before
// that store nothing: their form's CSRF token is a signed cookie pair, core/oauth/csrf.ts) and
// a sign-in always starts a fresh one, so an id planted in a victim's browser is worthless
// (session fixation). Expired sessions are deleted by a periodic job.

import type { AppCore } from '../context.ts';
import type { Account, Id, User, WebSession } from '../../domain/model.ts';

export const SESSION_COOKIE = '_rookery_session';

export interface SignedIn {
  account: Account;
  user: User;
}

export interface BrowserSession {
  session: WebSession;
  /** The signed-in person; null before sign-in, or when they may no longer sign in. */
  signedIn: SignedIn | null;
  /** Set-Cookie values to send with the response (only for a new session). */
  cookies: string[];
}

export function sessionCookie(core: AppCore, value: string, maxAgeSeconds: number): string {
  // Lax: the cookie still comes along when a client app sends the user to /oauth/authorize
  // (a top-level GET), but not with cross-site form posts. Secure whenever we are served
  // over https, so the id never travels in clear.
  const secure = core.config.baseUrl.startsWith('https:') ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Max-Age=${maxAgeSeconds}; Path=/; HttpOnly; SameSite=Lax${secure}`;
}

async function findSession(core: AppCore, cookies: Record<string, string>): Promise<WebSession | null> {
  const value = cookies[SESSION_COOKIE];
  if (typeof value !== 'string' || value === '' || value.length > 200) return null;
  return core.storage.oauth.findSessionByHash(core.secrets.sha256(value), core.clock.now());
}

/** The account and user behind an id, when they may still sign in. */
export async function signedInOf(core: AppCore, accountId: Id | null): Promise<SignedIn | null> {
  if (accountId === null) return null;
  const [account, user] = await Promise.all([core.storage.accounts.get(accountId), core.storage.accounts.getUser(accountId)]);
  return account !== null && account.deletedAt === null && user !== null && !user.disabled ? { account, user } : null;
}

/** A new session (signed in or not) and the cookie that carries it. */
export async function startSession(core: AppCore, accountId: Id | null): Promise<BrowserSession> {
  const value = core.secrets.randomToken(32);
  const now = core.clock.now();
  const seconds = core.config.limits.webSessionSeconds;
  const session: WebSession = {
    id: core.ids.next(),
    idHash: core.secrets.sha256(value),
    accountId,
    csrfToken: core.secrets.randomToken(32),
    createdAt: now,
    expiresAt: now + seconds * 1000,
  };
  await core.storage.oauth.createSession(session);
  return { session, signedIn: await signedInOf(core, accountId), cookies: [sessionCookie(core, value, seconds)] };
}

/** The request's session, if its cookie names a live one. */
export async function currentSession(core: AppCore, cookies: Record<string, string>): Promise<BrowserSession | null> {
  const session = await findSession(core, cookies);
  return session === null ? null : { session, signedIn: await signedInOf(core, session.accountId), cookies: [] };
}

/** Deletes the sessions that have expired (the periodic job oauth.prune-sessions). */
export function pruneExpiredSessions(core: AppCore): Promise<number> {
  return core.storage.oauth.pruneSessions(core.clock.now());
}

/** Run hourly wherever jobs run: sessions last limits.webSessionSeconds (14 days). */
export const PRUNE_SESSIONS_JOB = { name: 'oauth.prune-sessions', intervalMs: 3600_000 } as const;

/** Sign-in: the old session ends and a new one, with a new id and CSRF token, begins. */
export async function rotateSession(core: AppCore, old: WebSession | null, accountId: Id): Promise<BrowserSession> {
  if (old !== null) await core.storage.oauth.deleteSession(old.id);
  return startSession(core, accountId);
}
