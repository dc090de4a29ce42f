// Mastodon's stream channel names (ARCHITECTURE.md, Streaming). Home timeline events and
// notifications of one account share timeline:<accountId>.

import type { Id } from '../model.ts';

export const channels = {
  public: 'timeline:public',
  publicLocal: 'timeline:public:local',
  publicMedia: 'timeline:public:media',
  publicLocalMedia: 'timeline:public:local:media',
  hashtag: (tag: string) => `timeline:hashtag:${tag}`,
  hashtagLocal: (tag: string) => `timeline:hashtag:${tag}:local`,
  user: (accountId: Id) => `timeline:${accountId}`,
  list: (listId: Id) => `timeline:list:${listId}`,
  direct: (accountId: Id) => `timeline:direct:${accountId}`,
} as const;
