// The polls plugin's repository: polls, inserted (or replaced by an edit) atomically with the
// status they belong to, and their votes. Contract: polls/storage/contract.ts.

import type { Id, NewJob, Poll, StorageWrite } from 'rookery/plugin-kit';

export interface PollRepository {
  get(id: Id): Promise<Poll | null>;
  /** Missing ids skipped; newest first. */
  getMany(ids: readonly Id[]): Promise<Poll[]>;
  /** ATOMIC. Records the votes unless the account already voted ('already'); updates the
   * option counts, votesCount and votersCount. `jobs` are recorded in the same transaction,
   * only when the vote is counted ('voted'): what the vote causes is never lost nor doubled. */
  vote(pollId: Id, accountId: Id, choices: readonly number[], options?: { jobs?: readonly NewJob[] }): Promise<'voted' | 'already'>;
  /** ATOMIC. One more choice of an account in a multiple-choice poll (another server sends one
   * vote per option): 'already' when the account chose that option before; the account counts
   * once in votersCount. `jobs` as for vote. */
  addChoice(pollId: Id, accountId: Id, choice: number, options?: { jobs?: readonly NewJob[] }): Promise<'voted' | 'already'>;
  /** The option indexes each of these polls got from the account. */
  votesBy(accountId: Id, pollIds: readonly Id[]): Promise<Map<Id, number[]>>;
  /** The accounts that voted in a poll, in no particular order. */
  voters(pollId: Id): Promise<Id[]>;
  /** A write for statuses.create/update that inserts the poll (StorageConflict 'id' when its id
   * is taken) or, with `replace`, overwrites the poll of that id (its recorded votes dropped when
   * the given poll has no voters: it was reset; kept with `keepVotes`: a remote poll's counts as
   * its server states them, which need not include ours), and records `jobs` in the same
   * transaction. */
  store(poll: Poll, options?: { replace?: boolean; keepVotes?: boolean; jobs?: readonly NewJob[] }): StorageWrite;
}
