// Features Rookery does not have (yet), answered the way Mastodon answers when there is
// nothing to show, so that clients calling them at start-up or on common screens never see an
// error. A plugin that implements one takes the path over (plugin endpoints come first).

import type { AppCore } from '../context.ts';
import { json, type AuthRule, type Endpoint } from '../endpoint/types.ts';

function empty(path: string, auth: AuthRule, scopes: string[], body: unknown = []): Endpoint {
  return { method: 'GET', path, auth, scopes, handle: async () => json(body) };
}

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
    empty('/api/v1/followed_tags', 'user', ['read', 'read:follows']),
    empty('/api/v1/featured_tags', 'user', ['read', 'read:accounts']),
    empty('/api/v1/featured_tags/suggestions', 'user', ['read', 'read:accounts']),
    empty('/api/v1/endorsements', 'user', ['read', 'read:accounts']),
    empty('/api/v1/scheduled_statuses', 'user', ['read', 'read:statuses']),
  ];
}
