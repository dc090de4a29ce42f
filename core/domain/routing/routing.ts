// Which stream channels a status goes to, and for whom it is rendered there. Pure: the
// audience (followers, lists, …) is read beforehand by events/audience.ts.

import type { Follow, Id, List, Status } from '../model.ts';
import { showsInHome, showsInList } from '../feeds.ts';
import { isHashtagTimelineStatus, isPublicTimelineStatus } from '../policy.ts';
import { channels } from './channels.ts';

export interface Audience {
  /** The author (or booster) is local: their own home stream gets their statuses. */
  authorIsLocal: boolean;
  /** Moderators suspended the author: the status goes nowhere (a delete still does). */
  authorSuspended?: boolean;
  /** Moderators silenced the author: not on the public and hashtag channels. */
  authorSilenced?: boolean;
  /** Local follows of the author (or booster). */
  followers: readonly Follow[];
  /** Lists that contain the author (or booster). */
  lists: readonly List[];
  /** Local accounts following the account replied to, when replying to someone else. */
  replyTargetFollowerIds: ReadonlySet<Id>;
  /** Ids of the lists that contain the account replied to. */
  listsWithReplyTarget: ReadonlySet<Id>;
  /** Mentioned accounts that are local. */
  localMentionIds: readonly Id[];
  /** Local accounts following one of the status's hashtags (read for public non-boosts only). */
  tagFollowerIds: readonly Id[];
}

export interface Route {
  channel: string;
  /** The account the payload is rendered for; null renders it anonymously (public channels). */
  viewerId: Id | null;
}

export type RouteKind = 'update' | 'status.update' | 'delete';

/**
 * Routes a status (or a boost) to the channels that show it:
 * - public channels: public statuses that are neither boosts nor replies to someone else
 *   (local or remote, and media variants, as they apply), rendered anonymously;
 * - hashtag channels: public non-boost statuses, replies included;
 * - home (timeline:<id>): the author and their local followers, for every visibility but
 *   direct, under the home feed rules of feeds.ts (replies, hidden boosts, languages); and the
 *   followers of its hashtags when it is public and not a boost (feeds.ts, showsByFollowedTag);
 * - lists containing the author whose owner follows the author, under the list's replies policy;
 * - direct channels: the author and the local mentioned accounts of a direct status.
 * `delete` goes wherever the status could have gone, without the feed rules;
 * `status.update` also reaches the home streams of local mentioned accounts.
 */
export function routeStatus(status: Status, audience: Audience, kind: RouteKind): Route[] {
  const routes: Route[] = [];
  const seen = new Set<string>();
  const add = (channel: string, viewerId: Id | null) => {
    if (seen.has(channel)) return;
    seen.add(channel);
    routes.push({ channel, viewerId });
  };
  // A delete goes wherever the status could have gone, so the feed rules do not hold it back.
  const filterFeeds = kind !== 'delete';
  if (filterFeeds && audience.authorSuspended === true) return routes;
  const onPublicChannels = !filterFeeds || audience.authorSilenced !== true;

  if (status.visibility === 'direct') {
    if (audience.authorIsLocal) add(channels.direct(status.accountId), status.accountId);
    for (const id of audience.localMentionIds) add(channels.direct(id), id);
    return routes;
  }

  if (onPublicChannels && isPublicTimelineStatus(status)) {
    add(channels.public, null);
    add(status.local ? channels.publicLocal : channels.publicRemote, null);
    if (status.mediaIds.length > 0) {
      add(channels.publicMedia, null);
      add(status.local ? channels.publicLocalMedia : channels.publicRemoteMedia, null);
    }
  }
  if (onPublicChannels && isHashtagTimelineStatus(status)) {
    for (const tag of status.tags) {
      add(channels.hashtag(tag), null);
      if (status.local) add(channels.hashtagLocal(tag), null);
    }
  }

  if (audience.authorIsLocal) add(channels.user(status.accountId), status.accountId);
  const followerIds = new Set<Id>();
  for (const follow of audience.followers) {
    followerIds.add(follow.accountId);
    if (filterFeeds && !showsInHome(status, follow.accountId, follow, audience.replyTargetFollowerIds.has(follow.accountId))) continue;
    add(channels.user(follow.accountId), follow.accountId);
  }
  if (isHashtagTimelineStatus(status)) {
    for (const id of audience.tagFollowerIds) if (id !== status.accountId) add(channels.user(id), id);
  }
  if (kind === 'status.update') {
    for (const id of audience.localMentionIds) add(channels.user(id), id);
  }

  for (const list of audience.lists) {
    if (!followerIds.has(list.accountId)) continue; // list members must be followed by the owner
    const ownerFollowsTarget = audience.replyTargetFollowerIds.has(list.accountId);
    if (filterFeeds && !showsInList(status, list, audience.listsWithReplyTarget.has(list.id), ownerFollowsTarget)) continue;
    add(channels.list(list.id), list.accountId);
  }
  return routes;
}
