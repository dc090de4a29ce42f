// The Conversation entity: id, unread, the other participants (the owner alone for notes to
// oneself, as Mastodon shows them) and the last status, rendered for the owner; a last status
// the owner can no longer see (policy.ts) is null.

import type { AppCore } from '../context.ts';
import type { Account, AccountConversation } from '../../domain/model.ts';
import { filterVisible } from '../../domain/viewer.ts';
import type { AccountJson } from './account.ts';
import { presentAccounts, presentStatuses } from './load.ts';
import type { StatusJson } from './status.ts';

export interface ConversationJson {
  id: string;
  unread: boolean;
  accounts: AccountJson[];
  last_status: StatusJson | null;
}

export async function presentConversations(core: AppCore, conversations: readonly AccountConversation[], viewer: Account): Promise<ConversationJson[]> {
  if (conversations.length === 0) return [];
  const statuses = await filterVisible(core, viewer, await core.storage.statuses.getMany([...new Set(conversations.map((c) => c.lastStatusId))]));
  const statusJson = new Map((await presentStatuses(core, statuses, viewer)).map((s) => [s.id, s]));
  const participantIds = [...new Set([viewer.id, ...conversations.flatMap((c) => c.participantIds)])];
  const accounts = new Map((await presentAccounts(core, participantIds)).map((a) => [a.id, a]));
  return conversations.map((c) => {
    const others = c.participantIds.flatMap((id) => accounts.get(id) ?? []);
    const self = accounts.get(viewer.id);
    return {
      id: c.id,
      unread: c.unread,
      accounts: others.length > 0 || self === undefined ? others : [self],
      last_status: statusJson.get(c.lastStatusId) ?? null,
    };
  });
}
