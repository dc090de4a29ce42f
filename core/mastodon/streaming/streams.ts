// Stream names and what they mean (docs/behaviour.md, "Streaming"): the channels a stream reads,
// the scopes it needs, the filter context its statuses are checked in, and the exact errors.
// Pure: list ownership, the one check that needs the store, is the hub's.

import { channels } from '../../domain/routing/channels.ts';
import type { Id } from '../../domain/model.ts';
import { satisfiesAny } from '../oauth/scopes.ts';
import { normalizeTag } from '../../domain/text/tags.ts';

export interface StreamRefusal {
  status: number;
  error: string;
}

export const streamTexts = {
  missingToken: 'Missing access token',
  invalidToken: 'Invalid access token',
  scopes: 'Access token does not have the required scopes',
  unknownChannel: 'Unknown channel requested',
  unknownStream: 'Unknown stream type',
  missingTag: 'Missing tag name parameter',
  missingList: 'Missing list name parameter',
  listNotOwned: 'Not authorized to stream this list',
  unsubscribe: 'Error unsubscribing from channel',
} as const;

/** Which of a subscriber's keyword filters apply: Mastodon's filter contexts. null: none. */
export type StreamContext = 'home' | 'public' | null;

export interface StreamParams {
  tag?: string | undefined;
  list?: string | undefined;
}

export interface ResolvedStream {
  name: string;
  /** The `stream` member of each WebSocket message: [name], or [name, tag|list] as sent. */
  key: string[];
  /** `key` as JSON, for caching frames per key. */
  keyJson: string;
  channels: string[];
  context: StreamContext;
  /** Status events are checked against the subscriber's blocks, mutes and filters. */
  filtersStatuses: boolean;
  /** Only these events (null: all the channels carry). */
  events: ReadonlySet<string> | null;
  /** A list stream: the hub checks that the subscriber owns it. */
  listId: Id | null;
}

const READ_STATUSES = ['read', 'read:statuses'];

/** Public and hashtag streams need only this of a token. */
export function readsStatuses(scopes: readonly string[]): boolean {
  return satisfiesAny(scopes, READ_STATUSES);
}
const READ_NOTIFICATIONS = ['read', 'read:notifications'];
const NOTIFICATIONS_ONLY: ReadonlySet<string> = new Set(['notification']);
const HOME_WITHOUT_NOTIFICATIONS: ReadonlySet<string> = new Set(['update', 'status.update', 'delete', 'filters_changed', 'conversation']);

const PUBLIC_STREAMS: Record<string, [string, boolean]> = {
  public: [channels.public, false],
  'public:media': [channels.publicMedia, false],
  'public:local': [channels.publicLocal, false],
  'public:local:media': [channels.publicLocalMedia, false],
  'public:remote': [channels.publicRemote, false],
  'public:remote:media': [channels.publicRemoteMedia, false],
};

/** Resolves a stream name for a subscriber, or the refusal to answer with. */
export function resolveStream(name: string, params: StreamParams, accountId: Id, scopes: readonly string[]): ResolvedStream | StreamRefusal {
  const base = { name, key: [name], keyJson: JSON.stringify([name]), context: 'public' as StreamContext, filtersStatuses: true, events: null, listId: null };
  const needs = (accepted: string[]): StreamRefusal | null => (satisfiesAny(scopes, accepted) ? null : { status: 401, error: streamTexts.scopes });
  switch (name) {
    case 'user':
      return (
        needs(READ_STATUSES) ?? {
          ...base,
          channels: [channels.user(accountId)],
          context: 'home',
          events: satisfiesAny(scopes, READ_NOTIFICATIONS) ? null : HOME_WITHOUT_NOTIFICATIONS,
        }
      );
    case 'user:notification':
      return needs(READ_NOTIFICATIONS) ?? { ...base, channels: [channels.user(accountId)], context: null, filtersStatuses: false, events: NOTIFICATIONS_ONLY };
    case 'direct':
      return needs(READ_STATUSES) ?? { ...base, channels: [channels.direct(accountId)], context: null };
    case 'hashtag':
    case 'hashtag:local': {
      const refused = needs(READ_STATUSES);
      if (refused) return refused;
      const tag = params.tag === undefined ? '' : normalizeTag(params.tag.replace(/^#/, ''));
      if (params.tag === undefined || params.tag === '' || tag === '') return { status: 400, error: streamTexts.missingTag };
      const key = [name, params.tag];
      return { ...base, key, keyJson: JSON.stringify(key), channels: [name === 'hashtag' ? channels.hashtag(tag) : channels.hashtagLocal(tag)] };
    }
    case 'list': {
      const refused = needs(READ_STATUSES);
      if (refused) return refused;
      if (params.list === undefined || params.list === '') return { status: 400, error: streamTexts.missingList };
      const key = [name, params.list];
      return { ...base, key, keyJson: JSON.stringify(key), channels: [channels.list(params.list)], context: 'home', listId: params.list };
    }
    default: {
      const known = PUBLIC_STREAMS[name];
      if (known === undefined) return { status: 400, error: streamTexts.unknownStream };
      return needs(READ_STATUSES) ?? { ...base, channels: [known[0]] };
    }
  }
}

/** Mastodon's boolean for only_media: anything but a false-looking value is true. */
function truthy(value: string | undefined): boolean {
  return value !== undefined && !['false', '0', 'f', 'F', 'FALSE', 'off', 'OFF'].includes(value);
}

/** The stream an SSE path names (/api/v1/streaming/<path>), or null for an unknown path. */
export function streamForPath(path: string, query: { only_media?: string | undefined }): string | null {
  const media = truthy(query.only_media) ? ':media' : '';
  switch (path.replace(/^\/api\/v1\/streaming\/?/, '').replace(/\/+$/, '')) {
    case 'user':
      return 'user';
    case 'user/notification':
      return 'user:notification';
    case 'public':
      return `public${media}`;
    case 'public/local':
      return `public:local${media}`;
    case 'public/remote':
      return `public:remote${media}`;
    case 'hashtag':
      return 'hashtag';
    case 'hashtag/local':
      return 'hashtag:local';
    case 'list':
      return 'list';
    case 'direct':
      return 'direct';
    default:
      return null;
  }
}

export function isRefusal(value: ResolvedStream | StreamRefusal): value is StreamRefusal {
  return 'error' in value;
}
