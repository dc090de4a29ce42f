// The core side of federation: what the federation plugin calls when activities arrive, with
// the rules of the matching local operations. Nothing here speaks ActivityPub or does I/O.

import type { Core } from '../context.ts';
import type { Account, Id, Millis, Quote, Report, Status } from '../model.ts';
import { receiveRemoteReport, type RemoteReportInput } from '../moderation/reports.ts';
import { remoteMove } from '../accounts/move.ts';
import { answerQuoteRequest, authorize, refuse, revokeRemotely } from './quotes.ts';
import { removeRemoteAccount, upsertRemoteAccount, type RemoteAccountInput } from './accounts.ts';
import {
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
import { deleteRemoteStatus, receiveRemoteStatus, updateRemoteStatus, type RemoteStatusInput } from './statuses.ts';

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
export { receiveRemoteReport, REMOTE_COMMENT_LIMIT, type RemoteReportInput } from '../moderation/reports.ts';
export { deleteRemoteStatus, receiveRemoteStatus, REMOTE_STATUS_LIMITS, updateRemoteStatus, type RemoteStatusInput } from './statuses.ts';
export type { RemoteQuoteInput } from './quotes.ts';

/** The operations above, bound to one core: what the plugin host gives the plugin that speaks
 * to other servers. */
export interface FederationOperations {
  upsertRemoteAccount(input: RemoteAccountInput): Promise<Account>;
  removeRemoteAccount(uri: string): Promise<boolean>;
  receiveRemoteStatus(input: RemoteStatusInput): Promise<Status | null>;
  updateRemoteStatus(input: RemoteStatusInput): Promise<Status | null>;
  deleteRemoteStatus(uri: string, actorId: Id): Promise<Status | null>;
  remoteFavourite(accountId: Id, statusId: Id): Promise<Status>;
  remoteUnfavourite(accountId: Id, statusId: Id): Promise<void>;
  remoteBoost(accountId: Id, statusId: Id, boostUri: string, createdAt: Millis): Promise<Status>;
  remoteUnboost(boostUri: string, accountId: Id): Promise<boolean>;
  remoteFollow(followerId: Id, targetId: Id, followUri: string): Promise<'following' | 'requested'>;
  remoteUnfollow(followerId: Id, targetId: Id): Promise<void>;
  followAccepted(localFollowerId: Id, remoteTargetId: Id): Promise<boolean>;
  followRejected(localFollowerId: Id, remoteTargetId: Id): Promise<void>;
  remoteBlock(accountId: Id, targetId: Id): Promise<void>;
  remoteUnblock(accountId: Id, targetId: Id): Promise<void>;
  /** A Flag: a report about a local account (null when it cannot be one). */
  receiveFlag(input: RemoteReportInput): Promise<Report | null>;
  /** A remote account's Move to `targetId` (refreshed from its server just before): taken when
   * the target lists the origin among its aliases; false otherwise. */
  remoteMove(originId: Id, targetId: Id): Promise<boolean>;
  /** FEP-044f (quotes.ts): the quoted author's server accepted or refused a local quote, or
   * withdrew its authorization; a QuoteRequest for a local status, answered by its policy. */
  quoteAuthorized(quotingStatusId: Id, authorizationUri: string): Promise<Quote | null>;
  quoteRefused(quotingStatusId: Id): Promise<Quote | null>;
  quoteRevoked(authorizationUri: string, senderId: Id): Promise<Quote | null>;
  answerQuoteRequest(quotingStatusId: Id, quotedStatusId: Id, requestUri: string): Promise<Quote | null>;
}

export function federationOperations(core: Core): FederationOperations {
  return {
    upsertRemoteAccount: (input) => upsertRemoteAccount(core, input),
    removeRemoteAccount: (uri) => removeRemoteAccount(core, uri),
    receiveRemoteStatus: (input) => receiveRemoteStatus(core, input),
    updateRemoteStatus: (input) => updateRemoteStatus(core, input),
    deleteRemoteStatus: (uri, actorId) => deleteRemoteStatus(core, uri, actorId),
    remoteFavourite: (accountId, statusId) => remoteFavourite(core, accountId, statusId),
    remoteUnfavourite: (accountId, statusId) => remoteUnfavourite(core, accountId, statusId),
    remoteBoost: (accountId, statusId, boostUri, createdAt) => remoteBoost(core, accountId, statusId, boostUri, createdAt),
    remoteUnboost: (boostUri, accountId) => remoteUnboost(core, boostUri, accountId),
    remoteFollow: (followerId, targetId, followUri) => remoteFollow(core, followerId, targetId, followUri),
    remoteUnfollow: (followerId, targetId) => remoteUnfollow(core, followerId, targetId),
    followAccepted: (localFollowerId, remoteTargetId) => followAccepted(core, localFollowerId, remoteTargetId),
    followRejected: (localFollowerId, remoteTargetId) => followRejected(core, localFollowerId, remoteTargetId),
    remoteBlock: (accountId, targetId) => remoteBlock(core, accountId, targetId),
    remoteUnblock: (accountId, targetId) => remoteUnblock(core, accountId, targetId),
    receiveFlag: (input) => receiveRemoteReport(core, input),
    remoteMove: (originId, targetId) => remoteMove(core, originId, targetId),
    quoteAuthorized: (quotingStatusId, authorizationUri) => authorize(core, quotingStatusId, authorizationUri),
    quoteRefused: (quotingStatusId) => refuse(core, quotingStatusId),
    quoteRevoked: (authorizationUri, senderId) => revokeRemotely(core, authorizationUri, senderId),
    answerQuoteRequest: (quotingStatusId, quotedStatusId, requestUri) => answerQuoteRequest(core, quotingStatusId, quotedStatusId, requestUri),
  };
}
