// Account → Mastodon JSON: the fields Mastodon clients read, with Mastodon's conventions.

import type { RookeryConfig } from '../config.ts';
import type { Account, User } from '../model.ts';
import { formatPlain, formatText } from '../text/index.ts';
import { acct, accountUri, accountUrl, MISSING_AVATAR_PATH, MISSING_HEADER_PATH, tagUrl } from '../urls.ts';
import { isoDay, isoOrNull } from './time.ts';

export interface AccountJson {
  id: string;
  username: string;
  acct: string;
  display_name: string;
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  indexable: boolean;
  group: boolean;
  created_at: string;
  note: string;
  url: string;
  uri: string;
  avatar: string;
  avatar_static: string;
  header: string;
  header_static: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
  last_status_at: string | null;
  hide_collections: boolean;
  noindex: boolean;
  emojis: never[];
  roles: never[];
  fields: { name: string; value: string; verified_at: string | null }[];
}

export interface CredentialAccountJson extends AccountJson {
  source: {
    privacy: string;
    sensitive: boolean;
    language: string | null;
    note: string;
    fields: { name: string; value: string; verified_at: string | null }[];
    follow_requests_count: number;
    hide_collections: boolean;
    discoverable: boolean;
    indexable: boolean;
    attribution_domains: never[];
  };
  role: { id: string; name: string; permissions: string; color: string; highlighted: boolean };
}

/** A bio: paragraphs, links and hashtags, everything else escaped. */
export function renderNote(config: RookeryConfig, note: string): string {
  return formatText(note, { resolveMention: () => null, tagUrl: (name) => tagUrl(config, name) });
}

export function renderAccount(config: RookeryConfig, account: Account): AccountJson {
  const avatar = account.avatarUrl ?? `${config.baseUrl}${MISSING_AVATAR_PATH}`;
  const header = account.headerUrl ?? `${config.baseUrl}${MISSING_HEADER_PATH}`;
  return {
    id: account.id,
    username: account.username,
    acct: acct(account),
    display_name: account.displayName,
    locked: account.locked,
    bot: account.bot,
    discoverable: account.discoverable,
    indexable: account.discoverable,
    group: false,
    created_at: isoDay(account.createdAt),
    // A remote account's bio and field values are stored as (sanitised) HTML already.
    note: account.domain === null ? renderNote(config, account.note) : account.note,
    url: accountUrl(config, account),
    uri: accountUri(config, account),
    avatar,
    avatar_static: avatar,
    header,
    header_static: header,
    followers_count: account.followersCount,
    following_count: account.followingCount,
    statuses_count: account.statusesCount,
    last_status_at: account.lastStatusAt === null ? null : isoDay(account.lastStatusAt),
    hide_collections: false,
    noindex: false,
    emojis: [],
    roles: [],
    fields: account.fields.map((field) => ({
      name: field.name,
      value: account.domain === null ? formatPlain(field.value, { relMe: true, multiline: false }) : field.value,
      verified_at: isoOrNull(field.verifiedAt),
    })),
  };
}

/** verify_credentials: the account plus its editable source and role. */
export function renderCredentialAccount(
  config: RookeryConfig,
  account: Account,
  user: User,
  followRequestsCount: number,
): CredentialAccountJson {
  return {
    ...renderAccount(config, account),
    source: {
      privacy: user.settings.defaultVisibility,
      sensitive: user.settings.defaultSensitive,
      language: user.settings.defaultLanguage,
      note: account.note,
      fields: account.fields.map((field) => ({ name: field.name, value: field.value, verified_at: isoOrNull(field.verifiedAt) })),
      follow_requests_count: followRequestsCount,
      hide_collections: false,
      discoverable: account.discoverable,
      indexable: account.discoverable,
      attribution_domains: [],
    },
    role: { id: '-99', name: '', permissions: '65536', color: '', highlighted: false },
  };
}


