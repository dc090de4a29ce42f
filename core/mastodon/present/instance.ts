// Instance information, v2 (read first by current clients) and v1 (older ones), with the
// fields clients read. Limits come from the configuration; media and poll limits are stated by
// the plugins that enforce them, and without such a plugin the instance says that it takes none
// (a client then offers no upload or poll, which the core would refuse with a 422 anyway).

import { MASTODON_COMPATIBLE_VERSION, ROOKERY_VERSION, type RookeryConfig } from '../../domain/config.ts';
import { PROFILE_LIMITS } from '../../domain/accounts/profile.ts';
import { MISSING_HEADER_PATH } from '../../domain/urls.ts';

export interface InstanceStats {
  userCount: number;
  statusCount: number;
}

/** No media plugin: no type is accepted and no size is. */
const NO_MEDIA = {
  supported_mime_types: [] as string[],
  description_limit: 0,
  image_size_limit: 0,
  image_matrix_limit: 0,
  video_size_limit: 0,
  video_frame_rate_limit: 0,
  video_matrix_limit: 0,
};

/** No polls plugin: no poll can be made. */
const NO_POLLS = { max_options: 0, max_characters_per_option: 0, min_expiration: 0, max_expiration: 0 };

/** Where clients open streams: the configured URL, else the web origin with ws(s). */
export function streamingUrlOf(config: RookeryConfig): string {
  return config.streamingUrl ?? config.baseUrl.replace(/^http/, 'ws');
}

/** The status, media and poll limits; a plugin that enforces a part states its own values. */
function statusLimits(config: RookeryConfig, plugins: Readonly<Record<string, unknown>>) {
  const limits = config.limits;
  const media = plugins['media_attachments'] as typeof NO_MEDIA | undefined;
  return {
    statuses: {
      max_characters: limits.maxCharacters,
      // The media plugin enforces limits.maxMediaAttachments; without it there are none.
      max_media_attachments: media === undefined ? 0 : limits.maxMediaAttachments,
      characters_reserved_per_url: limits.charactersReservedPerUrl,
    },
    media_attachments: media ?? NO_MEDIA,
    polls: (plugins['polls'] ?? NO_POLLS) as typeof NO_POLLS,
  };
}

function accountLimits(config: RookeryConfig) {
  return {
    max_featured_tags: 10,
    max_pinned_statuses: config.limits.maxPinnedStatuses,
    max_profile_fields: PROFILE_LIMITS.fields,
    profile_field_name_limit: PROFILE_LIMITS.fieldName,
    profile_field_value_limit: PROFILE_LIMITS.fieldValue,
  };
}

const thumbnailOf = (config: RookeryConfig) => `${config.baseUrl}${MISSING_HEADER_PATH}`;

/** The Rule entity of each configured rule, ids counting from 1 in the configured order. */
export function renderRules(config: RookeryConfig): { id: string; text: string; hint: string }[] {
  return config.rules.map((text, i) => ({ id: String(i + 1), text, hint: '' }));
}

export function renderInstanceV2(config: RookeryConfig, stats: InstanceStats, plugins: Readonly<Record<string, unknown>> = {}) {
  return {
    domain: config.domain,
    title: config.title,
    version: MASTODON_COMPATIBLE_VERSION,
    source_url: '',
    description: config.description,
    usage: { users: { active_month: stats.userCount } },
    thumbnail: { url: thumbnailOf(config), blurhash: null, versions: {} },
    icon: [],
    languages: ['en'],
    configuration: {
      urls: { streaming: streamingUrlOf(config), status: null, about: null, privacy_policy: null, terms_of_service: null },
      // A push plugin states its public key; without one, none.
      vapid: (plugins['vapid'] ?? { public_key: '' }) as { public_key: string },
      accounts: accountLimits(config),
      ...statusLimits(config, plugins),
      translation: { enabled: false },
      limited_federation: config.limitedFederation,
    },
    registrations: {
      enabled: config.registrations.open,
      approval_required: config.registrations.approvalRequired,
      reason_required: false,
      message: null,
      min_age: null,
      url: null,
    },
    // Mastodon 4.5's: version 7 is quote posts (clients offer quoting from it on).
    api_versions: { mastodon: 7 },
    contact: { email: config.contactEmail, account: null },
    rules: renderRules(config),
  };
}

export function renderInstanceV1(config: RookeryConfig, stats: InstanceStats, plugins: Readonly<Record<string, unknown>> = {}) {
  return {
    uri: config.domain,
    title: config.title,
    short_description: config.description,
    description: config.description,
    email: config.contactEmail,
    version: MASTODON_COMPATIBLE_VERSION,
    urls: { streaming_api: streamingUrlOf(config) },
    stats: { user_count: stats.userCount, status_count: stats.statusCount, domain_count: 0 },
    thumbnail: thumbnailOf(config),
    languages: ['en'],
    registrations: config.registrations.open,
    approval_required: config.registrations.approvalRequired,
    invites_enabled: false,
    configuration: { accounts: accountLimits(config), ...statusLimits(config, plugins) },
    contact_account: null,
    rules: renderRules(config),
  };
}

/** Users who posted within the last 30 and 180 days (NodeInfo's activeMonth, activeHalfyear). */
export interface ActiveUsers {
  month: number;
  halfyear: number;
}

/** NodeInfo 2.0 or 2.1 (which adds the software's repository and homepage). The software is
 * Rookery; `metadata.upstream` names Mastodon, which is how megalodon-based clients (its
 * detector) recognise a Mastodon-compatible server. */
export function renderNodeInfo(config: RookeryConfig, stats: InstanceStats, active: ActiveUsers, version: '2.0' | '2.1' = '2.0') {
  return {
    version,
    software: version === '2.0' ? { name: 'rookery', version: ROOKERY_VERSION } : { name: 'rookery', version: ROOKERY_VERSION, homepage: config.baseUrl },
    protocols: ['activitypub'],
    services: { outbound: [], inbound: [] },
    usage: {
      users: { total: stats.userCount, activeMonth: active.month, activeHalfyear: active.halfyear },
      localPosts: stats.statusCount,
    },
    openRegistrations: config.registrations.open,
    metadata: { nodeName: config.title, nodeDescription: config.description, upstream: { name: 'mastodon', version: MASTODON_COMPATIBLE_VERSION.split(' ')[0] } },
  };
}
