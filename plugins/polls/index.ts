// Polls (docs/behaviour.md, "Limits"): poll[options],
// poll[expires_in], poll[multiple], poll[hide_totals] on publish and edit, the poll inlined on
// the Status with the reader's own votes, GET /api/v1/polls/:id, POST /api/v1/polls/:id/votes,
// and at expiry a `poll` notification to the voters and the author, exactly once: a job queued
// with the status write (runAt = expires_at) notifies under a dedupe key per poll and end time.
// A remote poll ends the same way (its job stored with it): its local voters are told; its
// author, on another server, is not (notify never writes for a remote account).

import {
  bool,
  checkOptions,
  countGraphemes as graphemeLength,
  isId,
  json,
  obj,
  pollsService,
  present,
  renderPoll,
  RookeryError,
  str,
  strArray,
  unprocessable,
  type ApiRequest,
  type Endpoint,
  type Id,
  type Limits,
  type Params,
  type PluginHost,
  type Poll,
  type PollVote,
  type RookeryPlugin,
  type Status,
} from 'rookery/plugin-kit';
import { pollsServiceOf } from './remote.ts';
import { pollStorage, type PollRepository } from './storage/index.ts';

export { pollStorage, type PollRepository } from './storage/index.ts';

export const pollTexts = {
  withMedia: 'Cannot attach more than 4 files',
  tooFew: 'Validation failed: Poll options must have more than one item',
  tooMany: (max: number) => `Validation failed: Poll options can't contain more than ${max} items`,
  tooLong: (max: number) => `Validation failed: Poll options cannot be longer than ${max} characters each`,
  duplicate: 'Validation failed: Poll options contain duplicate items',
  expiryBlank: "Validation failed: Poll expires at can't be blank",
  tooSoon: 'Validation failed: Poll expires at is too soon',
  tooFar: 'Validation failed: Poll expires at is too far into the future',
  ended: 'Validation failed: The poll has already ended',
  invalidChoice: 'Validation failed: The chosen vote option does not exist',
  ownPoll: 'Validation failed: You cannot vote in your own polls',
  alreadyVoted: 'Validation failed: You have already voted on this poll',
  choicesMissing: 'param is missing or the value is empty: choices',
} as const;

export interface PollParams {
  options: string[];
  expiresIn: number;
  multiple: boolean;
  hideTotals: boolean;
}

/** poll[…] as Mastodon validates it; media_ids with a poll is refused. */
export function readPollParams(limits: Limits, params: Params): PollParams {
  if (present(params, 'media_ids')) throw unprocessable(pollTexts.withMedia);
  const poll = obj(params, 'poll') ?? {};
  const options = (strArray(poll, 'options') ?? []).map((o) => o.trim());
  const expiresRaw = str(poll, 'expires_in');
  if (options.length < 2) throw unprocessable(pollTexts.tooFew);
  if (options.length > limits.maxPollOptions) throw unprocessable(pollTexts.tooMany(limits.maxPollOptions));
  if (options.some((o) => graphemeLength(o) > limits.maxPollOptionCharacters)) throw unprocessable(pollTexts.tooLong(limits.maxPollOptionCharacters));
  if (new Set(options).size !== options.length) throw unprocessable(pollTexts.duplicate);
  if (expiresRaw === undefined || expiresRaw.trim() === '') throw unprocessable(pollTexts.expiryBlank);
  const expiresIn = Number(expiresRaw);
  if (!Number.isFinite(expiresIn)) throw unprocessable(pollTexts.expiryBlank);
  if (expiresIn < limits.minPollExpiration) throw unprocessable(pollTexts.tooSoon);
  if (expiresIn > limits.maxPollExpiration) throw unprocessable(pollTexts.tooFar);
  return { options, expiresIn: Math.trunc(expiresIn), multiple: bool(poll, 'multiple') ?? false, hideTotals: bool(poll, 'hide_totals') ?? false };
}

const READ = ['read', 'read:statuses'];
const WRITE = ['write', 'write:statuses'];

/** It takes no options (an object with any is refused, so that a misspelt one is not ignored). */
export function pollsPlugin(options: Record<string, never> = {}): RookeryPlugin {
  checkOptions('pollsPlugin', options, {});
  return {
    name: 'polls',
    register(host) {
      const polls = host.storage(pollStorage);
      const expireJob = host.handleJob('expire', async (payload) => {
        const { pollId, expiresAt } = payload as { pollId: Id; expiresAt: number };
        await closePoll(host, polls, pollId, expiresAt);
      });
      // Each local vote, once counted, for the plugins that listen (federation sends a vote on
      // a remote poll to its author): a job, so that a failing listener is retried.
      const votedJob = host.handleJob('voted', async (payload) => {
        for (const listener of service.voteListeners) await listener(payload as PollVote);
      });
      const expiryJobs = (poll: Poll) => (poll.expiresAt === null ? [] : [{ name: expireJob, payload: { pollId: poll.id, expiresAt: poll.expiresAt }, runAt: poll.expiresAt }]);
      const service = pollsServiceOf(host, polls, expiryJobs);
      host.provide(pollsService, service);

      host.onPublish({
        params: ['poll'],
        edits: true,
        async prepare(draft) {
          const current = draft.editing && draft.pollId !== null ? await polls.get(draft.pollId) : null;
          // What the edit history records of the poll as it stood, and what it keeps unless changed.
          draft.previousPollOptions = current?.options ?? null;
          draft.pollOptions = current?.options ?? null;
          if (!present(draft.params, 'poll')) {
            // An edit without a poll drops it (as editing on Mastodon does).
            if (draft.editing && draft.pollId !== null) {
              draft.pollId = null;
              draft.pollOptions = null;
            }
            return;
          }
          const wanted = readPollParams(host.config.limits, draft.params);
          const now = host.clock.now();
          const expiresAt = now + wanted.expiresIn * 1000;
          let poll: Poll;
          if (current !== null) {
            const changed = current.options.join('\u0000') !== wanted.options.join('\u0000') || current.multiple !== wanted.multiple;
            poll = { ...current, options: wanted.options, multiple: wanted.multiple, hideTotals: wanted.hideTotals, expiresAt };
            if (changed) Object.assign(poll, { votes: wanted.options.map(() => 0), votesCount: 0, votersCount: 0 });
            const same = !changed && current.hideTotals === wanted.hideTotals && current.expiresAt === expiresAt;
            if (same) return;
          } else {
            poll = {
              id: host.newId(),
              statusId: draft.statusId,
              accountId: draft.account.id,
              options: wanted.options,
              votes: wanted.options.map(() => 0),
              multiple: wanted.multiple,
              hideTotals: wanted.hideTotals,
              expiresAt,
              votesCount: 0,
              votersCount: 0,
              createdAt: now,
            };
          }
          draft.pollId = poll.id;
          draft.pollOptions = poll.options;
          draft.writes.push(polls.store(poll, { replace: current !== null, jobs: expiryJobs(poll) }));
        },
      });

      host.decorateStatuses<{ polls: Map<Id, Poll>; votes: Map<Id, number[]> }>({
        perViewer: true,
        async load(statuses, viewerId) {
          const ids = [...new Set(statuses.flatMap((s) => (s.pollId === null ? [] : [s.pollId])))];
          if (ids.length === 0) return { polls: new Map(), votes: new Map() };
          const [found, votes] = await Promise.all([polls.getMany(ids), viewerId === null ? new Map<Id, number[]>() : polls.votesBy(viewerId, ids)]);
          return { polls: new Map(found.map((p) => [p.id, p])), votes };
        },
        render(status, loaded, json, context) {
          const poll = status.pollId === null ? undefined : loaded.polls.get(status.pollId);
          if (!poll) return;
          json.poll = renderPoll(poll, context.now, context.signedIn ? (loaded.votes.get(poll.id) ?? []) : null);
          // `expired` turns true when the poll closes, with nothing written.
          if (poll.expiresAt !== null && poll.expiresAt > context.now) context.changesAt?.(poll.expiresAt);
        },
        searchable(status, loaded) {
          const poll = status.pollId === null ? undefined : loaded.polls.get(status.pollId);
          return poll ? poll.options : [];
        },
      });

      /** The poll and the status it belongs to, when the caller may see that status. */
      const visiblePoll = async (request: ApiRequest): Promise<{ poll: Poll; status: Status }> => {
        const id = request.params['id'] ?? '';
        const poll = isId(id) ? await polls.get(id) : null;
        if (poll === null || poll.statusId === null) throw new RookeryError(404, 'Record not found');
        const { status } = await host.statuses.visible(request.caller.account, poll.statusId);
        if (status.pollId !== poll.id) throw new RookeryError(404, 'Record not found');
        return { poll, status };
      };
      const render = async (poll: Poll, viewerId: Id | null) => {
        const own = viewerId === null ? null : ((await polls.votesBy(viewerId, [poll.id])).get(poll.id) ?? []);
        return json(renderPoll(poll, host.clock.now(), own));
      };
      const endpoints: Endpoint[] = [
        {
          method: 'GET',
          path: '/api/v1/polls/:id',
          auth: 'optional',
          scopes: READ,
          handle: async (request) => {
            const { poll } = await visiblePoll(request);
            return render(poll, request.caller.account?.id ?? null);
          },
        },
        {
          method: 'POST',
          path: '/api/v1/polls/:id/votes',
          auth: 'user',
          scopes: WRITE,
          handle: async (request) => {
            const voter = request.caller.account;
            if (voter === null) throw new Error('the user guard lets no request through without an account');
            const { poll, status } = await visiblePoll(request);
            const raw = strArray({ ...request.query, ...request.body }, 'choices') ?? [];
            if (raw.length === 0) throw new RookeryError(400, pollTexts.choicesMissing);
            if (raw.length > poll.options.length * 2) throw unprocessable(pollTexts.invalidChoice);
            // VoteValidator's order: ended, the choice, one's own poll, a second vote.
            if (poll.expiresAt !== null && poll.expiresAt <= host.clock.now()) throw unprocessable(pollTexts.ended);
            const choices = raw.map((c) => (/^\d+$/.test(c.trim()) ? Number(c.trim()) : -1));
            if (choices.some((c) => c < 0 || c >= poll.options.length)) throw unprocessable(pollTexts.invalidChoice);
            if (poll.accountId === voter.id) throw unprocessable(pollTexts.ownPoll);
            if ((!poll.multiple && choices.length > 1) || new Set(choices).size !== choices.length) throw unprocessable(pollTexts.alreadyVoted);
            // What the vote causes is recorded with it: a crash after the vote cannot lose it.
            const vote: PollVote = { pollId: poll.id, statusId: status.id, accountId: voter.id, choices };
            const jobs = [
              ...(service.voteListeners.length > 0 ? [{ name: votedJob, payload: vote }] : []),
              ...(status.local ? service.localVoteJobs({ pollId: poll.id, statusId: status.id }) : []),
            ];
            if ((await polls.vote(poll.id, voter.id, choices, { jobs })) === 'already') throw unprocessable(pollTexts.alreadyVoted);
            const updated = (await polls.get(poll.id)) ?? poll;
            return render(updated, voter.id);
          },
        },
      ];
      for (const endpoint of endpoints) host.addEndpoint(endpoint);
      host.configureInstance('polls', {
        max_options: host.config.limits.maxPollOptions,
        max_characters_per_option: host.config.limits.maxPollOptionCharacters,
        min_expiration: host.config.limits.minPollExpiration,
        max_expiration: host.config.limits.maxPollExpiration,
      });
    },
  };
}

/** The poll ended: its voters and its author are told, once (the dedupe key names the poll and
 * the end it was scheduled for; an edit that moved the end queues another job). */
async function closePoll(host: PluginHost, polls: PollRepository, pollId: Id, expiresAt: number): Promise<void> {
  const poll = await polls.get(pollId);
  if (poll === null || poll.expiresAt !== expiresAt || poll.statusId === null) return;
  const status = await host.system.statuses.get(poll.statusId);
  if (status === null || status.pollId !== poll.id) return;
  const key = `poll:${poll.id}:${expiresAt}`;
  const recipients = [status.accountId, ...(await polls.voters(poll.id))];
  for (const recipientId of new Set(recipients)) {
    await host.system.notify(key, { recipientId, type: 'poll', fromAccountId: status.accountId, status, allowSelf: true });
  }
}

