// v2 filters, their keywords and statuses, and filters_changed on the bus.

import t from 'tap';
import { harness, record } from '../../helpers/harness.ts';
import { post } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const other = await h.user('other');

async function create(payload: unknown, token = me.token) {
  return h.request('POST', '/api/v2/filters', { token, payload });
}

t.test('create with keywords; read; list', async (t) => {
  const res = await create({ title: 'Spoilers', context: ['home', 'public'], filter_action: 'hide', keywords_attributes: [{ keyword: 'dragon' }, { keyword: 'ring', whole_word: false }] });
  t.equal(res.statusCode, 200);
  t.same(Object.keys(res.json).sort(), ['context', 'expires_at', 'filter_action', 'id', 'keywords', 'statuses', 'title']);
  t.match(res.json, { title: 'Spoilers', context: ['home', 'public'], filter_action: 'hide', expires_at: null, statuses: [] });
  t.same(res.json.keywords.map((k: { keyword: string; whole_word: boolean }) => [k.keyword, k.whole_word]), [['dragon', true], ['ring', false]]);
  t.same((await h.request('GET', `/api/v2/filters/${res.json.id}`, { token: me.token })).json, res.json);
  t.same((await h.request('GET', '/api/v2/filters', { token: me.token })).json, [res.json]);
  t.same((await h.request('GET', '/api/v2/filters', { token: other.token })).json, []);
  t.equal((await h.request('GET', `/api/v2/filters/${res.json.id}`, { token: other.token })).statusCode, 404);
});

t.test('form-encoded keywords_attributes, both Rails styles', async (t) => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  const indexed = await h.request('POST', '/api/v2/filters', {
    token: me.token,
    headers: form,
    payload: 'title=Indexed&context[]=thread&keywords_attributes[0][keyword]=a&keywords_attributes[0][whole_word]=false&keywords_attributes[1][keyword]=b',
  });
  t.equal(indexed.statusCode, 200);
  t.same(indexed.json.keywords.map((k: { keyword: string; whole_word: boolean }) => [k.keyword, k.whole_word]), [['a', false], ['b', true]]);
  const bracketed = await h.request('POST', '/api/v2/filters', {
    token: me.token,
    headers: form,
    payload: 'title=Bracketed&context[]=thread&keywords_attributes[][keyword]=x&keywords_attributes[][keyword]=y',
  });
  t.same(bracketed.json.keywords.map((k: { keyword: string }) => k.keyword), ['x', 'y']);
  for (const id of [indexed.json.id, bracketed.json.id]) await h.request('DELETE', `/api/v2/filters/${id}`, { token: me.token });
});

t.test('validation', async (t) => {
  const cases: [unknown, string][] = [
    [{ context: ['home'] }, "Validation failed: Title can't be blank"],
    [{ title: 'x' }, "Validation failed: Context can't be blank, Context None or invalid context supplied"],
    [{ title: 'x', context: ['home', 'elsewhere'] }, 'Validation failed: Context None or invalid context supplied'],
    [{ title: '', context: [] }, "Validation failed: Title can't be blank, Context can't be blank, Context None or invalid context supplied"],
    [{ title: 'x', context: ['home'], filter_action: 'explode' }, 'Validation failed: Filter action is not included in the list'],
    [{ title: 'x', context: ['home'], keywords_attributes: [{ keyword: '', whole_word: true }] }, "Validation failed: Keywords keyword can't be blank"],
  ];
  for (const [payload, error] of cases) {
    const res = await create(payload);
    t.equal(res.statusCode, 422, JSON.stringify(payload));
    t.same(res.json, { error });
  }
  const blankEntry = await create({ title: 'x', context: ['home'], keywords_attributes: [{ keyword: '' }] });
  t.equal(blankEntry.statusCode, 200, 'an all-blank keyword entry is skipped, as Rails does');
  t.same(blankEntry.json.keywords, []);
  t.equal((await h.request('DELETE', `/api/v2/filters/${blankEntry.json.id}`, { token: me.token })).statusCode, 200);
});

t.test('expiry: expires_in seconds, null clears it, expired filters no longer match', async (t) => {
  const res = await create({ title: 'Soon', context: ['home'], expires_in: 3600, keywords_attributes: [{ keyword: 'temporary' }] });
  t.match(res.json.expires_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  t.ok(Math.abs(Date.parse(res.json.expires_at) - (h.clock.now() + 3_600_000)) < 2000);
  const status = await post(h, other, 'a temporary thing');
  const seen = async () => (await h.request('GET', `/api/v1/statuses/${status.id}`, { token: me.token })).json.filtered;
  t.same((await seen()).map((f: { filter: { id: string } }) => f.filter.id), [res.json.id]);
  h.clock.advance(3_601_000);
  t.same(await seen(), [], 'expired');
  const renewed = await h.request('PUT', `/api/v2/filters/${res.json.id}`, { token: me.token, payload: { expires_in: null } });
  t.equal(renewed.json.expires_at, null);
  t.equal((await seen()).length, 1);
  await h.request('DELETE', `/api/v2/filters/${res.json.id}`, { token: me.token });
});

t.test('update: fields, keywords added, changed and destroyed', async (t) => {
  const created = await create({ title: 'T', context: ['home'], keywords_attributes: [{ keyword: 'one' }, { keyword: 'two' }] });
  const [one, two] = created.json.keywords;
  const res = await h.request('PUT', `/api/v2/filters/${created.json.id}`, {
    token: me.token,
    payload: {
      title: 'T2',
      context: ['notifications'],
      filter_action: 'blur',
      keywords_attributes: [{ id: one.id, keyword: 'uno', whole_word: false }, { id: two.id, _destroy: true }, { keyword: 'three' }],
    },
  });
  t.equal(res.statusCode, 200);
  t.match(res.json, { id: created.json.id, title: 'T2', context: ['notifications'], filter_action: 'blur' });
  t.same(res.json.keywords.map((k: { id: string; keyword: string; whole_word: boolean }) => [k.id === one.id, k.keyword, k.whole_word]), [[true, 'uno', false], [false, 'three', true]]);
  const unknownKeyword = await h.request('PUT', `/api/v2/filters/${created.json.id}`, { token: me.token, payload: { keywords_attributes: [{ id: '999', keyword: 'x' }] } });
  t.equal(unknownKeyword.statusCode, 404);
  const invalid = await h.request('PUT', `/api/v2/filters/${created.json.id}`, { token: me.token, payload: { context: [] } });
  t.equal(invalid.statusCode, 422);
  t.equal((await h.request('PUT', `/api/v2/filters/${created.json.id}`, { token: other.token, payload: { title: 'mine' } })).statusCode, 404);
  const deleted = await h.request('DELETE', `/api/v2/filters/${created.json.id}`, { token: me.token });
  t.same(deleted.json, {});
  t.equal((await h.request('GET', `/api/v2/filters/${created.json.id}`, { token: me.token })).statusCode, 404);
});

t.test('keyword endpoints', async (t) => {
  const filter = (await create({ title: 'K', context: ['home'] })).json;
  const added = await h.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: me.token, payload: { keyword: 'spoiler', whole_word: false } });
  t.equal(added.statusCode, 200);
  t.same(Object.keys(added.json).sort(), ['id', 'keyword', 'whole_word']);
  t.match(added.json, { keyword: 'spoiler', whole_word: false });
  const blank = await h.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: me.token, payload: { keyword: '' } });
  t.equal(blank.statusCode, 422);
  t.same(blank.json, { error: "Validation failed: Keyword can't be blank" });
  t.same((await h.request('GET', `/api/v2/filters/${filter.id}/keywords`, { token: me.token })).json, [added.json]);
  t.same((await h.request('GET', `/api/v2/filters/keywords/${added.json.id}`, { token: me.token })).json, added.json);
  t.equal((await h.request('GET', `/api/v2/filters/keywords/${added.json.id}`, { token: other.token })).statusCode, 404);
  const changed = await h.request('PUT', `/api/v2/filters/keywords/${added.json.id}`, { token: me.token, payload: { keyword: 'leak' } });
  t.same(changed.json, { id: added.json.id, keyword: 'leak', whole_word: false });
  t.same((await h.request('DELETE', `/api/v2/filters/keywords/${added.json.id}`, { token: me.token })).json, {});
  t.same((await h.request('GET', `/api/v2/filters/${filter.id}`, { token: me.token })).json.keywords, []);
  t.equal((await h.request('DELETE', `/api/v2/filters/keywords/${added.json.id}`, { token: me.token })).statusCode, 404);
});

t.test('status endpoints', async (t) => {
  const filter = (await create({ title: 'S', context: ['home'] })).json;
  const status = await post(h, other, 'hide me');
  const added = await h.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: me.token, payload: { status_id: status.id } });
  t.equal(added.statusCode, 200);
  t.same(Object.keys(added.json).sort(), ['id', 'status_id']);
  t.equal(added.json.status_id, status.id);
  const again = await h.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: me.token, payload: { status_id: status.id } });
  t.equal(again.statusCode, 422);
  t.same(again.json, { error: 'Validation failed: Status has already been taken' });
  t.equal((await h.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: me.token, payload: { status_id: '123' } })).statusCode, 404);
  t.same((await h.request('GET', `/api/v2/filters/${filter.id}/statuses`, { token: me.token })).json, [added.json]);
  t.same((await h.request('GET', `/api/v2/filters/statuses/${added.json.id}`, { token: me.token })).json, added.json);
  const filtered = (await h.request('GET', `/api/v1/statuses/${status.id}`, { token: me.token })).json.filtered;
  // Mastodon's status_matches: the matched status ids, not the FilterStatus ids.
  t.strictSame(filtered.map((f: { status_matches: string[] }) => f.status_matches), [[status.id]]);
  const third = await h.user('booster');
  const boost = (await h.request('POST', `/api/v1/statuses/${status.id}/reblog`, { token: third.token })).json;
  const viaBoost = (await h.request('GET', `/api/v1/statuses/${boost.id}`, { token: me.token })).json;
  t.strictSame(viaBoost.reblog.filtered.map((f: { status_matches: string[] }) => f.status_matches), [[status.id]]);
  t.same((await h.request('DELETE', `/api/v2/filters/statuses/${added.json.id}`, { token: me.token })).json, {});
  t.same((await h.request('GET', `/api/v2/filters/${filter.id}/statuses`, { token: me.token })).json, []);
});

t.test('every change sends filters_changed to the owner, and only to the owner', async (t) => {
  const recorder = await record(h.bus, [`timeline:${me.account.id}`, `timeline:${other.account.id}`]);
  const filter = (await create({ title: 'Bus', context: ['home'] })).json;
  await h.request('PUT', `/api/v2/filters/${filter.id}`, { token: me.token, payload: { title: 'Bus 2' } });
  const keyword = (await h.request('POST', `/api/v2/filters/${filter.id}/keywords`, { token: me.token, payload: { keyword: 'k' } })).json;
  await h.request('PUT', `/api/v2/filters/keywords/${keyword.id}`, { token: me.token, payload: { keyword: 'kk' } });
  await h.request('DELETE', `/api/v2/filters/keywords/${keyword.id}`, { token: me.token });
  await h.request('DELETE', `/api/v2/filters/${filter.id}`, { token: me.token });
  await create({ title: '', context: ['home'] }); // refused: nothing changed
  await recorder.stop();
  t.same(recorder.messages, Array.from({ length: 6 }, () => ({ channel: `timeline:${me.account.id}`, message: { event: 'filters_changed' } })));
});

t.test('scopes', async (t) => {
  t.equal((await h.request('GET', '/api/v2/filters')).statusCode, 401);
  const reader = await h.user('freader', { scopes: ['read:filters'] });
  t.equal((await h.request('GET', '/api/v2/filters', { token: reader.token })).statusCode, 200);
  const refused = await h.request('POST', '/api/v2/filters', { token: reader.token, payload: { title: 'x', context: ['home'] } });
  t.equal(refused.statusCode, 403);
  const writer = await h.user('fwriter', { scopes: ['write:filters'] });
  t.equal((await h.request('POST', '/api/v2/filters', { token: writer.token, payload: { title: 'x', context: ['home'] } })).statusCode, 200);
});
