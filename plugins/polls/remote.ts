// The polls plugin's service (pollsService, on the package's public surface), as other plugins
// (federation) use polls without reaching into this plugin's storage: a poll another server
// states (a Question: its options and counts, as sent, bounded) stored with the remote status it
// belongs to; a vote from another server on a local poll, under the rules of a local vote; a
// hook for each local vote, run as a job of the polls plugin (retried), so that a vote on a
// remote poll can be sent to its author; and the jobs another plugin records with every vote
// counted on a poll of a local status (federation tells other servers the new counts), in the
// vote's own write.

import { REMOTE_POLL_LIMITS, type Id, type LocalPollVoted, type NewJob, type PluginHost, type Poll, type PollsService, type PollVote } from 'rookery/plugin-kit';
import type { PollRepository } from './storage/index.ts';

/** The service, and what the plugin itself reads of it. */
export interface PollsServiceState extends PollsService {
  readonly voteListeners: readonly ((vote: PollVote) => Promise<void>)[];
  localVoteJobs(voted: LocalPollVoted): NewJob[];
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.min(Math.trunc(value), 1_000_000_000) : 0);

/** The jobs that end a poll (the polls plugin's expire job), recorded with the poll. */
export type ExpiryJobs = (poll: Poll) => NewJob[];

export function pollsServiceOf(host: PluginHost, polls: PollRepository, expiryJobs: ExpiryJobs): PollsServiceState {
  const unchanged = (pollId: Id | null) => ({ pollId, writes: [], countsOnly: false });
  const voteListeners: ((vote: PollVote) => Promise<void>)[] = [];
  const localVoteJobMakers: ((voted: LocalPollVoted) => NewJob[])[] = [];
  const localVoteJobs = (voted: LocalPollVoted): NewJob[] => localVoteJobMakers.flatMap((jobs) => jobs(voted));
  return {
    voteListeners,
    localVoteJobs,
    onVote: (listener) => void voteListeners.push(listener),
    onLocalPollVoted: (jobs) => void localVoteJobMakers.push(jobs),
    get: (pollId) => polls.get(pollId),
    getMany: (pollIds) => polls.getMany(pollIds),
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
      const now = host.clock.now();
      if (current?.expiresAt != null && current.expiresAt <= now && expiresAt !== null && expiresAt <= now) expiresAt = current.expiresAt;
      const poll: Poll = {
        id: current?.id ?? host.newId(),
        statusId,
        accountId,
        options,
        votes,
        multiple: input.multiple === true,
        hideTotals: false,
        expiresAt,
        votesCount,
        votersCount,
        createdAt: current?.createdAt ?? host.clock.now(),
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
      const status = await host.system.statuses.get(statusId);
      if (status === null || !status.local || status.pollId === null || status.deletedAt !== null) return 'refused';
      const poll = await polls.get(status.pollId);
      if (poll === null || poll.statusId !== status.id) return 'refused';
      if (poll.expiresAt !== null && poll.expiresAt <= host.clock.now()) return 'refused';
      if (poll.accountId === voterId) return 'refused';
      const choice = poll.options.indexOf(title.trim());
      if (choice < 0) return 'refused';
      const voter = await host.accounts.get(voterId);
      if (voter === null) return 'refused';
      try {
        await host.statuses.visible(voter, status.id);
      } catch {
        return 'refused';
      }
      const jobs = { jobs: localVoteJobs({ pollId: poll.id, statusId: status.id }) };
      const result = poll.multiple ? await polls.addChoice(poll.id, voterId, choice, jobs) : await polls.vote(poll.id, voterId, [choice], jobs);
      return result === 'voted' ? 'voted' : 'refused';
    },
  };
}
