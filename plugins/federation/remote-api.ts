// The core's federation API (core/federation, by the remote-data work) as the incoming side
// uses it. Named here once, so that the listeners depend on this shape only.

import type { Core } from '../../core/core.ts';
import type { Account, Id, Status, Visibility } from '../../core/model.ts';

export interface RemoteAccountInput {
  uri: string;
  url: string | null;
  username: string;
  domain: string;
  displayName: string;
  noteHtml: string;
  fields: { name: string; valueHtml: string }[];
  avatarUrl: string | null;
  headerUrl: string | null;
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  createdAt?: number;
}

export interface RemoteStatusInput {
  uri: string;
  url: string | null;
  authorId: Id;
  contentHtml: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  inReplyToUri: string | null;
  mentionIds: Id[];
  tags: string[];
  createdAt: number;
  editedAt: number | null;
}

export interface RemoteApi {
  upsertRemoteAccount(core: Core, input: RemoteAccountInput): Promise<Account>;
  removeRemoteAccount(core: Core, uri: string): Promise<unknown>;
  receiveRemoteStatus(core: Core, input: RemoteStatusInput): Promise<Status | null>;
  updateRemoteStatus(core: Core, input: RemoteStatusInput): Promise<unknown>;
  deleteRemoteStatus(core: Core, uri: string, actorId: Id): Promise<unknown>;
  remoteFavourite(core: Core, accountId: Id, statusId: Id): Promise<unknown>;
  remoteUnfavourite(core: Core, accountId: Id, statusId: Id): Promise<unknown>;
  remoteBoost(core: Core, accountId: Id, statusId: Id, boostUri: string, createdAt: number): Promise<unknown>;
  remoteUnboost(core: Core, boostUri: string, accountId: Id): Promise<unknown>;
  remoteFollow(core: Core, followerId: Id, targetId: Id, followUri: string): Promise<'following' | 'requested'>;
  remoteUnfollow(core: Core, followerId: Id, targetId: Id): Promise<unknown>;
  followAccepted(core: Core, localFollowerId: Id, remoteTargetId: Id): Promise<unknown>;
  followRejected(core: Core, localFollowerId: Id, remoteTargetId: Id): Promise<unknown>;
  remoteBlock(core: Core, accountId: Id, targetId: Id): Promise<unknown>;
  remoteUnblock(core: Core, accountId: Id, targetId: Id): Promise<unknown>;
}

/** null until the core's federation API is there: incoming activities are then accepted and dropped. */
export const coreRemoteApi: RemoteApi | null = null;
