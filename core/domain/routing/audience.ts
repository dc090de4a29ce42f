// Reads the audience of a status for routing.ts.

import type { Core } from '../context.ts';
import type { Id, Status } from '../model.ts';
import { isHashtagTimelineStatus, isSilenced, isSuspended } from '../policy.ts';
import type { Audience } from './routing.ts';

export async function audienceOf(core: Core, status: Status): Promise<Audience> {
  const { storage } = core;
  const author = await storage.accounts.get(status.accountId);
  const replyTarget =
    status.inReplyToAccountId !== null && status.inReplyToAccountId !== status.accountId ? status.inReplyToAccountId : null;
  const byTags = isHashtagTimelineStatus(status) && status.tags.length > 0;
  const [followers, lists, replyTargetFollowers, listsWithReplyTarget, mentioned, tagFollowerIds] = await Promise.all([
    storage.relationships.localFollowers(status.accountId),
    storage.lists.listsContaining(status.accountId),
    replyTarget === null ? Promise.resolve([]) : storage.relationships.localFollowers(replyTarget),
    replyTarget === null ? Promise.resolve([]) : storage.lists.listsContaining(replyTarget),
    storage.accounts.getMany(status.mentionIds),
    byTags ? storage.tags.followersOf(status.tags) : Promise.resolve([]),
  ]);
  return {
    authorIsLocal: author !== null && author.domain === null,
    authorSuspended: author !== null && isSuspended(author),
    authorSilenced: author !== null && isSilenced(author),
    followers,
    lists,
    replyTargetFollowerIds: new Set<Id>(replyTargetFollowers.map((f) => f.accountId)),
    listsWithReplyTarget: new Set<Id>(listsWithReplyTarget.map((l) => l.id)),
    localMentionIds: mentioned.filter((a) => a.domain === null).map((a) => a.id),
    tagFollowerIds,
  };
}
