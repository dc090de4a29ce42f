// What an embedding app (or the standalone instance) tells the core about itself. Every option
// is checked once, here, with an error that names it; the result is frozen, so nothing can
// change the configuration under a running core.

import { parseCidr } from './ip.ts';

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
/** Clients parse the leading semver to decide which Mastodon features to use. */
export const MASTODON_COMPATIBLE_VERSION = `4.3.0 (compatible; Rookery ${ROOKERY_VERSION})`;

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

/** A configuration option that is unknown, missing or of the wrong shape. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(`Invalid config: ${message}`);
    this.name = 'ConfigError';
  }
}

const DEFAULT_RESERVED = Object.freeze(['admin', 'administrator', 'mod', 'moderator', 'root', 'support', 'help', 'webmaster', 'postmaster', 'abuse', 'security', 'ssladmin', 'hostmaster']);

const TOP_LEVEL = new Set(['domain', 'baseUrl', 'streamingUrl', 'title', 'description', 'contactEmail', 'limitedFederation', 'registrations', 'reservedUsernames', 'rules', 'limits', 'refreshTokens', 'rateLimits', 'trustedProxies']);
const DEFAULT_TRUSTED_PROXIES = Object.freeze(['127.0.0.0/8', '::1']);
const REGISTRATION_KEYS = new Set(['open', 'approvalRequired', 'confirmationRequired']);
const LIMIT_KEYS = new Set(Object.keys(defaultLimits));
/** A host name or address with an optional port: no scheme, path, query, user or spaces. */
const HOST = /^[^\s/?#@]+$/;

type Input = Record<string, unknown>;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return Array.isArray(value) ? 'an array' : typeof value;
}

function isObject(value: unknown): value is Input {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKnown(input: Input, known: ReadonlySet<string>, prefix: string): void {
  for (const key of Object.keys(input)) if (!known.has(key)) throw new ConfigError(`unknown option "${prefix}${key}"`);
}

function optional<T>(input: Input, name: string, label: string, check: (value: unknown) => value is T, what: string, fallback: T): T {
  const value = input[name];
  if (value === undefined) return fallback;
  if (!check(value)) throw new ConfigError(`"${label}" must be ${what}, got ${describe(value)}`);
  return value;
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);
const isTextList = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => isString(item) && item.trim() !== '');
const isRangeList = (value: unknown): value is string[] => isStringList(value) && value.every((item) => parseCidr(item) !== null);

function urlWithScheme(value: string, schemes: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return schemes.includes(url.protocol) && url.host !== '' && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
}

function domainOf(input: Input): string {
  const domain = input['domain'];
  if (domain === undefined) throw new ConfigError('"domain" is required');
  if (typeof domain !== 'string') throw new ConfigError(`"domain" must be a string, got ${describe(domain)}`);
  if (!HOST.test(domain)) throw new ConfigError(`"domain" must be a host name without scheme or path (e.g. social.example), got ${describe(domain)}`);
  return domain;
}

function baseUrlOf(input: Input, domain: string): string {
  const given = optional(input, 'baseUrl', 'baseUrl', isString, 'a string', `https://${domain}`);
  const baseUrl = given.replace(/\/+$/, '');
  if (!urlWithScheme(baseUrl, ['http:', 'https:'])) throw new ConfigError(`"baseUrl" must be an http:// or https:// URL without query or fragment, got ${describe(given)}`);
  return baseUrl;
}

function streamingUrlOf(input: Input): string | null {
  const value = input['streamingUrl'];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !urlWithScheme(value, ['ws:', 'wss:'])) throw new ConfigError(`"streamingUrl" must be a ws:// or wss:// URL or null, got ${describe(value)}`);
  return value.replace(/\/+$/, '');
}

function registrationsOf(input: Input): RookeryConfig['registrations'] {
  const value = input['registrations'] ?? {};
  if (!isObject(value)) throw new ConfigError(`"registrations" must be an object, got ${describe(value)}`);
  onlyKnown(value, REGISTRATION_KEYS, 'registrations.');
  return Object.freeze({
    open: optional(value, 'open', 'registrations.open', isBoolean, 'a boolean', true),
    approvalRequired: optional(value, 'approvalRequired', 'registrations.approvalRequired', isBoolean, 'a boolean', false),
    confirmationRequired: optional(value, 'confirmationRequired', 'registrations.confirmationRequired', isBoolean, 'a boolean', false),
  });
}

function limitsOf(input: Input): Limits {
  const value = input['limits'] ?? {};
  if (!isObject(value)) throw new ConfigError(`"limits" must be an object, got ${describe(value)}`);
  onlyKnown(value, LIMIT_KEYS, 'limits.');
  const limits: Record<string, number> = { ...defaultLimits };
  for (const key of Object.keys(value)) limits[key] = optional(value, key, `limits.${key}`, isCount, 'a non-negative integer', 0);
  return Object.freeze(limits as unknown as Limits);
}

/** Checks every option, fills in defaults (https://<domain> as the base URL, open registrations
 * without e-mail confirmation) and returns a deeply frozen configuration. */
export function resolveConfig(input: ConfigInput): RookeryConfig {
  const raw: unknown = input;
  if (!isObject(raw)) throw new ConfigError(`expected an object, got ${describe(raw)}`);
  onlyKnown(raw, TOP_LEVEL, '');
  const domain = domainOf(raw);
  const reserved = optional(raw, 'reservedUsernames', 'reservedUsernames', isStringList, 'an array of strings', DEFAULT_RESERVED);
  return Object.freeze({
    domain,
    baseUrl: baseUrlOf(raw, domain),
    streamingUrl: streamingUrlOf(raw),
    title: optional(raw, 'title', 'title', isString, 'a string', 'Rookery'),
    description: optional(raw, 'description', 'description', isString, 'a string', 'A Mastodon-compatible server powered by Rookery.'),
    contactEmail: optional(raw, 'contactEmail', 'contactEmail', isString, 'a string', ''),
    limitedFederation: optional(raw, 'limitedFederation', 'limitedFederation', isBoolean, 'a boolean', false),
    registrations: registrationsOf(raw),
    reservedUsernames: Object.freeze([...reserved]),
    rules: Object.freeze(optional(raw, 'rules', 'rules', isTextList, 'an array of non-empty strings', []).map((rule) => rule.trim())),
    limits: limitsOf(raw),
    refreshTokens: optional(raw, 'refreshTokens', 'refreshTokens', isBoolean, 'a boolean', false),
    rateLimits: optional(raw, 'rateLimits', 'rateLimits', isBoolean, 'a boolean', true),
    trustedProxies: Object.freeze([...optional(raw, 'trustedProxies', 'trustedProxies', isRangeList, 'an array of IP addresses or CIDR ranges', DEFAULT_TRUSTED_PROXIES)]),
  });
}
