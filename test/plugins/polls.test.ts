// The polls plugin over HTTP: every rule and text of publish's poll[…], voting, expiry and the
// poll notification made once; and without the plugin, poll parameters refused.

import t from 'tap';
import { pollsPlugin } from '../../plugins/polls/index.ts';
import { harness, type Harness, type TestUser } from '../helpers/harness.ts';

let h: Harness;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
t.beforeEach(async () => {
  h = await harness({ plugins: [pollsPlugin()] });
  alice = await h.user('alice');
  bob = await h.user('bob');
  carol = await h.user('carol');
});
t.afterEach(() => h.close());

const publish = (user: TestUser, payload: unknown) => h.request('POST', '/api/v1/statuses', { token: user.token, payload });
const vote = (user: TestUser, id: string, choices: unknown) => h.request('POST', `/api/v1/polls/${id}/votes`, { token: user.token, payload: { choices } });

t.test('publish with a poll: the Poll inlined, with the author\'s own view', async (t) => {
  const res = await publish(alice, { status: 'which?', poll: { options: ['a', 'b', 'c'], expires_in: 600, multiple: true } });
  t.equal(res.statusCode, 200);
  const poll = res.json.poll;
  t.same(Object.keys(poll).sort(), ['emojis', 'expired', 'expires_at', 'id', 'multiple', 'options', 'own_votes', 'voted', 'voters_count', 'votes_count']);
  t.same([poll.expired, poll.multiple, poll.votes_count, poll.voters_count, poll.voted, poll.own_votes], [false, true, 0, 0, false, []]);
  t.same(poll.options, [{ title: 'a', votes_count: 0 }, { title: 'b', votes_count: 0 }, { title: 'c', votes_count: 0 }]);
  const lasted = Date.parse(poll.expires_at) - Date.parse(res.json.created_at);
  t.ok(lasted > 599_000 && lasted <= 600_000, `expires_at = now + expires_in (${lasted} ms after created_at)`);
  const form = await h.request('POST', '/api/v1/statuses', {
    token: alice.token,
    payload: 'status=form&poll[options][]=x&poll[options][]=y&poll[expires_in]=300&poll[hide_totals]=true',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.same(form.json.poll.options, [{ title: 'x', votes_count: null }, { title: 'y', votes_count: null }], 'form parameters; hide_totals hides the counts');
  const anonymous = await h.request('GET', `/api/v1/polls/${poll.id}`);
  t.equal(anonymous.statusCode, 200);
  t.notOk('voted' in anonymous.json, 'no voted for an anonymous reader');
});

t.test('validation: every rule and text', async (t) => {
  const cases: [string, unknown, string][] = [
    ['one option', { options: ['a'], expires_in: 600 }, 'Validation failed: Poll options must have more than one item'],
    ['no options', { expires_in: 600 }, 'Validation failed: Poll options must have more than one item'],
    ['five options', { options: ['a', 'b', 'c', 'd', 'e'], expires_in: 600 }, "Validation failed: Poll options can't contain more than 4 items"],
    ['51 characters', { options: ['a'.repeat(51), 'b'], expires_in: 600 }, 'Validation failed: Poll options cannot be longer than 50 characters each'],
    ['duplicates', { options: ['a', 'a'], expires_in: 600 }, 'Validation failed: Poll options contain duplicate items'],
    ['no expires_in', { options: ['a', 'b'] }, "Validation failed: Poll expires at can't be blank"],
    ['too soon', { options: ['a', 'b'], expires_in: 299 }, 'Validation failed: Poll expires at is too soon'],
    ['too far', { options: ['a', 'b'], expires_in: 2_629_747 }, 'Validation failed: Poll expires at is too far into the future'],
  ];
  for (const [label, poll, error] of cases) {
    const res = await publish(alice, { status: 'x', poll });
    t.equal(res.statusCode, 422, label);
    t.same(res.json, { error }, label);
  }
  const withMedia = await publish(alice, { status: 'x', media_ids: ['1'], poll: { options: ['a', 'b'], expires_in: 600 } });
  t.same([withMedia.statusCode, withMedia.json], [422, { error: 'Validation failed: Media attachments are not supported by this server' }], 'media_ids without the media plugin (with it: test/plugins/media.test.ts)');
  t.equal((await publish(alice, { status: 'x', poll: { options: ['a'.repeat(50), 'b'], expires_in: 300 } })).statusCode, 200, '50 characters and 300 s are fine');
  t.equal((await publish(alice, { status: 'x', poll: { options: ['a', 'b', 'c', 'd'], expires_in: 2_629_746 } })).statusCode, 200, '4 options and a month are fine');
  t.same((await publish(alice, { poll: { options: ['a', 'b'], expires_in: 600 } })).json, { error: "Validation failed: Text can't be blank" }, 'a poll still needs text');
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.statuses_count, 2, 'refused posts were not written');
});

t.test('votes: own_votes, counts, and every refusal', async (t) => {
  const single = (await publish(alice, { status: 'one', poll: { options: ['a', 'b'], expires_in: 600 } })).json.poll;
  const multi = (await publish(alice, { status: 'many', poll: { options: ['a', 'b', 'c'], expires_in: 600, multiple: true } })).json.poll;
  const res = await vote(bob, single.id, ['1']);
  t.equal(res.statusCode, 200);
  t.same([res.json.voted, res.json.own_votes, res.json.votes_count, res.json.voters_count, res.json.options[1].votes_count], [true, [1], 1, 1, 1]);
  const both = await vote(carol, multi.id, [0, 2]);
  t.same([both.json.own_votes, both.json.votes_count, both.json.voters_count], [[0, 2], 2, 1], 'several choices, one voter');
  const refusals: [TestUser, string, unknown, number, string][] = [
    [bob, single.id, ['0'], 422, 'Validation failed: You have already voted on this poll'],
    [carol, single.id, ['0', '1'], 422, 'Validation failed: You have already voted on this poll'],
    [carol, multi.id, ['1'], 422, 'Validation failed: You have already voted on this poll'],
    [carol, single.id, ['2'], 422, 'Validation failed: The chosen vote option does not exist'],
    [carol, single.id, ['x'], 422, 'Validation failed: The chosen vote option does not exist'],
    [alice, single.id, ['0'], 422, 'Validation failed: You cannot vote in your own polls'],
    [carol, single.id, [], 400, 'param is missing or the value is empty: choices'],
    [carol, '12345', ['0'], 404, 'Record not found'],
  ];
  for (const [user, id, choices, status, error] of refusals) {
    const r = await vote(user, id, choices);
    t.same([r.statusCode, r.json], [status, { error }], `${user.account.username} ${JSON.stringify(choices)}`);
  }
  const seen = await h.request('GET', `/api/v1/statuses/${(await h.request('GET', `/api/v1/accounts/${alice.account.id}/statuses`)).json[1].id}`, { token: bob.token });
  t.same([seen.json.poll.voted, seen.json.poll.own_votes], [true, [1]], 'the status shows the reader their votes');
  h.clock.advance(601_000);
  const late = await vote(carol, single.id, ['0']);
  t.same([late.statusCode, late.json], [422, { error: 'Validation failed: The poll has already ended' }]);
  t.equal((await h.request('GET', `/api/v1/polls/${single.id}`)).json.expired, true, 'expired becomes true at expires_at');
});

t.test('a poll on a status the reader cannot see is 404', async (t) => {
  const secret = (await publish(alice, { status: 'secret', visibility: 'private', poll: { options: ['a', 'b'], expires_in: 600 } })).json.poll;
  t.equal((await h.request('GET', `/api/v1/polls/${secret.id}`, { token: bob.token })).statusCode, 404);
  t.same((await vote(bob, secret.id, ['0'])).json, { error: 'Record not found' });
});

t.test('expiry: the voters and the author get a poll notification, once', async (t) => {
  const poll = (await publish(alice, { status: 'vote!', poll: { options: ['a', 'b'], expires_in: 300 } })).json.poll;
  await vote(bob, poll.id, ['0']);
  await vote(carol, poll.id, ['1']);
  const notes = async (user: TestUser) => (await h.request('GET', '/api/v1/notifications?types[]=poll', { token: user.token })).json;
  await h.rookery.drain();
  t.same(await notes(bob), [], 'nothing before it ends');
  h.clock.advance(301_000);
  await h.rookery.drain();
  for (const user of [alice, bob, carol]) {
    const mine = await notes(user);
    t.equal(mine.length, 1, `${user.account.username}: one poll notification`);
    t.same([mine[0]?.type, mine[0]?.status.poll.expired, mine[0]?.account.id], ['poll', true, alice.account.id]);
  }
  // A second run of the job (at-least-once) tells nobody twice.
  await h.core.enqueue([{ name: 'polls:expire', payload: { pollId: poll.id, expiresAt: Date.parse(poll.expires_at) } }]);
  await h.rookery.drain();
  t.equal((await notes(bob)).length, 1, 'still one after the job ran again');
});

t.test('edit: keep, reset on changed options, drop; delete and redraft round-trips', async (t) => {
  const s = (await publish(alice, { status: 'q', poll: { options: ['a', 'b'], expires_in: 600 } })).json;
  await vote(bob, s.poll.id, ['0']);
  const kept = await h.request('PUT', `/api/v1/statuses/${s.id}`, { token: alice.token, payload: { status: 'q2', poll: { options: ['a', 'b'], expires_in: 900 } } });
  t.same([kept.json.poll.id, kept.json.poll.votes_count], [s.poll.id, 1], 'same options: the votes stay');
  const reset = await h.request('PUT', `/api/v1/statuses/${s.id}`, { token: alice.token, payload: { status: 'q3', poll: { options: ['a', 'c'], expires_in: 900 } } });
  t.same([reset.json.poll.id, reset.json.poll.votes_count, reset.json.poll.options.map((o: { title: string }) => o.title)], [s.poll.id, 0, ['a', 'c']], 'changed options reset the votes');
  t.equal((await vote(bob, s.poll.id, ['1'])).statusCode, 200, 'so bob can vote again');
  const history = (await h.request('GET', `/api/v1/statuses/${s.id}/history`)).json;
  t.same(history.map((e: { poll: { options: { title: string }[] } | null }) => e.poll?.options.map((o) => o.title)), [['a', 'b'], ['a', 'b'], ['a', 'c']], 'the history records each revision\'s options');
  const dropped = await h.request('PUT', `/api/v1/statuses/${s.id}`, { token: alice.token, payload: { status: 'no poll' } });
  t.equal(dropped.json.poll, null, 'an edit without poll parameters drops the poll');

  const r = (await publish(alice, { status: 'redraft me', poll: { options: ['x', 'y'], expires_in: 600, multiple: true } })).json;
  const deleted = await h.request('DELETE', `/api/v1/statuses/${r.id}`, { token: alice.token });
  t.same([deleted.json.text, deleted.json.poll.options.map((o: { title: string }) => o.title), deleted.json.poll.multiple], ['redraft me', ['x', 'y'], true], 'the delete response carries the poll');
  const again = await publish(alice, { status: deleted.json.text, poll: { options: deleted.json.poll.options.map((o: { title: string }) => o.title), expires_in: 600, multiple: deleted.json.poll.multiple } });
  t.same([again.statusCode, again.json.content, again.json.poll.options, again.json.poll.multiple], [200, r.content, r.poll.options, true], 'republished losslessly');
});

t.test('keyword filters see poll options', async (t) => {
  await h.request('POST', '/api/v2/filters', { token: bob.token, payload: { title: 'f', context: ['public'], filter_action: 'hide', keywords_attributes: [{ keyword: 'pineapple' }] } });
  const s = (await publish(alice, { status: 'lunch?', poll: { options: ['pineapple', 'olive'], expires_in: 600 } })).json;
  const seen = await h.request('GET', `/api/v1/statuses/${s.id}`, { token: bob.token });
  t.equal(seen.json.filtered.length, 1, 'matched through the poll option');
});

t.test('the instance states the limits the plugin enforces', async (t) => {
  const instance = (await h.request('GET', '/api/v2/instance')).json;
  t.same(instance.configuration.polls, { max_options: 4, max_characters_per_option: 50, min_expiration: 300, max_expiration: 2_629_746 });
});
