// Tokens for forms that must act only once (the web sign-up). The sign-in form's token is the
// same for every form a browser is shown (its session's, or one signed over its nonce cookie
// and the second it was made), so a post replayed with it would act again. A single-use token
// is fresh on every form: `<issued>.<serial>.<signature>`, the signature binding the random
// serial to this browser (its session, else its nonce cookie) and to the time it was made.
//
// Showing the form stores nothing. A post that is acted on spends its token: the serial's
// digest is counted in the instance's counters (in Redis when its processes share them), and
// kept only until the token would have expired anyway, so what is stored is bounded by the
// posts acted on within one form lifetime, and each entry goes by itself.

import type { AppCore } from '../context.ts';
import type { Millis, WebSession } from '../../domain/model.ts';
import { str, type Params } from '../../domain/params.ts';
import type { CounterStore } from '../../domain/ports/counters.ts';
import { browserNonce, CSRF_FIELD, FORM_SECONDS, heldNonce } from './csrf.ts';

/** Seconds since the epoch, a 16-byte serial and an HMAC-SHA256, all base64url. */
const TOKEN = /^([0-9]{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;
/** A clock a little behind the one that made the token still takes it. */
const SKEW_SECONDS = 60;

export interface SingleUseToken {
  token: string;
  /** Set-Cookie values (the nonce, when a browser without a session had none). */
  cookies: string[];
}

/** A token the browser was given, as read from its post. */
export interface PostedToken {
  serial: string;
  /** When it stops being accepted anyway. */
  expiresAt: Millis;
}

const sessionBinding = (session: WebSession) => `session:${session.csrfToken}`;
const nonceBinding = (nonce: string) => `nonce:${nonce}`;

function signature(core: AppCore, binding: string, issued: number, serial: string): string {
  return core.secrets.sign(`once:${binding}:${issued}:${serial}`);
}

/** A fresh token for a form shown to this browser. */
export function singleUseToken(core: AppCore, cookies: Record<string, string>, session: WebSession | null): SingleUseToken {
  const issued = Math.floor(core.clock.now() / 1000);
  const serial = core.secrets.randomToken(16);
  const nonce = session === null ? browserNonce(core, cookies) : null;
  const binding = nonce === null ? sessionBinding(session as WebSession) : nonceBinding(nonce.nonce);
  return { token: `${issued}.${serial}.${signature(core, binding, issued, serial)}`, cookies: nonce?.cookies ?? [] };
}

/** The single-use token a post carries, when it was made for this browser (its session, or the
 * nonce it holds: a browser that signed in since keeps its nonce) and has not expired; null
 * otherwise. Reads and stores nothing: whether it was spent is spendToken's question. */
export function postedToken(core: AppCore, cookies: Record<string, string>, session: WebSession | null, params: Params): PostedToken | null {
  const match = TOKEN.exec(str(params, CSRF_FIELD) ?? '');
  if (match === null) return null;
  const [, issuedText = '', serial = '', sent = ''] = match;
  const issued = Number(issuedText);
  const age = core.clock.now() / 1000 - issued;
  if (age < -SKEW_SECONDS || age > FORM_SECONDS) return null;
  const nonce = heldNonce(cookies);
  const bindings = [session === null ? null : sessionBinding(session), nonce === null ? null : nonceBinding(nonce)];
  const made = bindings.some((binding) => binding !== null && core.secrets.equal(sent, signature(core, binding, issued, serial)));
  return made ? { serial, expiresAt: (issued + FORM_SECONDS + 1) * 1000 } : null;
}

/** Spends a token: true the first time (atomically, across the processes that share the
 * counters), false once it has served. A counter store that cannot count (Redis away: it
 * answers 0) lets the post through, as the rate limits do. */
export async function spendToken(core: AppCore, counters: CounterStore, token: PostedToken): Promise<boolean> {
  const key = `form:once:${core.secrets.sha256(token.serial)}`;
  const [uses = 0] = await counters.add([{ key, amount: 1, expiresAt: token.expiresAt }], core.clock.now());
  return uses <= 1;
}
