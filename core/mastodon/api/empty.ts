// Features Rookery does not have (yet), answered the way Mastodon answers when there is
// nothing to show, so that clients calling them at start-up or on common screens never see an
// error. A plugin that implements one takes the path over (plugin endpoints come first).

import type { AppCore } from '../context.ts';
import { json, type AuthRule, type Endpoint } from '../endpoint/types.ts';

function empty(path: string, auth: AuthRule, scopes: string[], body: unknown = []): Endpoint {
  return { method: 'GET', path, auth, scopes, handle: async () => json(body) };
}

/** Mastodon 4.3's notification policy: everything accepted, nothing pending. */
const ACCEPT_ALL_POLICY = {
  for_not_following: 'accept',
  for_not_followers: 'accept',
  for_new_accounts: 'accept',
  for_private_mentions: 'accept',
  for_limited_accounts: 'accept',
  summary: { pending_requests_count: 0, pending_notifications_count: 0 },
};

const V1_POLICY = {
  filter_not_following: false,
  filter_not_followers: false,
  filter_new_accounts: false,
  filter_private_mentions: false,
  summary: { pending_requests_count: 0, pending_notifications_count: 0 },
};

export function emptyEndpoints(_core: AppCore): Endpoint[] {
  const READ = ['read'];
  return [
    empty('/api/v1/custom_emojis', 'public', []),
    empty('/api/v1/trends', 'optional', []),
    empty('/api/v1/trends/tags', 'optional', []),
    empty('/api/v1/trends/statuses', 'optional', []),
    empty('/api/v1/trends/links', 'optional', []),
    empty('/api/v1/directory', 'optional', []),
    empty('/api/v1/announcements', 'user', READ),
    empty('/api/v1/suggestions', 'user', READ),
    empty('/api/v2/suggestions', 'user', READ),
    empty('/api/v1/conversations', 'user', ['read', 'read:statuses']),
    empty('/api/v1/followed_tags', 'user', ['read', 'read:follows']),
    empty('/api/v1/featured_tags', 'user', ['read', 'read:accounts']),
    empty('/api/v1/featured_tags/suggestions', 'user', ['read', 'read:accounts']),
    empty('/api/v1/endorsements', 'user', ['read', 'read:accounts']),
    empty('/api/v1/scheduled_statuses', 'user', ['read', 'read:statuses']),
    empty('/api/v1/notifications/requests', 'user', ['read', 'read:notifications']),
    empty('/api/v1/notifications/policy', 'user', ['read', 'read:notifications'], V1_POLICY),
    empty('/api/v2/notifications/policy', 'user', ['read', 'read:notifications'], ACCEPT_ALL_POLICY),
  ];
}
