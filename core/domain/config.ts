// What an embedding app (or the standalone instance) tells the core about itself. Every option
// is checked once, here, with an error that names it; the result is frozen, so nothing can
// change the configuration under a running core.

import { parseCidr } from './ip.ts';
import { ConfigError, checkOptions, describeValue, option, type OptionSpec } from './options.ts';

export interface Limits {
  readonly maxCharacters: number;
  /** The raw length (UTF-16 units) of a status's text and warning together, whatever they
   * count: a URL counts 23 characters however long it is, so this is what bounds a post. */
  readonly maxRawCharacters: number;
  readonly charactersReservedPerUrl: number;
  readonly maxPinnedStatuses: number;
  readonly maxMediaAttachments: number;
  readonly maxPollOptions: number;
  readonly maxPollOptionCharacters: number;
  readonly minPollExpiration: number;
  readonly maxPollExpiration: number;
  readonly maxLists: number;
  /** Keyword filters per account, keywords per filter and statuses per filter (Mastodon has
   * no limits; every keyword of an account's filters is compiled into one matcher). */
  readonly maxFilters: number;
  readonly maxFilterKeywords: number;
  readonly maxFilterStatuses: number;
  readonly idempotencySeconds: number;
  readonly authorizationCodeSeconds: number;
  readonly webSessionSeconds: number;
}

export interface RookeryConfig {
  /** The instance's domain as it appears in acct and handles, e.g. `social.example` or `localhost:3000`. */
  readonly domain: string;
  /** Public base URL of the web/API side, without a trailing slash. */
  readonly baseUrl: string;
  /** Base URL clients open streams on (ws:// or wss://); null when this instance serves none. */
  readonly streamingUrl: string | null;
  readonly title: string;
  readonly description: string;
  readonly contactEmail: string;
  /** Whitelist (limited federation) mode: anonymous reads are refused. */
  readonly limitedFederation: boolean;
  readonly registrations: {
    readonly open: boolean;
    readonly approvalRequired: boolean;
    readonly confirmationRequired: boolean;
  };
  /** Reserved usernames that nobody may register. */
  readonly reservedUsernames: readonly string[];
  /** The server's rules, in order: shown on the front page and by the instance endpoints. */
  readonly rules: readonly string[];
  readonly limits: Limits;
  /** Issue refresh tokens from the token endpoint (opt-in; Mastodon issues none). */
  readonly refreshTokens: boolean;
  /** Mastodon's rate limits (core/rate-limits.ts); on unless false. */
  readonly rateLimits: boolean;
  /** Peers (addresses or CIDR ranges) whose X-Forwarded-For names the client: the reverse
   * proxies in front of the instance. Default: loopback. */
  readonly trustedProxies: readonly string[];
}

export const ROOKERY_VERSION = '0.1.0';
/** What every request this instance makes to another server says it is, as Mastodon's say
 * "Mastodon/4.x (…; +https://domain/)": the software, its version, and where to find it. */
export function rookeryUserAgent(baseUrl: string): string {
  return `Rookery/${ROOKERY_VERSION} (+${baseUrl})`;
}
/** Clients parse the leading semver to decide which Mastodon features to use: 4.5 since quote
 * posts work (the API version in instance.ts goes with it). */
export const MASTODON_COMPATIBLE_VERSION = `4.5.0 (compatible; Rookery ${ROOKERY_VERSION})`;

export const defaultLimits: Limits = Object.freeze({
  maxCharacters: 500,
  maxRawCharacters: 10_000,
  charactersReservedPerUrl: 23,
  maxPinnedStatuses: 5,
  maxMediaAttachments: 4,
  maxPollOptions: 4,
  maxPollOptionCharacters: 50,
  minPollExpiration: 300,
  maxPollExpiration: 2_629_746,
  maxLists: 50,
  maxFilters: 50,
  maxFilterKeywords: 50,
  maxFilterStatuses: 100,
  idempotencySeconds: 3600,
  authorizationCodeSeconds: 600,
  webSessionSeconds: 14 * 24 * 3600,
});

export type ConfigInput = Partial<Omit<RookeryConfig, 'registrations' | 'limits'>> & {
  domain: string;
  registrations?: Partial<RookeryConfig['registrations']>;
  limits?: Partial<Limits>;
};

export { ConfigError } from './options.ts';

const DEFAULT_RESERVED = Object.freeze(['admin', 'administrator', 'mod', 'moderator', 'root', 'support', 'help', 'webmaster', 'postmaster', 'abuse', 'security', 'ssladmin', 'hostmaster']);
const DEFAULT_TRUSTED_PROXIES = Object.freeze(['127.0.0.0/8', '::1']);
/** A host name or address with an optional port: no scheme, path, query, user or spaces. */
const HOST = /^[^\s/?#@]+$/;

const isString = (value: unknown): value is string => typeof value === 'string';

function urlWithScheme(value: string, schemes: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return schemes.includes(url.protocol) && url.host !== '' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
}

const SPEC: OptionSpec = {
  domain: option.required(option.string()),
  baseUrl: option.string(),
  streamingUrl: { what: 'a ws:// or wss:// URL or null', test: (v) => v === null || (isString(v) && urlWithScheme(v.replace(/\/+$/, ''), ['ws:', 'wss:'])) },
  title: option.string(),
  description: option.string(),
  contactEmail: option.string(),
  limitedFederation: option.boolean(),
  registrations: option.object('', { open: option.boolean(), approvalRequired: option.boolean(), confirmationRequired: option.boolean() }),
  reservedUsernames: option.arrayOf(option.string(), 'an array of strings'),
  rules: option.arrayOf(option.nonEmptyString(), 'an array of non-empty strings'),
  limits: option.object('', Object.fromEntries(Object.keys(defaultLimits).map((key) => [key, option.integer(0, Number.MAX_SAFE_INTEGER, 'a non-negative integer')]))),
  refreshTokens: option.boolean(),
  rateLimits: option.boolean(),
  trustedProxies: option.arrayOf({ what: 'an IP address or CIDR range', test: (v) => isString(v) && parseCidr(v) !== null }, 'an array of IP addresses or CIDR ranges'),
};

/** Checks every option, fills in defaults (https://<domain> as the base URL, open registrations
 * without e-mail confirmation) and returns a deeply frozen configuration. */
export function resolveConfig(input: ConfigInput): RookeryConfig {
  const raw: unknown = input;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`expected an object, got ${describeValue(raw)}`);
  checkOptions('', raw, SPEC);
  const given = raw as ConfigInput;
  const domain = given.domain;
  if (!HOST.test(domain)) throw new ConfigError(`"domain" must be a host name without scheme or path (e.g. social.example), got ${describeValue(domain)}`);
  const baseUrl = (given.baseUrl ?? `https://${domain}`).replace(/\/+$/, '');
  if (!urlWithScheme(baseUrl, ['http:', 'https:'])) throw new ConfigError(`"baseUrl" must be an http:// or https:// URL without query or fragment, got ${describeValue(given.baseUrl)}`);
  const registrations = given.registrations ?? {};
  return Object.freeze({
    domain,
    baseUrl,
    streamingUrl: isString(given.streamingUrl) ? given.streamingUrl.replace(/\/+$/, '') : null,
    title: given.title ?? 'Rookery',
    description: given.description ?? 'A Mastodon-compatible server powered by Rookery.',
    contactEmail: given.contactEmail ?? '',
    limitedFederation: given.limitedFederation ?? false,
    registrations: Object.freeze({
      open: registrations.open ?? true,
      approvalRequired: registrations.approvalRequired ?? false,
      confirmationRequired: registrations.confirmationRequired ?? false,
    }),
    reservedUsernames: Object.freeze([...(given.reservedUsernames ?? DEFAULT_RESERVED)]),
    rules: Object.freeze((given.rules ?? []).map((rule) => rule.trim())),
    limits: Object.freeze({ ...defaultLimits, ...given.limits }),
    refreshTokens: given.refreshTokens ?? false,
    rateLimits: given.rateLimits ?? true,
    trustedProxies: Object.freeze([...(given.trustedProxies ?? DEFAULT_TRUSTED_PROXIES)]),
  });
}
