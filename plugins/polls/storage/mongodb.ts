import type { IndexDefinition, MongoDoc, MongoExtensionContext } from 'rookery/mongodb';
import type { Id, Poll } from 'rookery/plugin-kit';
import type { PollRepository } from './port.ts';

export const POLLS = 'polls';
export const POLL_VOTES = 'poll_votes';

/** A vote is one document, `_id` "<poll>:<account>": voting twice is a duplicate `_id`. */
export const POLL_INDEXES: readonly IndexDefinition[] = [
  { collection: POLL_VOTES, name: 'poll_votes_account', key: { accountId: 1, pollId: 1 } },
  { collection: POLL_VOTES, name: 'poll_votes_poll', key: { pollId: 1 } },
];

export function pollDoc(p: Poll, num: (id: Id) => unknown): MongoDoc {
  return { _id: p.id, num: num(p.id), ...pollFields(p) };
}

/** Every field but the id: what replacing a poll sets. */
export function pollFields(p: Poll): MongoDoc {
  return {
    statusId: p.statusId,
    accountId: p.accountId,
    options: p.options,
    votes: p.votes,
    multiple: p.multiple,
    hideTotals: p.hideTotals,
    expiresAt: p.expiresAt,
    votesCount: p.votesCount,
    votersCount: p.votersCount,
    createdAt: p.createdAt,
  };
}

export function pollFromDoc(d: MongoDoc): Poll {
  return {
    id: d['_id'] as Id,
    statusId: d['statusId'] as Id | null,
    accountId: d['accountId'] as Id,
    options: d['options'] as string[],
    votes: d['votes'] as number[],
    multiple: d['multiple'] as boolean,
    hideTotals: d['hideTotals'] as boolean,
    expiresAt: d['expiresAt'] as number | null,
    votesCount: d['votesCount'] as number,
    votersCount: d['votersCount'] as number,
    createdAt: d['createdAt'] as number,
  };
}

/** One vote's counts: each choice's option, the votes, one voter. */
export function voteCounts(choices: readonly number[]): MongoDoc {
  const inc: Record<string, number> = {};
  for (const c of choices) inc[`votes.${c}`] = (inc[`votes.${c}`] ?? 0) + 1;
  return { $inc: { ...inc, votesCount: choices.length, votersCount: 1 } };
}

export function mongoPollRepository(context: MongoExtensionContext): PollRepository {
  const { values: v } = context;
  const polls = context.collection(POLLS);
  const votes = context.collection(POLL_VOTES);
  const ready = context.setup({ indexes: POLL_INDEXES, collections: [POLLS, POLL_VOTES] });
  return {
    async get(pollId) {
      await ready;
      const id = v.lookupId(pollId);
      const d = id === null ? null : await polls.findOne({ _id: id });
      return d ? pollFromDoc(d) : null;
    },
    async getMany(ids) {
      await ready;
      const wanted = v.validIds(ids);
      if (wanted.length === 0) return [];
      return (await polls.find({ _id: { $in: wanted } }).sort({ num: -1 }).toArray()).map(pollFromDoc);
    },
    async vote(pollId, accountId, choices, options = {}) {
      await ready;
      const id = v.lookupId(pollId);
      if (id === null) return 'already';
      const voteId = v.pairKey(id, accountId);
      // The vote and the poll's counts are two documents: a transaction. Two votes racing: the
      // loser's insert meets the winner's (a write conflict or a duplicate _id) and runs again.
      return context.transaction(
        async (tx) => {
          if ((await tx.collection(POLLS).findOne({ _id: id }, { session: tx.session, projection: { _id: 1 } })) === null) return 'already' as const;
          if ((await tx.collection(POLL_VOTES).findOne({ _id: voteId }, { session: tx.session })) !== null) return 'already' as const;
          await tx.collection(POLL_VOTES).insertOne({ _id: voteId, pollId: id, accountId, choices: [...choices] }, { session: tx.session });
          await tx.collection(POLLS).updateOne({ _id: id }, v.bump(voteCounts(choices)), { session: tx.session });
          if (options.jobs && options.jobs.length > 0) await tx.enqueue(options.jobs);
          return 'voted' as const;
        },
        [`${POLL_VOTES}._id_`],
      );
    },
    async addChoice(pollId, accountId, choice, options = {}) {
      await ready;
      const id = v.lookupId(pollId);
      if (id === null) return 'already';
      const voteId = v.pairKey(id, accountId);
      return context.transaction(
        async (tx) => {
          if ((await tx.collection(POLLS).findOne({ _id: id }, { session: tx.session, projection: { _id: 1 } })) === null) return 'already' as const;
          const mine = await tx.collection(POLL_VOTES).findOne({ _id: voteId }, { session: tx.session });
          const choices = mine === null ? [] : (mine['choices'] as number[]);
          if (choices.includes(choice)) return 'already' as const;
          if (mine === null) await tx.collection(POLL_VOTES).insertOne({ _id: voteId, pollId: id, accountId, choices: [choice] }, { session: tx.session });
          else await tx.collection(POLL_VOTES).updateOne({ _id: voteId }, { $set: { choices: [...choices, choice] } }, { session: tx.session });
          await tx.collection(POLLS).updateOne({ _id: id }, v.bump({ $inc: { [`votes.${choice}`]: 1, votesCount: 1, votersCount: mine === null ? 1 : 0 } }), { session: tx.session });
          if (options.jobs && options.jobs.length > 0) await tx.enqueue(options.jobs);
          return 'voted' as const;
        },
        [`${POLL_VOTES}._id_`],
      );
    },
    async votesBy(accountId, pollIds) {
      await ready;
      const out = new Map<Id, number[]>();
      const wanted = v.validIds(pollIds);
      if (wanted.length === 0) return out;
      for (const d of await votes.find({ accountId, pollId: { $in: wanted } }).toArray()) out.set(d['pollId'] as Id, d['choices'] as number[]);
      return out;
    },
    async voters(pollId) {
      await ready;
      const id = v.lookupId(pollId);
      if (id === null) return [];
      return (await votes.find({ pollId: id }, { projection: { accountId: 1 } }).toArray()).map((d) => d['accountId'] as Id);
    },
    store(p, options = {}) {
      return context.prepare({
        async apply(tx) {
          await ready;
          const existing = options.replace ? await tx.collection(POLLS).findOne({ _id: p.id }, { session: tx.session, projection: { _id: 1 } }) : null;
          if (existing !== null) {
            await tx.collection(POLLS).updateOne({ _id: p.id }, v.bump({ $set: pollFields(p) }), { session: tx.session });
            // A poll given back without voters was reset: its recorded votes go.
            if (p.votersCount === 0 && !options.keepVotes) await tx.collection(POLL_VOTES).deleteMany({ pollId: p.id }, { session: tx.session });
          } else {
            await tx.collection(POLLS).insertOne(v.stored(pollDoc(p, v.num)), { session: tx.session });
          }
          if (options.jobs && options.jobs.length > 0) await tx.enqueue(options.jobs);
        },
      });
    },
  };
}
