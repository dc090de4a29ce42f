// The core side of federation: what the federation plugin calls when activities arrive, with
// the rules of the matching local operations. Nothing here speaks ActivityPub or does I/O.

export { REMOTE_ACCOUNT_LIMITS, removeRemoteAccount, upsertRemoteAccount, type RemoteAccountInput } from './accounts.ts';
export {
  followAccepted,
  followRejected,
  remoteBlock,
  remoteBoost,
  remoteFavourite,
  remoteFollow,
  remoteUnblock,
  remoteUnboost,
  remoteUnfavourite,
  remoteUnfollow,
} from './interactions.ts';
export { findAccountByUri, findStatusByUri, httpUrl, MAX_URI } from '../remote/lookup.ts';
export { resolveAccount, resolveUrl, RESOLVE_TIMEOUT_MS } from '../remote/resolve.ts';
export { deleteRemoteStatus, receiveRemoteStatus, REMOTE_STATUS_LIMITS, updateRemoteStatus, type RemoteStatusInput } from './statuses.ts';
