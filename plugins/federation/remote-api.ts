// The core's federation API (core/federation) as the incoming side uses it, named here once so
// that the listeners depend on this shape only (and a test may hand in another).

import {
  deleteRemoteStatus,
  followAccepted,
  followRejected,
  receiveRemoteStatus,
  remoteBlock,
  remoteBoost,
  remoteFavourite,
  remoteFollow,
  remoteUnblock,
  remoteUnboost,
  remoteUnfavourite,
  remoteUnfollow,
  removeRemoteAccount,
  updateRemoteStatus,
  upsertRemoteAccount,
} from '../../core/domain/federation/index.ts';

export type { RemoteAccountInput, RemoteStatusInput } from '../../core/domain/federation/index.ts';

export const coreRemoteApi = {
  upsertRemoteAccount,
  removeRemoteAccount,
  receiveRemoteStatus,
  updateRemoteStatus,
  deleteRemoteStatus,
  remoteFavourite,
  remoteUnfavourite,
  remoteBoost,
  remoteUnboost,
  remoteFollow,
  remoteUnfollow,
  followAccepted,
  followRejected,
  remoteBlock,
  remoteUnblock,
};

export type RemoteApi = typeof coreRemoteApi;
