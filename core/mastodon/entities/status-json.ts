// The JSON shapes of a Status and of a StatusEdit, apart from their renderers so
// that the plugin hooks that fill parts of them (hooks.ts) can name them without a cycle.

import type { AccountJson } from './account-json.ts';
import type { CustomEmojiJson } from './emoji.ts';
import type { FilterResultJson } from './filter.ts';
import type { MediaJson, PollJson, CardJson } from './media.ts';

export interface StatusJson {
  id: string;
  created_at: string;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  sensitive: boolean;
  spoiler_text: string;
  visibility: string;
  language: string | null;
  uri: string;
  url: string;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  edited_at: string | null;
  favourited?: boolean;
  reblogged?: boolean;
  muted?: boolean;
  bookmarked?: boolean;
  pinned?: boolean;
  filtered?: FilterResultJson[];
  content?: string;
  text?: string;
  reblog: StatusJson | null;
  application: { name: string; website: string | null } | null;
  account: AccountJson;
  media_attachments: MediaJson[];
  mentions: { id: string; username: string; url: string; acct: string }[];
  tags: { name: string; url: string }[];
  emojis: CustomEmojiJson[];
  card: CardJson | null;
  poll: PollJson | null;
  /** Mastodon 4.5's quote posts (present/quote.ts). */
  quotes_count?: number;
  quote?: { state: string; quoted_status: StatusJson | null } | { state: string; quoted_status_id: string | null } | null;
  quote_approval?: { automatic: string[]; manual: string[]; current_user: string };
}

export interface StatusEditJson {
  content: string;
  spoiler_text: string;
  sensitive: boolean;
  created_at: string;
  account: AccountJson;
  poll: { options: { title: string }[] } | null;
  media_attachments: MediaJson[];
  emojis: CustomEmojiJson[];
}
