// Which statuses a reader's home feed and lists show, in one place for both the timelines read
// from storage and the stream routing of new statuses: the home feed rules, the lists' replies
// policies and the home feed's de-duplication of boosts (docs/behaviour.md, "Home feed").

import type { Follow, Id, List, Status } from './model.ts';
import { isHashtagTimelineStatus } from './policy.ts';

/** How many entries of the home feed just before a boost are looked at for its original or
 * another boost of it (docs/behaviour.md, "Home feed"). */
export const BOOST_WINDOW = 40;

/**
 * Whether a boost repeats what the reader has just seen: its original, or another boost of the
 * same original, is among `before`, the home feed's entries just older than the boost (newest
 * first; only the first BOOST_WINDOW count). Such a boost is left out of the home timeline and
 * its stream. `before` are entries as the feed rules make them, before this de-duplication:
 * so whether a boost shows depends on a fixed number of entries before it and never on how far
 * back a reader pages.
 */
export function repeatsRecentEntry(boost: Pick<Status, 'id' | 'reblogOfId'>, before: readonly Pick<Status, 'id' | 'reblogOfId'>[]): boolean {
  const originalId = boost.reblogOfId;
  if (originalId === null) return false;
  for (const entry of before.slice(0, BOOST_WINDOW)) {
    if (entry.id === boost.id) continue;
    if (entry.id === originalId || entry.reblogOfId === originalId) return true;
  }
  return false;
}

/**
 * Whether a status belongs in `readerId`'s home feed, given the reader's follow of its author
 * (null when the reader is the author) and whether the reader follows the account it replies to:
 * - the reader's own statuses always do;
 * - not when the follow asked for other languages;
 * - a boost not when the reader hides that account's boosts;
 * - a reply to someone else only when the reader follows, or is, that someone.
 */
export function showsInHome(status: Status, readerId: Id, authorFollow: Follow | null, followsReplyTarget: boolean): boolean {
  if (status.accountId === readerId) return true;
  const languages = authorFollow?.languages ?? null;
  if (languages !== null && languages.length > 0 && status.language !== null && !languages.includes(status.language)) return false;
  if (status.reblogOfId !== null) return authorFollow?.showReblogs ?? true;
  const replyTarget = status.inReplyToAccountId;
  if (replyTarget === null || replyTarget === status.accountId) return true;
  return replyTarget === readerId || followsReplyTarget;
}

/** A list's replies policy for a status of one of its members: a reply to someone else shows
 * under `list` when that someone is in the list, under `followed` when the owner follows them
 * (or is them), never under `none`. */
export function showsInList(status: Pick<Status, 'accountId' | 'inReplyToAccountId'>, list: List, replyTargetInList: boolean, ownerFollowsReplyTarget: boolean): boolean {
  const replyTarget = status.inReplyToAccountId;
  if (replyTarget === null || replyTarget === status.accountId) return true;
  switch (list.repliesPolicy) {
    case 'none':
      return false;
    case 'list':
      return replyTargetInList;
    case 'followed':
      return replyTarget === list.accountId || ownerFollowsReplyTarget;
  }
}

/** A status that reaches a reader's home feed through a hashtag they follow (Mastodon's
 * FeedManager for tag follows): public, not a boost, carrying one of `followedTags`, whoever
 * wrote it and whomever it replies to. Blocks and mutes of its author or of an account it
 * mentions keep it out (applied where the reader's relationships are known). */
export function showsByFollowedTag(status: Status, followedTags: ReadonlySet<string>): boolean {
  return followedTags.size > 0 && isHashtagTimelineStatus(status) && status.tags.some((tag) => followedTags.has(tag));
}
