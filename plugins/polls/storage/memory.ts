import type { MemoryExtensionContext } from 'rookery/memory';
import { type Id, type Poll, StorageConflict } from 'rookery/plugin-kit';
import type { PollRepository } from './port.ts';

const clone = <T>(value: T): T => structuredClone(value);
const pair = (a: string, b: string): string => `${a}\u0000${b}`;

export function memoryPollRepository(context: MemoryExtensionContext): PollRepository {
  const polls = (context.state['polls'] ??= new Map<Id, Poll>()) as Map<Id, Poll>;
  const votes = (context.state['votes'] ??= new Map<string, { pollId: Id; accountId: Id; choices: number[] }>()) as Map<string, { pollId: Id; accountId: Id; choices: number[] }>;
  return {
    async get(id) {
      const p = polls.get(id);
      return p ? clone(p) : null;
    },
    async getMany(ids) {
      const out: Poll[] = [];
      for (const id of new Set(ids)) {
        const p = polls.get(id);
        if (p) out.push(clone(p));
      }
      return out.sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    },
    async vote(pollId, accountId, choices, options = {}) {
      const p = polls.get(pollId);
      const k = pair(pollId, accountId);
      if (!p || votes.has(k)) return 'already';
      votes.set(k, { pollId, accountId, choices: [...choices] });
      for (const c of choices) p.votes[c] = (p.votes[c] ?? 0) + 1;
      p.votesCount += choices.length;
      p.votersCount += 1;
      if (options.jobs && options.jobs.length > 0) context.enqueue(options.jobs);
      return 'voted';
    },
    async addChoice(pollId, accountId, choice, options = {}) {
      const p = polls.get(pollId);
      const k = pair(pollId, accountId);
      const v = votes.get(k);
      if (!p || v?.choices.includes(choice)) return 'already';
      if (v) v.choices.push(choice);
      else votes.set(k, { pollId, accountId, choices: [choice] });
      p.votes[choice] = (p.votes[choice] ?? 0) + 1;
      p.votesCount += 1;
      if (!v) p.votersCount += 1;
      if (options.jobs && options.jobs.length > 0) context.enqueue(options.jobs);
      return 'voted';
    },
    async votesBy(accountId, pollIds) {
      const out = new Map<Id, number[]>();
      for (const id of pollIds) {
        const v = votes.get(pair(id, accountId));
        if (v) out.set(id, [...v.choices]);
      }
      return out;
    },
    async voters(pollId) {
      return [...votes.values()].filter((v) => v.pollId === pollId).map((v) => v.accountId);
    },
    store(poll, options = {}) {
      const stored = clone(poll);
      return context.prepare({
        check() {
          if (!options.replace && polls.has(stored.id)) throw new StorageConflict('id');
        },
        apply() {
          if (polls.has(stored.id) && stored.votersCount === 0 && !options.keepVotes) {
            for (const [k, v] of [...votes]) if (v.pollId === stored.id) votes.delete(k);
          }
          polls.set(stored.id, clone(stored));
          if (options.jobs && options.jobs.length > 0) context.enqueue(options.jobs);
        },
      });
    },
  };
}
