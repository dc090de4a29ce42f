// A local poll's new counts across servers, and the end of a remote poll, on three in-process
// instances over loopback (A hapi, B and C node:http): carol (on A) and bob (on B, a follower)
// vote on alice's poll, erin (on C, no follower) votes too; a while later A sends one Update of
// the Question, to the followers and to the voters; B and C then show A's counts and the status
// stays unedited there, with no status.update streamed. A poll that hides its totals keeps
// bob's vote on B; a direct poll's counts go to no follower. At the end of the poll as B
// stored it, bob, who voted there, is told once; a moved end does not tell him at the old one.

import t from 'tap';
import { channels } from '../../../core/domain/routing/channels.ts';
import { federationPlugin, pollsPlugin } from '../../../plugins/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { followAcross, type PollJson } from '../../helpers/federation.ts';
import { harness, record, type Harness } from '../../helpers/harness.ts';

interface StatusJson {
  id: string;
  uri: string;
  url: string;
  edited_at: string | null;
  poll: PollJson | null;
}

const DELAY = 180_000;

t.test("a local poll's counts reach other servers, once per burst, without an edit", async (t) => {
  const instance = (transport: 'hapi' | 'node') => harness({ listen: true, transport, plugins: [pollsPlugin(), federationPlugin({ allowPrivateAddress: true })] });
  const a: Harness = await instance('hapi');
  const b: Harness = await instance('node');
  const c: Harness = await instance('node');
  // What A delivers to B, as it leaves A (Fedify posts with the global fetch).
  const realFetch = globalThis.fetch;
  const updatesToB: { id: string; object: { type: string; id: string } }[] = [];
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    if (input instanceof Request && input.method === 'POST' && input.url.startsWith(b.core.config.baseUrl)) {
      const activity = JSON.parse(await input.clone().text()) as { type: string; id: string; object: { type: string; id: string } };
      if (activity.type === 'Update') updatesToB.push(activity);
    }
    return realFetch(input, init);
  };
  t.teardown(async () => {
    globalThis.fetch = realFetch;
    await a.close();
    await b.close();
    await c.close();
  });
  const drain = async () => {
    for (const h of [a, b, c]) await h.rookery.drain();
  };
  const alice = await a.user('alice');
  const carol = await a.user('carol');
  const bob = await b.user('bob');
  const dave = await b.user('dave');
  const erin = await c.user('erin');
  await followAcross(b, [bob, dave], a, 'alice');

  const posted = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Tea or coffee?', poll: { options: ['tea', 'coffee'], expires_in: 3600 } } })).json as StatusJson;
  const onB = async (): Promise<StatusJson | undefined> => {
    await drain();
    return ((await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as StatusJson[]).find((s) => s.uri === posted.uri);
  };
  const first = (await eventually(onB, (s) => s !== undefined, 'the poll reaches B')) as StatusJson;
  // erin follows nobody on A: she finds the status by its address.
  const foundOnC = (await c.request('GET', `/api/v2/search?q=${encodeURIComponent(posted.uri)}&resolve=true&type=statuses`, { token: erin.token })).json as { statuses: StatusJson[] };
  const onC = foundOnC.statuses[0];
  t.equal(onC?.uri, posted.uri, 'C has the status');

  // Nothing of what follows may be streamed to B's readers as an edit.
  const streamed = await record(b.bus, [channels.user(bob.account.id), channels.user(dave.account.id), channels.public]);
  t.teardown(() => streamed.stop());

  const byCarol = await a.request('POST', `/api/v1/polls/${posted.poll?.id}/votes`, { token: carol.token, payload: { choices: ['0'] } });
  t.equal(byCarol.statusCode, 200);
  t.match(byCarol.json, { votes_count: 1, voters_count: 1, own_votes: [0] });
  const byBob = await b.request('POST', `/api/v1/polls/${first.poll?.id}/votes`, { token: bob.token, payload: { choices: ['1'] } });
  t.equal(byBob.statusCode, 200);
  t.match(byBob.json, { votes_count: 1, voters_count: 1, own_votes: [1] }, 'B counts its own vote at once');
  const byErin = await c.request('POST', `/api/v1/polls/${onC?.poll?.id}/votes`, { token: erin.token, payload: { choices: ['1'] } });
  t.equal(byErin.statusCode, 200);
  const pollOnA = async (): Promise<PollJson> => {
    await drain();
    return (await a.request('GET', `/api/v1/polls/${posted.poll?.id}`, { token: alice.token })).json as PollJson;
  };
  t.match(await eventually(pollOnA, (p) => p.votes_count === 3, 'A counts the three votes'), {
    votes_count: 3,
    voters_count: 3,
    options: [
      { title: 'tea', votes_count: 1 },
      { title: 'coffee', votes_count: 2 },
    ],
  });
  await drain();
  t.same(updatesToB, [], 'no Update before the delay');
  t.match((await onB())?.poll, { votes_count: 1, voters_count: 1 }, 'B still shows what it counted itself');

  a.clock.advance(DELAY);
  const counted = (await eventually(onB, (s) => s?.poll?.votes_count === 3, "B shows A's counts")) as StatusJson;
  t.match(counted.poll, { votes_count: 3, voters_count: 3, voted: true, own_votes: [1], options: [{ title: 'tea', votes_count: 1 }, { title: 'coffee', votes_count: 2 }] });
  t.equal(counted.poll?.options.length, 2);
  t.equal(counted.edited_at, null, 'the status is not edited on B');
  const history = (await b.request('GET', `/api/v1/statuses/${counted.id}/history`, { token: bob.token })).json as unknown[];
  t.equal(history.length, 1, 'and has no revision');
  const pollOnC = async (): Promise<PollJson> => {
    await drain();
    return (await c.request('GET', `/api/v1/polls/${onC?.poll?.id}`, { token: erin.token })).json as PollJson;
  };
  t.match(await eventually(pollOnC, (p) => p.votes_count === 3, 'C, a voter only, gets the counts too'), { votes_count: 3, voters_count: 3, own_votes: [1] });
  const onCNow = (await c.request('GET', `/api/v1/statuses/${onC?.id}`, { token: erin.token })).json as StatusJson;
  t.equal(onCNow.edited_at, null, 'not edited on C either');
  await drain();
  t.equal(updatesToB.length, 1, 'three votes, one Update to B');
  t.equal(updatesToB[0]?.object.type, 'Question');
  t.same(
    streamed.messages.filter((m) => m.message.event === 'status.update'),
    [],
    'no status.update streamed on B for new counts',
  );

  // A steady trickle of votes: at most one Update per delay. frank votes; half a delay later
  // grace; at frank's job both go. henry votes right after: grace's job, due half a delay after
  // that Update, waits for the end of the delay, and then henry's and it send one Update.
  const vote = async (name: string, choice: string) => {
    const user = await a.user(name);
    t.equal((await a.request('POST', `/api/v1/polls/${posted.poll?.id}/votes`, { token: user.token, payload: { choices: [choice] } })).statusCode, 200, `${name} votes`);
  };
  const votesOnB = async (count: number, what: string) => {
    const shown = await eventually(async () => (await onB())?.poll, (p) => p?.votes_count === count, what);
    await drain();
    return shown;
  };
  await vote('frank', '0');
  a.clock.advance(DELAY / 2);
  await vote('grace', '0');
  a.clock.advance(DELAY / 2);
  t.match(await votesOnB(5, 'B shows frank and grace'), { voters_count: 5, options: [{ votes_count: 3 }, { votes_count: 2 }] });
  t.equal(updatesToB.length, 2, 'in one more Update');
  await vote('henry', '1');
  a.clock.advance(DELAY / 2);
  await drain();
  t.equal(updatesToB.length, 2, 'half a delay after the last Update, none');
  t.equal((await pollOnA()).votes_count, 6, 'though A counted henry');
  a.clock.advance(DELAY / 2);
  t.match(await votesOnB(6, 'B shows henry'), { voters_count: 6, options: [{ votes_count: 3 }, { votes_count: 3 }] });
  t.equal(updatesToB.length, 3, 'at the end of the delay, one Update');
  a.clock.advance(DELAY);
  await drain();
  await drain();
  t.equal(updatesToB.length, 3, 'and nothing more once the counts were sent');
  t.equal(new Set(updatesToB.map((u) => u.id)).size, 3, 'each Update under an id of its own');

  // A poll that hides its totals is sent without counts: bob's vote on B stays recorded there.
  const hidden = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Secret ballot', poll: { options: ['yes', 'no'], expires_in: 604800, hide_totals: true } } })).json as StatusJson;
  const hiddenOnB = (await eventually(
    async () => {
      await drain();
      return ((await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as StatusJson[]).find((s) => s.uri === hidden.uri);
    },
    (s) => s !== undefined,
    'the hidden poll reaches B',
  )) as StatusJson;
  t.equal((await b.request('POST', `/api/v1/polls/${hiddenOnB.poll?.id}/votes`, { token: bob.token, payload: { choices: ['0'] } })).statusCode, 200);
  t.equal((await a.request('POST', `/api/v1/polls/${hidden.poll?.id}/votes`, { token: carol.token, payload: { choices: ['1'] } })).statusCode, 200);
  // A direct poll to carol alone: its counts go to no follower.
  const direct = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: '@carol lunch?', visibility: 'direct', poll: { options: ['now', 'later'], expires_in: 604800 } } })).json as StatusJson;
  t.equal((await a.request('POST', `/api/v1/polls/${direct.poll?.id}/votes`, { token: carol.token, payload: { choices: ['0'] } })).statusCode, 200);
  await drain();
  a.clock.advance(DELAY);
  await eventually(
    async () => {
      await drain();
      return updatesToB.filter((u) => u.object.id === hidden.uri).length;
    },
    (n) => n === 1,
    'the hidden poll is sent to B',
  );
  const hiddenNow = (await b.request('GET', `/api/v1/polls/${hiddenOnB.poll?.id}`, { token: bob.token })).json as PollJson;
  t.match(hiddenNow, { voted: true, own_votes: [0] }, "bob's vote is still his on B (the counts are A's: none)");
  t.same(updatesToB.filter((u) => u.object.id === direct.uri), [], 'the direct poll went nowhere');
  const twice = await b.request('POST', `/api/v1/polls/${hiddenOnB.poll?.id}/votes`, { token: bob.token, payload: { choices: ['1'] } });
  t.equal(twice.statusCode, 422);
  t.same(twice.json, { error: 'Validation failed: You have already voted on this poll' }, 'and he cannot vote again');

  // The end of the poll as B stored it: bob, who voted there, is told once; dave (no vote) and
  // remote alice are not. First the end moves (alice edits it): the old end tells no one.
  const edited = await a.request('PUT', `/api/v1/statuses/${posted.id}`, { token: alice.token, payload: { status: 'Tea or coffee?', poll: { options: ['tea', 'coffee'], expires_in: 7200 } } });
  t.equal(edited.statusCode, 200);
  const endOnA = Date.parse((edited.json as StatusJson).poll?.expires_at ?? '');
  const moved = (await eventually(onB, (s) => Date.parse(s?.poll?.expires_at ?? '') === endOnA, 'B has the new end')) as StatusJson;
  t.match(moved.poll, { votes_count: 6, voted: true }, 'the votes are kept');
  const pollNotes = async (user: { token: string }) => {
    await drain();
    return ((await b.request('GET', '/api/v1/notifications?types[]=poll', { token: user.token })).json as { type: string; status: { id: string } }[]).map((n) => [n.type, n.status.id]);
  };
  b.clock.advance(endOnA - 3_600_000 - b.clock.now() + 60_000);
  t.same(await pollNotes(bob), [], 'the old end tells bob nothing');
  b.clock.advance(endOnA - b.clock.now() + 1000);
  t.same(await pollNotes(bob), [['poll', moved.id]], 'at the end bob is told');
  t.same(await pollNotes(bob), [['poll', moved.id]], 'once');
  t.same(await pollNotes(dave), [], 'dave did not vote');
  const ended = (await b.request('GET', `/api/v1/polls/${moved.poll?.id}`, { token: bob.token })).json as PollJson;
  t.equal(ended.expired, true, 'the poll shows as ended on B');
});
