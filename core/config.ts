// What an embedding app (or the standalone instance) tells the core about itself.

export interface Limits {
  maxCharacters: number;
  charactersReservedPerUrl: number;
  maxPinnedStatuses: number;
  maxMediaAttachments: number;
  maxPollOptions: number;
  maxPollOptionCharacters: number;
  minPollExpiration: number;
  maxPollExpiration: number;
  maxLists: number;
  idempotencySeconds: number;
  authorizationCodeSeconds: number;
  webSessionSeconds: number;
}

export interface RookeryConfig {
  /** The instance's domain as it appears in acct and handles, e.g. `social.example` or `localhost:3000`. */
  domain: string;
  /** Public base URL of the web/API side, without a trailing slash. */
  baseUrl: string;
  /** Base URL clients open streams on (ws:// or wss://); null when this instance serves none. */
  streamingUrl: string | null;
  title: string;
  description: string;
  contactEmail: string;
  /** Whitelist (limited federation) mode: anonymous reads are refused. */
  limitedFederation: boolean;
  registrations: {
    open: boolean;
    approvalRequired: boolean;
    confirmationRequired: boolean;
  };
  /** Reserved usernames that nobody may register. */
  reservedUsernames: readonly string[];
  limits: Limits;
  /** Issue refresh tokens from the token endpoint (opt-in; Mastodon issues none). */
  refreshTokens: boolean;
}

export const ROOKERY_VERSION = '0.1.0';
/** Clients parse the leading semver to decide which Mastodon features to use. */
export const MASTODON_COMPATIBLE_VERSION = `4.3.0 (compatible; Rookery ${ROOKERY_VERSION})`;

export const defaultLimits: Limits = {
  maxCharacters: 500,
  charactersReservedPerUrl: 23,
  maxPinnedStatuses: 5,
  maxMediaAttachments: 4,
  maxPollOptions: 4,
  maxPollOptionCharacters: 50,
  minPollExpiration: 300,
  maxPollExpiration: 2_629_746,
  maxLists: 50,
  idempotencySeconds: 3600,
  authorizationCodeSeconds: 600,
  webSessionSeconds: 14 * 24 * 3600,
};

export type ConfigInput = Partial<Omit<RookeryConfig, 'registrations' | 'limits'>> & {
  domain: string;
  registrations?: Partial<RookeryConfig['registrations']>;
  limits?: Partial<Limits>;
};

const DEFAULT_RESERVED = ['admin', 'administrator', 'mod', 'moderator', 'root', 'support', 'help', 'webmaster', 'postmaster', 'abuse', 'security', 'ssladmin', 'hostmaster'];

/** Fills in defaults: https://<domain> as the base URL, open registrations without e-mail confirmation. */
export function resolveConfig(input: ConfigInput): RookeryConfig {
  const baseUrl = (input.baseUrl ?? `https://${input.domain}`).replace(/\/+$/, '');
  return {
    domain: input.domain,
    baseUrl,
    streamingUrl: input.streamingUrl === undefined ? null : input.streamingUrl,
    title: input.title ?? 'Rookery',
    description: input.description ?? 'A Mastodon-compatible server powered by Rookery.',
    contactEmail: input.contactEmail ?? '',
    limitedFederation: input.limitedFederation ?? false,
    registrations: {
      open: input.registrations?.open ?? true,
      approvalRequired: input.registrations?.approvalRequired ?? false,
      confirmationRequired: input.registrations?.confirmationRequired ?? false,
    },
    reservedUsernames: input.reservedUsernames ?? DEFAULT_RESERVED,
    limits: { ...defaultLimits, ...input.limits },
    refreshTokens: input.refreshTokens ?? false,
  };
}
