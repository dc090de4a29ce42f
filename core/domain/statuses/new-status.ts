import type { Core } from '../context.ts';
import type { Account, Status } from '../model.ts';

/** What a caller must decide about a new status; everything else starts empty. */
export type StatusFields = Pick<Status, 'visibility' | 'conversationId' | 'applicationId'> & Partial<Status>;

/** A new local status (or boost) by `author`, fresh counters, created now. */
export function newStatus(core: Core, author: Account, fields: StatusFields & { id: Status['id'] }): Status {
  return {
    accountId: author.id,
    local: author.domain === null,
    uri: null,
    url: null,
    text: '',
    content: '',
    spoilerText: '',
    sensitive: false,
    language: null,
    inReplyToId: null,
    inReplyToAccountId: null,
    reblogOfId: null,
    mentionIds: [],
    tags: [],
    mediaIds: [],
    pollId: null,
    createdAt: core.clock.now(),
    editedAt: null,
    deletedAt: null,
    repliesCount: 0,
    reblogsCount: 0,
    favouritesCount: 0,
    ...fields,
  };
}
