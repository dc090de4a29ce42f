// Polls across two instances on loopback (hapi and node:http, each with the polls and federation
// plugins): alice's poll on A reaches bob on B with its options; bob's vote is counted on B and
// sent to A, which counts it once; a multiple-choice vote arrives as one Note per option; an
// edit of the poll (Update of the Question) is what B then shows.

import t from 'tap';
import { pollsPlugin } from '../../../plugins/index.ts';
import { updateRemoteStatus } from '../../../core/domain/federation/index.ts';
import { pollsService } from '../../../core/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { drainAll, federatingInstances, followAcross, type PollJson } from '../../helpers/federation.ts';
import type { Harness } from '../../helpers/harness.ts';

interface StatusJson {
  id: string;
  uri: string;
  poll: PollJson | null;
}

t.test('a poll crosses servers: options, votes, edits', async (t) => {
  const [a, b] = (await federatingInstances(t, 2, () => [pollsPlugin()])) as [Harness, Harness];
  const drain = () => drainAll([a, b]);
  const alice = await a.user('alice');
  const bob = await b.user('bob');
  const remoteAlice = { id: await followAcross(b, [bob], a, 'alice') };

  const posted = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Tea or coffee?', poll: { options: ['tea', 'coffee'], expires_in: 3600 } } })).json as StatusJson;
  const seen = async (): Promise<StatusJson | undefined> => {
    await drain();
    const home = (await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as StatusJson[];
    return home.find((s) => s.uri === posted.uri);
  };
  const onB = (await eventually(seen, (s) => s !== undefined, 'the poll reaches bob')) as StatusJson;
  t.match(onB.poll, { expired: false, multiple: false, votes_count: 0, voted: false, options: [{ title: 'tea', votes_count: 0 }, { title: 'coffee', votes_count: 0 }] }, 'B shows the options');
  t.equal(onB.poll?.options.length, 2);
  t.equal(Date.parse((onB.poll as unknown as { expires_at: string }).expires_at), Date.parse((posted.poll as unknown as { expires_at: string }).expires_at), 'and the end');

  const voted = await b.request('POST', `/api/v1/polls/${onB.poll?.id}/votes`, { token: bob.token, payload: { choices: ['1'] } });
  t.equal(voted.statusCode, 200);
  t.match(voted.json, { votes_count: 1, voted: true, own_votes: [1] }, 'counted on B');
  const again = await b.request('POST', `/api/v1/polls/${onB.poll?.id}/votes`, { token: bob.token, payload: { choices: ['0'] } });
  t.equal(again.statusCode, 422, 'a second vote is refused on B');

  const pollOnA = async (): Promise<PollJson> => {
    await drain();
    return (await a.request('GET', `/api/v1/polls/${posted.poll?.id}`, { token: alice.token })).json as PollJson;
  };
  const counted = await eventually(pollOnA, (p) => p.votes_count === 1, 'A counts the vote');
  t.match(counted, { votes_count: 1, voters_count: 1, options: [{ title: 'tea', votes_count: 0 }, { title: 'coffee', votes_count: 1 }] }, "A's author sees bob's vote");
  const shown = (await a.request('GET', `/api/v1/statuses/${posted.id}`, { token: alice.token })).json as StatusJson;
  t.equal(shown.poll?.votes_count, 1, 'on the status too');
  const notAStatus = (await a.request('GET', `/api/v1/statuses/${posted.id}/context`, { token: alice.token })).json as { descendants: unknown[] };
  t.same(notAStatus.descendants, [], 'the vote is not stored as a reply');

  // The same account voting again from its server (another option, or the same Note again).
  const remoteBob = ((await a.request('GET', `/api/v1/accounts/${alice.account.id}/followers`, { token: alice.token })).json as { id: string }[])[0];
  const polls = a.rookery.service(pollsService);
  t.ok(polls && remoteBob);
  t.equal(await polls?.remoteVote(posted.id, remoteBob?.id ?? '', 'tea'), 'refused', 'a second vote of a single-choice poll is refused');
  t.equal(await polls?.remoteVote(posted.id, remoteBob?.id ?? '', 'coffee'), 'refused', 'the same vote again counts nothing');
  t.equal(await polls?.remoteVote(posted.id, alice.account.id, 'tea'), 'refused', "the author's own");
  t.equal(await polls?.remoteVote(posted.id, remoteBob?.id ?? '', 'milk'), 'refused', 'no such option');
  t.equal((await pollOnA()).votes_count, 1, 'still one vote');

  // A multiple-choice poll: one Note per option.
  const many = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Which days?', poll: { options: ['mon', 'tue', 'wed'], expires_in: 3600, multiple: true } } })).json as StatusJson;
  const manyOnB = (await eventually(
    async () => {
      await drain();
      return ((await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as StatusJson[]).find((s) => s.uri === many.uri);
    },
    (s) => s !== undefined,
    'the multiple-choice poll reaches bob',
  )) as StatusJson;
  t.equal(manyOnB.poll?.multiple, true, 'anyOf: multiple');
  const votedMany = await b.request('POST', `/api/v1/polls/${manyOnB.poll?.id}/votes`, { token: bob.token, payload: { choices: ['0', '2'] } });
  t.equal(votedMany.statusCode, 200);
  const manyOnA = await eventually(
    async () => {
      await drain();
      return (await a.request('GET', `/api/v1/polls/${many.poll?.id}`, { token: alice.token })).json as PollJson;
    },
    (p) => p.votes_count === 2,
    'A counts both choices',
  );
  t.match(manyOnA, { votes_count: 2, voters_count: 1, options: [{ votes_count: 1 }, { votes_count: 0 }, { votes_count: 1 }] }, 'two choices, one voter');

  // An edit of the poll: B shows the new options (its votes reset, as on A).
  const edited = await a.request('PUT', `/api/v1/statuses/${posted.id}`, { token: alice.token, payload: { status: 'Tea or coffee?', poll: { options: ['tea', 'coffee', 'water'], expires_in: 7200 } } });
  t.equal(edited.statusCode, 200);
  const updated = (await eventually(seen, (s) => s?.poll?.options.length === 3, 'B shows the edited poll')) as StatusJson;
  t.match(updated.poll, { votes_count: 0, options: [{ title: 'tea' }, { title: 'coffee' }, { title: 'water' }] });
  t.equal(updated.poll?.id, onB.poll?.id, 'the same poll on B, replaced');

  // What a sender states is bounded: 20 options of 500 characters at most, counts as stated.
  const pollsOnB = b.rookery.service(pollsService);
  if (pollsOnB === null) throw new Error('the polls plugin is installed on B');
  const options = Array.from({ length: 25 }, (_, i) => ({ title: `${i} `.padEnd(600, 'x'), votes: i }));
  await updateRemoteStatus(b.core, {
    uri: posted.uri,
    url: null,
    authorId: remoteAlice.id,
    contentHtml: '<p>So many?</p>',
    spoilerText: '',
    sensitive: false,
    visibility: 'public',
    language: null,
    inReplyToUri: null,
    mentionIds: [],
    tags: [],
    createdAt: 0,
    editedAt: null,
    attach: (statusId, current) => pollsOnB.remotePoll(statusId, remoteAlice.id, current, { options, multiple: true, expiresAt: null, votersCount: 7 }),
  });
  const bounded = (await b.request('GET', `/api/v1/statuses/${onB.id}`, { token: bob.token })).json as StatusJson & { poll: PollJson & { expires_at: string | null } };
  t.equal(bounded.poll.options.length, 20, 'the first 20 options');
  t.ok(bounded.poll.options.every((o) => o.title.length === 500), 'each title cut to 500 characters');
  t.match(bounded.poll, { multiple: true, voters_count: 7, votes_count: 190, expires_at: null, expired: false }, 'counts as stated');
});
