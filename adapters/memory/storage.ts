// Storage in memory (tests, demos). Every operation runs synchronously inside its async
// function, so each one is atomic with respect to every other; objects are cloned on the way in
// and on the way out, so callers never share state with the store.
//
// One file per repository, all over one MemoryState (state.ts). A repository method must not
// await between its first read and its last write, or the guarantee above is lost.

import type { Storage } from '../../core/ports/storage.ts';
import { accountRepository } from './accounts.ts';
import { cardRepository } from './cards.ts';
import { filterRepository, markerRepository } from './filters.ts';
import { interactionRepository } from './interactions.ts';
import { jobQueue } from './jobs.ts';
import { listRepository } from './lists.ts';
import { mediaRepository, pollRepository } from './media.ts';
import { notificationRepository } from './notifications.ts';
import { oauthRepository } from './oauth.ts';
import { relationshipRepository } from './relationships.ts';
import { scheduledStatusRepository } from './scheduled.ts';
import { createMemoryState } from './state.ts';
import { statusRepository } from './statuses.ts';

export function createMemoryStorage(): Storage {
  const state = createMemoryState();
  return {
    accounts: accountRepository(state),
    statuses: statusRepository(state),
    interactions: interactionRepository(state),
    relationships: relationshipRepository(state),
    notifications: notificationRepository(state),
    lists: listRepository(state),
    filters: filterRepository(state),
    markers: markerRepository(state),
    oauth: oauthRepository(state),
    media: mediaRepository(state),
    polls: pollRepository(state),
    scheduled: scheduledStatusRepository(state),
    cards: cardRepository(state),
    jobs: jobQueue(state.jobs),
    async close() {},
  };
}
