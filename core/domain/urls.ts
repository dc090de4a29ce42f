// Public URLs of local things, derived from the configured base URL (Mastodon's layout).

import type { RookeryConfig } from './config.ts';
import type { Account, Status } from './model.ts';

export function accountUrl(config: RookeryConfig, account: Account): string {
  return account.url ?? `${config.baseUrl}/@${account.username}`;
}

export function accountUri(config: RookeryConfig, account: Account): string {
  return account.uri ?? `${config.baseUrl}/users/${account.username}`;
}

/** acct: the username alone for local accounts, username@domain for remote ones. */
export function acct(account: Account): string {
  return account.domain === null ? account.username : `${account.username}@${account.domain}`;
}

export function statusUri(config: RookeryConfig, status: Status, author: Account): string {
  if (status.uri !== null) return status.uri;
  const base = `${accountUri(config, author)}/statuses/${status.id}`;
  return status.reblogOfId === null ? base : `${base}/activity`;
}

export function statusUrl(config: RookeryConfig, status: Status, author: Account): string {
  return status.url ?? `${accountUrl(config, author)}/${status.id}`;
}

export function tagUrl(config: RookeryConfig, name: string): string {
  return `${config.baseUrl}/tags/${encodeURIComponent(name)}`;
}

/** Mastodon's placeholder images, which the HTTP adapters serve. */
export const MISSING_AVATAR_PATH = '/avatars/original/missing.png';
export const MISSING_HEADER_PATH = '/headers/original/missing.png';
