// Rate limits as Mastodon applies them (docs/behaviour.md, "Rate limits"): request throttles (its Rack::Attack
// rules) per user, token and client address, and action families (its RateLimiter) per
// account, on fixed windows aligned to multiples of their period since the epoch. The front
// asks before an endpoint runs and tells after it answered; the counters live behind the
// CounterStore port (in-process, or Redis for several processes).
//
// Requests from loopback are exempt, as in Mastodon; the client's address is taken from
// X-Forwarded-For only when the peer is a trusted proxy (config.trustedProxies).

import type { RookeryConfig } from '../domain/config.ts';
import { clientKey, inCidr, isLoopback, parseCidr, parseIp, type Cidr, type ParsedIp } from '../domain/ip.ts';
import type { Id, Millis } from '../domain/model.ts';
import { present, str, obj, type Params } from '../domain/params.ts';
import type { CounterStore } from '../domain/ports/counters.ts';

export interface Throttle {
  readonly name: string;
  readonly limit: number;
  readonly periodMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const THROTTLES = {
  apiUser: { name: 'api:user', limit: 1500, periodMs: 5 * MINUTE },
  apiToken: { name: 'api:token', limit: 300, periodMs: 5 * MINUTE },
  apiAnonymous: { name: 'api:ip', limit: 300, periodMs: 5 * MINUTE },
  paging: { name: 'paging', limit: 300, periodMs: 15 * MINUTE },
  media: { name: 'media', limit: 30, periodMs: 30 * MINUTE },
  deletes: { name: 'deletes', limit: 30, periodMs: 30 * MINUTE },
  signUpIp: { name: 'sign_up:ip', limit: 5, periodMs: 30 * MINUTE },
  signUpEmail: { name: 'sign_up:email', limit: 5, periodMs: 30 * MINUTE },
  authIp: { name: 'auth:ip', limit: 25, periodMs: 5 * MINUTE },
  signInLogin: { name: 'sign_in:login', limit: 25, periodMs: HOUR },
  passwordResetEmail: { name: 'password_reset:email', limit: 5, periodMs: 30 * MINUTE },
} as const satisfies Record<string, Throttle>;

/** Action families, per account: counted when the action succeeded. */
export const FAMILIES = {
  statuses: { name: 'family:statuses', limit: 300, periodMs: 3 * HOUR },
  follows: { name: 'family:follows', limit: 400, periodMs: 24 * HOUR },
} as const satisfies Record<string, Throttle>;

/** Endpoints ("METHOD /path") of each family. Publishing a scheduled post does not count
 * until it is published (the ScheduledStatus answer is told apart by its params). */
const FAMILY_OF: Readonly<Record<string, Throttle>> = {
  'POST /api/v1/statuses': FAMILIES.statuses,
  'POST /api/v1/statuses/:id/reblog': FAMILIES.statuses,
  'POST /api/v1/accounts/:id/follow': FAMILIES.follows,
};

const MEDIA = new Set(['POST /api/v1/media', 'POST /api/v2/media']);
const DELETES = new Set(['DELETE /api/v1/statuses/:id', 'POST /api/v1/statuses/:id/unreblog']);
const PAGING = ['page', 'max_id', 'min_id', 'since_id'];

export const rateLimitTexts = { tooMany: 'Too many requests' } as const;

/** A request as the limits see it. */
export interface LimitedRequest {
  /** The endpoint's "METHOD /path/:param". */
  route: string;
  /** Path as requested (without the query). */
  path: string;
  params: Params;
  accountId: Id | null;
  tokenId: Id | null;
  /** The transport's peer address and the X-Forwarded-For header, as received. */
  remoteAddress: string;
  forwardedFor: string | undefined;
}

interface Counted {
  throttle: Throttle;
  key: string;
  windowEnd: Millis;
  count: number;
}

export interface Verdict {
  /** Over a limit: answer 429 with `headers`. */
  limited: boolean;
  headers: Record<string, string>;
  /** The request's own counters, for after(). */
  counted: readonly Counted[];
  family: Counted | null;
}

/** Where a request came from, as the transport saw it. */
export interface RequestOrigin {
  remoteAddress: string;
  forwardedFor: string | undefined;
}

export interface RateLimiter {
  before(request: LimitedRequest): Promise<Verdict | null>;
  /** After the endpoint answered: counts a family action that succeeded; the headers to send. */
  after(verdict: Verdict, status: number, body: unknown): Promise<Record<string, string>>;
  /** Counts a sign-up made other than through POST /api/v1/accounts (the web form) on that
   * endpoint's own counters, so both share one budget per client address and per e-mail
   * address. null when it may go on (loopback is exempt); else the seconds until the window
   * that refused it ends. */
  countSignUp(origin: RequestOrigin, email: string): Promise<number | null>;
}

/** Mastodon's X-RateLimit-Reset: the window's end, ISO 8601 with six fractional digits. */
export function resetText(windowEnd: Millis): string {
  return new Date(windowEnd).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

function remaining(counted: Counted): number {
  return Math.max(0, counted.throttle.limit - counted.count);
}

/** The headers: of the limit that refused the request; else of the action family, which the
 * publish, boost and follow responses always carry (Mastodon overrides them there, 422s
 * included); else of the throttle closest to exhaustion. */
function headersOf(all: readonly Counted[], limited: Counted | null, family: Counted | null): Record<string, string> {
  let chosen = limited ?? family;
  if (chosen === null) for (const counted of all) if (chosen === null || remaining(counted) < remaining(chosen)) chosen = counted;
  if (chosen === null) return {};
  return {
    'x-ratelimit-limit': String(chosen.throttle.limit),
    'x-ratelimit-remaining': limited === null ? String(remaining(chosen)) : '0',
    'x-ratelimit-reset': resetText(chosen.windowEnd),
  };
}

/** The client's address: the peer's, or from X-Forwarded-For (the nearest hop that is not a
 * trusted proxy) when the peer is one. */
export function clientAddress(peer: string, forwardedFor: string | undefined, trusted: readonly Cidr[]): ParsedIp | null {
  const address = parseIp(peer.startsWith('::ffff:') ? peer.slice(7) : peer);
  if (address === null || forwardedFor === undefined || !trusted.some((range) => inCidr(address, range))) return address;
  let client = address;
  const hops = forwardedFor.split(',', 32).reverse();
  for (const hop of hops) {
    const ip = parseIp(hop);
    if (ip === null) break;
    client = ip;
    if (!trusted.some((range) => inCidr(ip, range))) break;
  }
  return client;
}

function loginOf(params: Params): string | undefined {
  return str(obj(params, 'user') ?? {}, 'email') ?? str(params, 'username');
}

/** The address a password-reset mail is asked for (user[email] of /auth/password/new's form). */
function resetEmailOf(params: Params): string | undefined {
  return str(obj(params, 'user') ?? {}, 'email');
}

function isScheduled(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'scheduled_at' in body && 'params' in body;
}

export function createRateLimiter(config: RookeryConfig, counters: CounterStore, now: () => Millis): RateLimiter {
  const trusted = config.trustedProxies.map((text) => {
    const range = parseCidr(text);
    if (range === null) throw new Error(`not an address or range: ${text}`);
    return range;
  });

  /** The sign-up limits: per client address, and per e-mail address when one is given. */
  function signUpThrottles(client: string, email: string | undefined): [Throttle, string][] {
    const out: [Throttle, string][] = [[THROTTLES.signUpIp, client]];
    if (email !== undefined && email !== '') out.push([THROTTLES.signUpEmail, email.trim().toLowerCase().slice(0, 320)]);
    return out;
  }

  function applying(request: LimitedRequest, client: string): [Throttle, string][] {
    const { route, path, params, accountId, tokenId } = request;
    const out: [Throttle, string][] = [];
    if (path === '/api' || path.startsWith('/api/')) {
      if (accountId !== null) out.push([THROTTLES.apiUser, accountId]);
      if (tokenId !== null) out.push([THROTTLES.apiToken, tokenId]);
      if (accountId === null) out.push([THROTTLES.apiAnonymous, client]);
      if (PAGING.some((name) => present(params, name))) out.push([THROTTLES.paging, accountId ?? client]);
    }
    if (accountId !== null && MEDIA.has(route)) out.push([THROTTLES.media, accountId]);
    if (accountId !== null && DELETES.has(route)) out.push([THROTTLES.deletes, accountId]);
    if (route === 'POST /api/v1/accounts') out.push(...signUpThrottles(client, str(params, 'email')));
    const signIn = route === 'POST /auth/sign_in' || (route === 'POST /oauth/token' && str(params, 'grant_type') === 'password');
    if (signIn || (path.startsWith('/auth/') && route.startsWith('POST '))) out.push([THROTTLES.authIp, client]);
    const resetFor = route === 'POST /auth/password' && str(params, '_method') === undefined ? resetEmailOf(params) : undefined;
    if (resetFor !== undefined && resetFor !== '') out.push([THROTTLES.passwordResetEmail, resetFor.trim().toLowerCase().slice(0, 320)]);
    if (signIn) {
      const login = loginOf(params);
      if (login !== undefined && login !== '') out.push([THROTTLES.signInLogin, login.trim().toLowerCase().slice(0, 320)]);
    }
    return out;
  }

  const windowOf = (throttle: Throttle, at: Millis) => (Math.floor(at / throttle.periodMs) + 1) * throttle.periodMs;
  const keyOf = (throttle: Throttle, who: string, windowEnd: Millis) => `${throttle.name}:${who}:${windowEnd}`;

  /** The client's key for counting; null for loopback, which is exempt. */
  function clientOf(origin: RequestOrigin): string | null {
    const address = clientAddress(origin.remoteAddress, origin.forwardedFor, trusted);
    if (address !== null && isLoopback(address)) return null;
    return address === null ? 'unknown' : clientKey(address);
  }

  return {
    async before(request) {
      const client = clientOf(request);
      if (client === null) return null;
      const at = now();
      const throttles = applying(request, client);
      const family = request.accountId === null ? undefined : FAMILY_OF[request.route];
      if (throttles.length === 0 && family === undefined) return null;
      const counted: Counted[] = throttles.map(([throttle, who]) => {
        const windowEnd = windowOf(throttle, at);
        return { throttle, key: keyOf(throttle, who, windowEnd), windowEnd, count: 0 };
      });
      let familyCounted: Counted | null = null;
      if (family !== undefined && request.accountId !== null) {
        const windowEnd = windowOf(family, at);
        familyCounted = { throttle: family, key: keyOf(family, request.accountId, windowEnd), windowEnd, count: 0 };
      }
      const entries = counted.map((c) => ({ key: c.key, amount: 1, expiresAt: c.windowEnd }));
      if (familyCounted !== null) entries.push({ key: familyCounted.key, amount: 0, expiresAt: familyCounted.windowEnd });
      const values = await counters.add(entries, at);
      counted.forEach((c, i) => (c.count = values[i] ?? 0));
      if (familyCounted !== null) familyCounted.count = values[counted.length] ?? 0;
      const over = counted.find((c) => c.count > c.throttle.limit) ?? (familyCounted !== null && familyCounted.count >= familyCounted.throttle.limit ? familyCounted : null);
      return { limited: over !== null, headers: headersOf(counted, over, familyCounted), counted, family: familyCounted };
    },

    async after(verdict, status, body) {
      const family = verdict.family;
      if (family === null || status < 200 || status >= 300 || isScheduled(body)) return verdict.headers;
      const [count] = await counters.add([{ key: family.key, amount: 1, expiresAt: family.windowEnd }], now());
      return headersOf(verdict.counted, null, { ...family, count: count ?? family.count + 1 });
    },

    async countSignUp(origin, email) {
      const client = clientOf(origin);
      if (client === null) return null;
      const at = now();
      const throttles = signUpThrottles(client, email);
      const windows = throttles.map(([throttle]) => windowOf(throttle, at));
      const values = await counters.add(
        throttles.map(([throttle, who], i) => ({ key: keyOf(throttle, who, windows[i] ?? at), amount: 1, expiresAt: windows[i] ?? at })),
        at,
      );
      // Refused until every limit it is over has a new window.
      let retryAt = 0;
      for (const [i, [throttle]] of throttles.entries()) {
        if ((values[i] ?? 0) > throttle.limit) retryAt = Math.max(retryAt, windows[i] ?? at);
      }
      return retryAt === 0 ? null : Math.max(1, Math.ceil((retryAt - at) / 1000));
    },
  };
}
