// Editing (PUT /api/v1/statuses/:id), its history and its source.

import t from 'tap';
import { harness, record, type Harness, type TestUser } from '../../helpers/harness.ts';
import { act, post, view } from '../../helpers/api.ts';

let h: Harness;
let alice: TestUser;
let bob: TestUser;

t.beforeEach(async () => {
  h = await harness();
  alice = await h.user('alice');
  bob = await h.user('bob');
});
t.afterEach(async () => {
  await h.close();
});

function edit(user: TestUser, id: string, payload: Record<string, unknown>) {
  return h.request('PUT', `/api/v1/statuses/${id}`, { token: user.token, payload });
}

t.test('an edit changes text, warning and language; keeps visibility; sets edited_at', async (t) => {
  const s = await post(h, alice, { status: 'first #one', visibility: 'unlisted' });
  t.equal(s.edited_at, null);
  const res = await edit(alice, s.id, { status: 'second #two', spoiler_text: 'cw', language: 'fr', visibility: 'public' });
  t.equal(res.statusCode, 200);
  t.equal(res.json.id, s.id, 'same status');
  t.match(res.json.content, /^<p>second <a href="https:\/\/rookery\.test\/tags\/two"/);
  t.same(res.json.tags.map((tag: { name: string }) => tag.name), ['two']);
  t.equal(res.json.spoiler_text, 'cw');
  t.equal(res.json.sensitive, true);
  t.equal(res.json.language, 'fr');
  t.equal(res.json.visibility, 'unlisted', 'visibility never changes');
  t.match(res.json.edited_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  t.equal((await view(h, null, s.id)).json.content, res.json.content, 'reads see the edit');
});

t.test('history: the original first, then each revision; an unedited status has one entry', async (t) => {
  const s = await post(h, alice, 'v1');
  const single = await view(h, null, s.id, '/history');
  t.equal(single.statusCode, 200);
  t.equal(single.json.length, 1);
  t.equal(single.json[0].content, '<p>v1</p>');
  t.equal(single.json[0].account.id, alice.account.id);
  h.clock.advance(1000);
  await edit(alice, s.id, { status: 'v2' });
  h.clock.advance(1000);
  await edit(alice, s.id, { status: 'v3', spoiler_text: 'w' });
  const history = await view(h, null, s.id, '/history');
  t.same(history.json.map((e: { content: string }) => e.content), ['<p>v1</p>', '<p>v2</p>', '<p>v3</p>']);
  t.same(history.json.map((e: { spoiler_text: string }) => e.spoiler_text), ['', '', 'w']);
  t.same(Object.keys(history.json[0]).sort(), ['account', 'content', 'created_at', 'emojis', 'media_attachments', 'poll', 'sensitive', 'spoiler_text']);
  const times = history.json.map((e: { created_at: string }) => Date.parse(e.created_at));
  t.ok(times[0] < times[1] && times[1] < times[2], 'oldest first');
});

t.test('an edit that changes nothing records nothing', async (t) => {
  const s = await post(h, alice, 'same');
  const res = await edit(alice, s.id, { status: 'same' });
  t.equal(res.json.edited_at, null);
  t.equal((await view(h, null, s.id, '/history')).json.length, 1);
});

t.test("source: the plain text for the editor; someone else's visible status too", async (t) => {
  const s = await post(h, alice, { status: 'plain *text* @bob', spoiler_text: 'cw' });
  const res = await view(h, alice, s.id, '/source');
  t.equal(res.statusCode, 200);
  t.same(res.json, { id: s.id, text: 'plain *text* @bob', spoiler_text: 'cw' });
  t.equal((await view(h, bob, s.id, '/source')).statusCode, 200);
  t.equal((await view(h, null, s.id, '/source')).statusCode, 401, 'needs a token');
});

t.test('refusals: not own, missing, validations, plugin parameters', async (t) => {
  const s = await post(h, alice, 'mine');
  const others = await edit(bob, s.id, { status: 'hijack' });
  t.equal(others.statusCode, 404);
  t.same(others.json, { error: 'Record not found' });
  t.equal((await edit(alice, '99999999', { status: 'x' })).statusCode, 404);
  const blank = await edit(alice, s.id, { status: '' });
  t.equal(blank.statusCode, 422);
  t.same(blank.json, { error: "Validation failed: Text can't be blank" });
  const long = await edit(alice, s.id, { status: 'x'.repeat(501) });
  t.same(long.json, { error: 'Validation failed: Text character limit of 500 exceeded' });
  const media = await edit(alice, s.id, { status: 'x', media_ids: ['1'] });
  t.equal(media.statusCode, 422);
  const boost = await act(h, alice, (await post(h, bob, 'b')).id, 'reblog');
  t.equal((await edit(alice, boost.json.id, { status: 'x' })).statusCode, 404, 'a boost cannot be edited');
  t.equal((await h.request('PUT', `/api/v1/statuses/${s.id}`, { payload: { status: 'x' } })).statusCode, 401);
});

t.test('an edit emits status.update and notifies those who boosted', async (t) => {
  const s = await post(h, alice, 'before');
  await act(h, bob, s.id, 'reblog');
  const events = await record(h.bus, ['timeline:public', `timeline:${bob.account.id}`]);
  await edit(alice, s.id, { status: 'after' });
  const update = events.messages.find((m) => m.channel === 'timeline:public');
  t.equal(update?.message.event, 'status.update');
  t.equal(JSON.parse(update?.message.payload ?? '{}').content, '<p>after</p>');
  const note = events.messages.find((m) => m.channel === `timeline:${bob.account.id}` && m.message.event === 'notification');
  t.equal(JSON.parse(note?.message.payload ?? '{}').type, 'update', 'the booster is told');
  await events.stop();
});
