// The scheduled statuses plugin over HTTP: scheduled_at's rules and texts, the ScheduledStatus
// shape, the CRUD endpoints, and publication by the job at its time (injected clock), exactly once.

import t from 'tap';
import { scheduledPlugin } from '../../plugins/scheduled/index.ts';
import { harness, record, type Harness, type TestUser } from '../helpers/harness.ts';

let h: Harness;
let alice: TestUser;
let bob: TestUser;
t.beforeEach(async () => {
  h = await harness({ plugins: [scheduledPlugin()] });
  alice = await h.user('alice');
  bob = await h.user('bob');
});
t.afterEach(() => h.close());

const MIN = 60_000;
const at = (ms: number) => new Date(h.clock.now() + ms).toISOString();
const publish = (user: TestUser, payload: unknown, headers?: Record<string, string>) =>
  h.request('POST', '/api/v1/statuses', headers ? { token: user.token, payload, headers } : { token: user.token, payload });
const count = async () => (await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.statuses_count;

t.test('scheduled_at answers a ScheduledStatus with every params key; published by the job at its time, once', async (t) => {
  const when = at(10 * MIN);
  const res = await publish(alice, { status: 'later #soon', visibility: 'unlisted', scheduled_at: when }, { 'idempotency-key': 'k1' });
  t.equal(res.statusCode, 200);
  t.same(Object.keys(res.json).sort(), ['id', 'media_attachments', 'params', 'scheduled_at']);
  t.equal(res.json.scheduled_at, when);
  t.same(res.json.params, {
    text: 'later #soon', media_ids: null, sensitive: null, spoiler_text: null, visibility: 'unlisted', scheduled_at: null, poll: null,
    idempotency: 'k1', in_reply_to_id: null, language: null, application_id: Number(alice.application.id), with_rate_limit: false,
  });
  t.equal(await count(), 0, 'nothing published yet');
  const events = await record(h.bus, ['timeline:hashtag:soon']);
  h.clock.advance(9 * MIN);
  await h.rookery.drain();
  t.equal(await count(), 0, 'not before its time');
  h.clock.advance(2 * MIN);
  await h.rookery.drain();
  t.equal(await count(), 1, 'published at its time');
  const statuses = (await h.request('GET', `/api/v1/accounts/${alice.account.id}/statuses`, { token: alice.token })).json;
  t.same([statuses[0].content.startsWith('<p>later'), statuses[0].visibility], [true, 'unlisted']);
  t.same((await h.request('GET', `/api/v1/scheduled_statuses/${res.json.id}`, { token: alice.token })).statusCode, 404, 'the row is gone');
  // The sweep and a second run of the job find nothing to publish.
  await h.core.hooks.jobs.find((j) => j.name === 'scheduled:sweep')?.run();
  await h.rookery.drain();
  t.equal(await count(), 1, 'still once');
  t.equal(events.messages.length, 0, 'unlisted: not on hashtag streams');
  await events.stop();
});

t.test('it reaches the streams like any other status', async (t) => {
  const events = await record(h.bus, ['timeline:public']);
  await publish(alice, { status: 'on time', scheduled_at: at(6 * MIN) });
  h.clock.advance(7 * MIN);
  await h.rookery.drain();
  t.same(events.messages.map((m) => [m.message.event, JSON.parse(m.message.payload ?? '{}').content]), [['update', '<p>on time</p>']]);
  await events.stop();
});

t.test('rules and texts: 5 minutes ahead, the past, bad dates, 25 a day, text still validated', async (t) => {
  const soon = await publish(alice, { status: 'x', scheduled_at: at(4 * MIN) });
  t.same([soon.statusCode, soon.json], [422, { error: 'Validation failed: Scheduled at date must be in the future' }]);
  const bad = await publish(alice, { status: 'x', scheduled_at: 'next tuesday' });
  t.same([bad.statusCode, bad.json], [422, { error: 'Record invalid' }]);
  const blank = await publish(alice, { status: '', scheduled_at: at(10 * MIN) });
  t.same([blank.statusCode, blank.json], [422, { error: "Validation failed: Text can't be blank" }]);
  const past = await publish(alice, { status: 'now', scheduled_at: at(-MIN) });
  t.same([past.statusCode, past.json.content], [200, '<p>now</p>'], 'in the past: published at once');
  const day = Math.floor((h.clock.now() + 2 * 86_400_000) / 86_400_000) * 86_400_000;
  for (let i = 0; i < 25; i += 1) t.equal((await publish(alice, { status: `n${i}`, scheduled_at: new Date(day + i * MIN).toISOString() })).statusCode, 200);
  const over = await publish(alice, { status: 'one more', scheduled_at: new Date(day + 30 * MIN).toISOString() });
  t.same([over.statusCode, over.json], [422, { error: 'Validation failed: You have exceeded the limit of 25 scheduled posts for today' }]);
  t.equal((await publish(alice, { status: 'next day', scheduled_at: new Date(day + 86_400_000).toISOString() })).statusCode, 200, 'another day is fine');
});

t.test('GET (paged, Link), PUT, DELETE; others see 404', async (t) => {
  const ids: string[] = [];
  for (let i = 0; i < 3; i += 1) ids.push((await publish(alice, { status: `s${i}`, scheduled_at: at((10 + i) * MIN) })).json.id);
  const list = await h.request('GET', '/api/v1/scheduled_statuses?limit=2', { token: alice.token });
  t.same(list.json.map((s: { id: string }) => s.id), [ids[2], ids[1]], 'newest first');
  t.match(String(list.headers['link']), /max_id=/);
  t.same((await h.request('GET', '/api/v1/scheduled_statuses', { token: bob.token })).json, []);
  const later = at(60 * MIN);
  const moved = await h.request('PUT', `/api/v1/scheduled_statuses/${ids[0]}`, { token: alice.token, payload: { scheduled_at: later } });
  t.equal(moved.json.scheduled_at, later);
  const tooSoon = await h.request('PUT', `/api/v1/scheduled_statuses/${ids[0]}`, { token: alice.token, payload: { scheduled_at: at(MIN) } });
  t.same([tooSoon.statusCode, tooSoon.json], [422, { error: 'Validation failed: Scheduled at date must be in the future' }]);
  t.equal((await h.request('PUT', `/api/v1/scheduled_statuses/${ids[0]}`, { token: bob.token, payload: { scheduled_at: at(60 * MIN) } })).statusCode, 404);
  h.clock.advance(15 * MIN);
  await h.rookery.drain();
  t.equal(await count(), 2, 'the two unmoved ones were published; the moved one waits');
  h.clock.advance(50 * MIN);
  await h.rookery.drain();
  t.equal(await count(), 3, 'and the moved one at its new time, once');
  const gone = (await publish(alice, { status: 'cancel me', scheduled_at: at(10 * MIN) })).json.id;
  t.same((await h.request('DELETE', `/api/v1/scheduled_statuses/${gone}`, { token: bob.token })).statusCode, 404);
  t.same((await h.request('DELETE', `/api/v1/scheduled_statuses/${gone}`, { token: alice.token })).json, {});
  h.clock.advance(11 * MIN);
  await h.rookery.drain();
  t.equal(await count(), 3, 'a deleted one is never published');
});

t.test('without the plugin: scheduled_at is refused', async (t) => {
  const bare = await harness();
  const carol = await bare.user('carol');
  const res = await bare.request('POST', '/api/v1/statuses', { token: carol.token, payload: { status: 'x', scheduled_at: '2099-01-01T00:00:00Z' } });
  t.same([res.statusCode, res.json], [422, { error: 'Validation failed: Scheduled posts are not supported by this server' }]);
  t.same((await bare.request('GET', '/api/v1/scheduled_statuses', { token: carol.token })).json, [], 'the core placeholder answers the list');
  await bare.close();
});

t.test('a deleted account publishes nothing it scheduled before', async (t) => {
  await publish(alice, { status: 'after I am gone', scheduled_at: at(10 * MIN) });
  await h.rookery.accounts.delete(alice.account.id);
  await h.rookery.drain();
  h.clock.advance(11 * MIN);
  await h.rookery.drain();
  await h.core.hooks.jobs.find((j) => j.name === 'scheduled:sweep')?.run();
  t.strictSame(await h.core.storage.statuses.query({ visibilities: ['public', 'unlisted', 'private', 'direct'], authorId: alice.account.id }, { limit: 5 }), [], 'nothing published');
  t.equal((await h.core.storage.accounts.get(alice.account.id))?.statusesCount, 0);
});
