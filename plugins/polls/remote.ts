// Polls across servers, as other plugins (federation) use them without reaching into the polls
// plugin's storage: a poll another server states (a Question: its options and counts, as sent,
// bounded) stored with the remote status it belongs to; a vote from another server on a local
// poll, under the rules of a local vote; and a hook for each local vote, run as a job of the
// polls plugin (retried), so that a vote on a remote poll can be sent to its author.

import type { Core } from '../../core/core.ts';
import type { Id, Poll } from '../../core/model.ts';
import type { StorageWrite } from '../../core/ports/storage.ts';
import { findVisible } from '../../core/viewer.ts';
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
   * id for the status and the write (none when nothing changed). `input` null: the status keeps
   * the poll it has. */
  remotePoll(statusId: Id, accountId: Id, currentPollId: Id | null, input: RemotePollInput | null): Promise<{ pollId: Id | null; writes: StorageWrite[] }>;
  /** A vote from another server on a local poll: the option named `title`, by `voterId`.
   * 'refused' when a local vote would be (ended, no such option, the author's own, a second
   * vote on a single-choice poll, that option again) or the voter may not see the status. */
  remoteVote(statusId: Id, voterId: Id, title: string): Promise<'voted' | 'refused'>;
}

interface Slot {
  api: PollsApi | null;
  voteListeners: ((vote: PollVote) => Promise<void>)[];
}

const slots = new WeakMap<Core, Slot>();

function slotOf(core: Core): Slot {
  let slot = slots.get(core);
  if (slot === undefined) {
    slot = { api: null, voteListeners: [] };
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

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(Math.trunc(value), 1_000_000_000) : 0);

export function providePollsApi(core: Core, polls: PollRepository): void {
  const api: PollsApi = {
    get: (pollId) => polls.get(pollId),
    async remotePoll(statusId, accountId, currentPollId, input) {
      if (input === null) return { pollId: currentPollId, writes: [] };
      const options: string[] = [];
      const votes: number[] = [];
      for (const option of input.options.slice(0, REMOTE_POLL_LIMITS.options)) {
        const title = [...String(option.title ?? '')].slice(0, REMOTE_POLL_LIMITS.title).join('').trim();
        if (title === '' || options.includes(title)) continue;
        options.push(title);
        votes.push(count(option.votes));
      }
      if (options.length === 0) return { pollId: currentPollId, writes: [] };
      const current = currentPollId === null ? null : await polls.get(currentPollId);
      const votesCount = votes.reduce((a, b) => a + b, 0);
      const votersCount = input.votersCount === null || !input.multiple ? votesCount : count(input.votersCount);
      const expiresAt = typeof input.expiresAt === 'number' && Number.isFinite(input.expiresAt) ? input.expiresAt : null;
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
      if (current !== null && JSON.stringify({ ...current }) === JSON.stringify(poll)) return { pollId: current.id, writes: [] };
      return { pollId: poll.id, writes: [polls.store(poll, { replace: current !== null })] };
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
      const result = poll.multiple ? await polls.addChoice(poll.id, voterId, choice) : await polls.vote(poll.id, voterId, [choice]);
      return result === 'voted' ? 'voted' : 'refused';
    },
  };
  slotOf(core).api = api;
}
