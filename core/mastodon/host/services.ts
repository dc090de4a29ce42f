// Services: how plugins talk to each other without importing one another. A plugin provides an
// object under a key (host.provide); another asks the host for it (host.service) and gets null
// when no installed plugin provides it. A key carries its service's type, so both sides are
// checked against the one contract written here, on the package's public surface.
//
// The contracts of the built-in plugins that cooperate are declared here too: the polls plugin
// provides `pollsService`, which the federation plugin uses to store the polls of remote
// statuses, count votes from other servers and hear of local votes.

import type { Id, Poll } from '../../domain/model.ts';
import type { NewJob } from '../../domain/ports/queue.ts';
import type { StorageWrite } from '../../domain/ports/storage.ts';

/** Names a service and the type of what its provider offers. */
export interface ServiceKey<T> {
  readonly name: string;
  /** Never set: it only carries T. */
  readonly type?: T;
}

export function serviceKey<T>(name: string): ServiceKey<T> {
  return Object.freeze({ name });
}

/** A poll as another server states it. */
export interface RemotePollInput {
  options: { title: string; votes: number }[];
  multiple: boolean;
  expiresAt: number | null;
  /** Stated by the sender (Mastodon's votersCount); else the sum of the votes. */
  votersCount: number | null;
}

/** A poll of a local status got a vote (a local account's or another server's). */
export interface LocalPollVoted {
  pollId: Id;
  statusId: Id;
}

/** A local account's vote, after it was counted. */
export interface PollVote {
  pollId: Id;
  statusId: Id;
  accountId: Id;
  choices: number[];
}

export interface RemotePollAttached {
  pollId: Id | null;
  writes: StorageWrite[];
  /** Only the counts changed (the poll's options, kind and end are as stored): nothing a
   * reader must be told of as an edit. */
  countsOnly: boolean;
}

/** What remote polls are bounded to (options kept, characters per option). */
export const REMOTE_POLL_LIMITS = { options: 20, title: 500 } as const;

export interface PollsService {
  get(pollId: Id): Promise<Poll | null>;
  /** Those of `pollIds` that exist, in one read. */
  getMany(pollIds: readonly Id[]): Promise<Poll[]>;
  /** What to store with a remote status (created or updated) for the poll it carries: the poll's
   * id for the status and the write (none when nothing changed), with the job that ends the
   * poll when its end is new. `input` null: the status keeps the poll it has. */
  remotePoll(statusId: Id, accountId: Id, currentPollId: Id | null, input: RemotePollInput | null): Promise<RemotePollAttached>;
  /** A vote from another server on a local poll: the option named `title`, by `voterId`.
   * 'refused' when a local vote would be (ended, no such option, the author's own, a second
   * vote on a single-choice poll, that option again) or the voter may not see the status. */
  remoteVote(statusId: Id, voterId: Id, title: string): Promise<'voted' | 'refused'>;
  /** The accounts (local and remote) that voted in a poll. */
  voters(pollId: Id): Promise<Id[]>;
  /** Runs `listener` after each local vote, in a job of the polls plugin (at least once, so it
   * must be idempotent). */
  onVote(listener: (vote: PollVote) => Promise<void>): void;
  /** `jobs` gives the jobs to record with each vote counted on a poll of a local status, in the
   * vote's write (so they are neither lost nor recorded for a vote that did not count). */
  onLocalPollVoted(jobs: (voted: LocalPollVoted) => NewJob[]): void;
}

export const pollsService = serviceKey<PollsService>('polls');

/** A picture from elsewhere (a link's preview image), stored and served by this instance. */
export interface StoredImage {
  url: string;
  width: number;
  height: number;
  blurhash: string;
}

/** Keeping pictures that came from other sites (the media plugin provides it), so that readers'
 * browsers load them from this instance rather than from a third party, at a bounded size. */
export interface ImagesService {
  /** Decodes `data` (any supported image format), keeps a preview of at most 640×360 worth of
   * pixels as JPEG under `name` (letters, digits, '-' and '_'; the same name replaces the
   * picture) and says where it is served; null when it is not an image or passes the limits. */
  storePreview(name: string, data: Uint8Array): Promise<StoredImage | null>;
  /** Removes the picture kept under `name` (none: nothing to do). */
  removePreview(name: string): Promise<void>;
  /** Keeps a custom emoji's picture (PNG, GIF or WebP, animation kept, metadata dropped) under
   * `name`, with a still PNG of its first frame; null when it is not such an image or passes
   * the limits. */
  storeEmoji(name: string, data: Uint8Array): Promise<{ url: string; staticUrl: string } | null>;
  /** Removes an emoji's pictures kept under `name`. */
  removeEmoji(name: string): Promise<void>;
}

export const imagesService = serviceKey<ImagesService>('images');
