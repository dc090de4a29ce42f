// Mastodon's stream channel names (ARCHITECTURE.md, Streaming). Home timeline events and
// notifications of one account share timeline:<accountId>. One control channel carries what
// live streams need to know about their own connections (a token revoked, an account disabled,
// what an account hides changed); its messages name the token or account they concern, so a
// process listens to it once instead of once per connection.

import type { Id } from '../model.ts';

export const channels = {
  public: 'timeline:public',
  publicLocal: 'timeline:public:local',
  publicRemote: 'timeline:public:remote',
  publicMedia: 'timeline:public:media',
  publicLocalMedia: 'timeline:public:local:media',
  publicRemoteMedia: 'timeline:public:remote:media',
  hashtag: (tag: string) => `timeline:hashtag:${tag}`,
  hashtagLocal: (tag: string) => `timeline:hashtag:${tag}:local`,
  user: (accountId: Id) => `timeline:${accountId}`,
  list: (listId: Id) => `timeline:list:${listId}`,
  direct: (accountId: Id) => `timeline:direct:${accountId}`,
  control: 'timeline:system',
} as const;

/** The payload of a control message: whom it concerns. */
export const controlTarget = {
  account: (accountId: Id) => `account:${accountId}`,
  token: (tokenId: Id) => `token:${tokenId}`,
} as const;
