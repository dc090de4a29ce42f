// The feature plugins shipped with Rookery, each also importable alone (rookery/plugins/media …).

export { cardsPlugin, cardStorage, nodeFetcher, FetchRefused, type CardsPluginOptions, type PageFetcher, type FetchedPage, type FetcherOptions } from './cards/index.ts';
export { emojiPlugin, emojiStorage, type LocalEmoji } from './emoji/index.ts';
export { frontPlugin, SIGN_UP_PATH, type FrontPluginOptions } from './front/index.ts';
export { mediaPlugin, mediaStorage, diskMediaStore, memoryMediaStore, type MediaPluginOptions, type MediaStore, type StoredFile } from './media/index.ts';
export { pollsPlugin, pollStorage } from './polls/index.ts';
export { pushPlugin, pushStorage, nodePushTransport, type PushPluginOptions, type PushTransport } from './push/index.ts';
export { scheduledPlugin, scheduledStorage } from './scheduled/index.ts';
export { federationPlugin, type FederationPluginOptions } from './federation/index.ts';
