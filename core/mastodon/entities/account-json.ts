// The JSON shape of an Account, apart from its renderer so that the plugin hooks that fill
// parts of it (hooks.ts) can name it without a cycle.

import type { CustomEmojiJson } from './emoji.ts';

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
  emojis: CustomEmojiJson[];
  roles: { id: string; name: string; color: string }[];
  fields: { name: string; value: string; verified_at: string | null }[];
  /** Present (true) only for a suspended account, whose profile is then blanked. */
  suspended?: true;
  /** Present (true) only for a silenced account. */
  limited?: true;
  /** The account it moved to (present only when it moved, as Mastodon's). */
  moved?: AccountJson;
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
    quote_policy: string;
  };
  role: { id: string; name: string; permissions: string; color: string; highlighted: boolean };
}
