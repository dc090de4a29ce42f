// Which statuses a reader's home feed and lists show: Mastodon's feed rules
// (FeedManager#filter_from_home / filter_from_list), in one place for both the timelines
// read from storage and the stream routing of new statuses.

import type { Follow, Id, List, Status } from './model.ts';

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
