// Account → Mastodon JSON: the fields Mastodon clients read, with Mastodon's conventions.

import { computedPermissions, roleOf } from '../../domain/moderation/roles.ts';
import { isSilenced, isSuspended } from '../../domain/policy.ts';
import type { RookeryConfig } from '../../domain/config.ts';
import type { Account, User } from '../../domain/model.ts';
import { formatPlain, formatText } from '../../domain/text/index.ts';
import { acct, accountUri, accountUrl, MISSING_AVATAR_PATH, MISSING_HEADER_PATH, tagUrl } from '../../domain/urls.ts';
import type { AccountJson, CredentialAccountJson } from '../entities/account-json.ts';
import type { BoundAccountDecorator } from '../context.ts';
import { isoDay, isoOrNull } from '../entities/time.ts';

export type { AccountJson, CredentialAccountJson } from '../entities/account-json.ts';

/** A plugin's account decorator with what it loaded for one presentation call. */
export interface LoadedAccountDecorator {
  decorator: BoundAccountDecorator;
  loaded: unknown;
}

/** What is applied when no plugin decorates accounts: one shared empty list, nothing made. */
export const NO_ACCOUNT_DECORATORS: readonly LoadedAccountDecorator[] = Object.freeze([]);

/** A bio: paragraphs, links and hashtags, everything else escaped. */
export function renderNote(config: RookeryConfig, note: string): string {
  return formatText(note, { resolveMention: () => null, tagUrl: (name) => tagUrl(config, name) });
}

/** `decorators`: the plugins' parts (the emojis of a remote account), loaded for the whole
 * presentation call by loadAccountDecorators (present/load.ts). */
export function renderAccount(config: RookeryConfig, account: Account, decorators: readonly LoadedAccountDecorator[] = NO_ACCOUNT_DECORATORS): AccountJson {
  const avatar = account.avatarUrl ?? `${config.baseUrl}${MISSING_AVATAR_PATH}`;
  const header = account.headerUrl ?? `${config.baseUrl}${MISSING_HEADER_PATH}`;
  const json: AccountJson = {
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
    roles: account.domain === null ? renderAccountRoles(account.role) : [],
    fields: account.fields.map((field) => ({
      name: field.name,
      value: account.domain === null ? formatPlain(field.value, { relMe: true, multiline: false }) : field.value,
      verified_at: isoOrNull(field.verifiedAt),
    })),
  };
  // An index loop: no iterator made per account when, as usual, there is nothing to apply.
  for (let i = 0; i < decorators.length; i++) {
    const entry = decorators[i] as LoadedAccountDecorator;
    entry.decorator.render(account, entry.loaded, json);
  }
  if (isSuspended(account)) blankSuspended(config, json);
  if (isSilenced(account)) json.limited = true;
  return json;
}

/** A suspended account shows nothing of its own (Mastodon's serializer): no name, bio, fields,
 * emojis or images, and `suspended: true`. */
function blankSuspended(config: RookeryConfig, json: AccountJson): void {
  const avatar = `${config.baseUrl}${MISSING_AVATAR_PATH}`;
  const header = `${config.baseUrl}${MISSING_HEADER_PATH}`;
  json.display_name = '';
  json.note = '';
  json.locked = false;
  json.bot = false;
  json.discoverable = false;
  json.indexable = false;
  json.avatar = avatar;
  json.avatar_static = avatar;
  json.header = header;
  json.header_static = header;
  json.emojis = [];
  json.fields = [];
  json.suspended = true;
}

/** verify_credentials: the account plus its editable source and role. */
export function renderCredentialAccount(
  config: RookeryConfig,
  account: Account,
  user: User,
  followRequestsCount: number,
  decorators: readonly LoadedAccountDecorator[] = NO_ACCOUNT_DECORATORS,
): CredentialAccountJson {
  return {
    ...renderAccount(config, account, decorators),
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
      quote_policy: user.settings.defaultQuotePolicy ?? 'public',
    },
    role: renderRole(account.role),
  };
}

/** Mastodon's Role entity: what a role may do, as the decimal string of its bits. */
export function renderRole(roleName: string | null): RoleJson {
  const role = roleOf(roleName);
  return { id: role.id, name: role.name, permissions: String(computedPermissions(role)), color: role.color, highlighted: role.highlighted };
}

export interface RoleJson {
  id: string;
  name: string;
  permissions: string;
  color: string;
  highlighted: boolean;
}

/** An account's `roles`: the highlighted role of a local user, which clients show as a badge. */
function renderAccountRoles(roleName: string | null): { id: string; name: string; color: string }[] {
  const role = roleOf(roleName);
  return role.highlighted ? [{ id: role.id, name: role.name, color: role.color }] : [];
}


