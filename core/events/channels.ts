// Mastodon's stream channel names (ARCHITECTURE.md, Streaming). Home timeline events and
// notifications of one account share timeline:<accountId>; the system and access-token
// channels carry what live streams need to know about their own connection (kill, state).

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
  system: (accountId: Id) => `timeline:system:${accountId}`,
  accessToken: (tokenId: Id) => `timeline:access_token:${tokenId}`,
} as const;
