// Polls across servers, as other plugins (federation) use them without reaching into the polls
// plugin's storage: a poll another server states (a Question: its options and counts, as sent,
// bounded) stored with the remote status it belongs to; a vote from another server on a local
// poll, under the rules of a local vote; a hook for each local vote, run as a job of the
// polls plugin (retried), so that a vote on a remote poll can be sent to its author; and the
// jobs another plugin records with every vote counted on a poll of a local status (federation
// tells other servers the new counts), in the vote's own write.

import type { Core } from '../../core/domain/context.ts';
import type { Id, Poll } from '../../core/domain/model.ts';
import type { NewJob } from '../../core/domain/ports/queue.ts';
import type { StorageWrite } from '../../core/domain/ports/storage.ts';
import { findVisible } from '../../core/domain/viewer.ts';
import type { PollRepository } from './storage/index.ts';

export const REMOTE_POLL_LIMITS = { options: 20, title: 500 } as const;

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

export interface PollsApi {
  get(pollId: Id): Promise<Poll | null>;
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
}

export interface RemotePollAttached {
  pollId: Id | null;
  writes: StorageWrite[];
  /** Only the counts changed (the poll's options, kind and end are as stored): nothing a
   * reader must be told of as an edit. */
  countsOnly: boolean;
}

interface Slot {
  api: PollsApi | null;
  voteListeners: ((vote: PollVote) => Promise<void>)[];
  localVoteJobs: ((voted: LocalPollVoted) => NewJob[])[];
}

const slots = new WeakMap<Core, Slot>();

function slotOf(core: Core): Slot {
  let slot = slots.get(core);
  if (slot === undefined) {
    slot = { api: null, voteListeners: [], localVoteJobs: [] };
    slots.set(core, slot);
  }
  return slot;
}

/** The polls plugin's API on this instance; null when the plugin is not installed. */
export function pollsApi(core: Core): PollsApi | null {
  return slotOf(core).api;
}

/** Runs `listener` after each local vote (in a job: at least once, so it must be idempotent). */
export function onPollVote(core: Core, listener: (vote: PollVote) => Promise<void>): void {
  slotOf(core).voteListeners.push(listener);
}

export function voteListeners(core: Core): readonly ((vote: PollVote) => Promise<void>)[] {
  return slotOf(core).voteListeners;
}

/** `jobs` gives the jobs to record with each vote counted on a poll of a local status, in the
 * vote's write (so they are neither lost nor recorded for a vote that did not count). */
export function onLocalPollVoted(core: Core, jobs: (voted: LocalPollVoted) => NewJob[]): void {
  slotOf(core).localVoteJobs.push(jobs);
}

export function localVoteJobs(core: Core, voted: LocalPollVoted): NewJob[] {
  return slotOf(core).localVoteJobs.flatMap((jobs) => jobs(voted));
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(Math.trunc(value), 1_000_000_000) : 0);

/** The jobs that end a poll (the polls plugin's expire job), recorded with the poll. */
export type ExpiryJobs = (poll: Poll) => NewJob[];

export function providePollsApi(core: Core, polls: PollRepository, expiryJobs: ExpiryJobs): void {
  const unchanged = (pollId: Id | null) => ({ pollId, writes: [], countsOnly: false });
  const api: PollsApi = {
    get: (pollId) => polls.get(pollId),
    voters: (pollId) => polls.voters(pollId),
    async remotePoll(statusId, accountId, currentPollId, input) {
      if (input === null) return unchanged(currentPollId);
      const options: string[] = [];
      const votes: number[] = [];
      for (const option of input.options.slice(0, REMOTE_POLL_LIMITS.options)) {
        const title = [...String(option.title ?? '')].slice(0, REMOTE_POLL_LIMITS.title).join('').trim();
        if (title === '' || options.includes(title)) continue;
        options.push(title);
        votes.push(count(option.votes));
      }
      if (options.length === 0) return unchanged(currentPollId);
      const current = currentPollId === null ? null : await polls.get(currentPollId);
      const votesCount = votes.reduce((a, b) => a + b, 0);
      const votersCount = input.votersCount === null || !input.multiple ? votesCount : count(input.votersCount);
      let expiresAt = typeof input.expiresAt === 'number' && Number.isFinite(input.expiresAt) ? input.expiresAt : null;
      // A poll stated closed without an end time ends when it is read: once ended here, later
      // copies keep that end (else each one would move it and end the poll again).
      const now = core.clock.now();
      if (current?.expiresAt != null && current.expiresAt <= now && expiresAt !== null && expiresAt <= now) expiresAt = current.expiresAt;
      const poll: Poll = {
        id: current?.id ?? core.ids.next(),
        statusId,
        accountId,
        options,
        votes,
        multiple: input.multiple === true,
        hideTotals: false,
        expiresAt,
        votesCount,
        votersCount,
        createdAt: current?.createdAt ?? core.clock.now(),
      };
      if (current !== null && JSON.stringify({ ...current }) === JSON.stringify(poll)) return unchanged(current.id);
      const sameShape = current !== null && current.options.join('\u0000') === poll.options.join('\u0000') && current.multiple === poll.multiple;
      // The end job is recorded with the poll whenever the end is new; a job for an end since
      // moved finds another end and does nothing (closePoll).
      const jobs = current?.expiresAt === poll.expiresAt ? [] : expiryJobs(poll);
      // Our voters' votes stay while the options do: the counts the author's server states (none
      // at all for a poll that hides its totals) need not include them yet.
      const store = polls.store(poll, { replace: current !== null, keepVotes: sameShape, jobs });
      return { pollId: poll.id, writes: [store], countsOnly: sameShape && current?.expiresAt === poll.expiresAt };
    },
    async remoteVote(statusId, voterId, title) {
      const status = await core.storage.statuses.get(statusId);
      if (status === null || !status.local || status.pollId === null || status.deletedAt !== null) return 'refused';
      const poll = await polls.get(status.pollId);
      if (poll === null || poll.statusId !== status.id) return 'refused';
      if (poll.expiresAt !== null && poll.expiresAt <= core.clock.now()) return 'refused';
      if (poll.accountId === voterId) return 'refused';
      const choice = poll.options.indexOf(title.trim());
      if (choice < 0) return 'refused';
      const voter = await core.storage.accounts.get(voterId);
      if (voter === null) return 'refused';
      try {
        await findVisible(core, voter, status.id);
      } catch {
        return 'refused';
      }
      const jobs = { jobs: localVoteJobs(core, { pollId: poll.id, statusId: status.id }) };
      const result = poll.multiple ? await polls.addChoice(poll.id, voterId, choice, jobs) : await polls.vote(poll.id, voterId, [choice], jobs);
      return result === 'voted' ? 'voted' : 'refused';
    },
  };
  slotOf(core).api = api;
}
