// FeaturedTag: id, name (as featured), url (the account's posts with the tag), statuses_count
// (a string, as Mastodon serializes it) and last_status_at (a date, or null).

import type { RookeryConfig } from '../../domain/config.ts';
import type { Account } from '../../domain/model.ts';
import type { FeaturedTagView } from '../../domain/tags/featured.ts';
import { acct } from '../../domain/urls.ts';

export interface FeaturedTagJson {
  id: string;
  name: string;
  url: string;
  statuses_count: string;
  last_status_at: string | null;
}

export function renderFeaturedTag(config: RookeryConfig, account: Account, featured: FeaturedTagView): FeaturedTagJson {
  return {
    id: featured.id,
    name: featured.name,
    url: `${config.baseUrl}/@${acct(account)}/tagged/${encodeURIComponent(featured.tag)}`,
    statuses_count: String(featured.statusesCount),
    last_status_at: featured.lastStatusAt === null ? null : new Date(featured.lastStatusAt).toISOString().slice(0, 10),
  };
}
