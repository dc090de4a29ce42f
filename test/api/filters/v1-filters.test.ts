// v1 filters, served from the v2 filters as Mastodon does: one v1 filter per keyword.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';

const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const other = await h.user('other');

// Each test starts with no filters (a v1 delete leaves its keyword-less filter behind).
t.afterEach(async () => {
  for (const f of (await h.request('GET', '/api/v2/filters', { token: me.token })).json) await h.request('DELETE', `/api/v2/filters/${f.id}`, { token: me.token });
});

const V1_KEYS = ['context', 'expires_at', 'id', 'irreversible', 'phrase', 'whole_word'];

t.test('create: a v2 filter titled with the phrase, holding one keyword', async (t) => {
  const res = await h.request('POST', '/api/v1/filters', { token: me.token, payload: { phrase: 'magic', context: ['home', 'public'], irreversible: true, whole_word: false } });
  t.equal(res.statusCode, 200);
  t.strictSame(Object.keys(res.json).sort(), V1_KEYS);
  t.match(res.json, { phrase: 'magic', context: ['home', 'public'], whole_word: false, expires_at: null, irreversible: true });
  const v2 = (await h.request('GET', '/api/v2/filters', { token: me.token })).json;
  t.equal(v2.length, 1);
  t.match(v2[0], { title: 'magic', context: ['home', 'public'], filter_action: 'hide', expires_at: null, statuses: [] });
  t.strictSame(v2[0].keywords, [{ id: res.json.id, keyword: 'magic', whole_word: false }]);
  t.strictSame((await h.request('GET', `/api/v1/filters/${res.json.id}`, { token: me.token })).json, res.json);
  t.equal((await h.request('GET', `/api/v1/filters/${res.json.id}`, { token: other.token })).statusCode, 404);
  t.strictSame((await h.request('GET', `/api/v1/filters/${res.json.id}`, { token: other.token })).json, { error: 'Record not found' });
  await h.request('DELETE', `/api/v2/filters/${v2[0].id}`, { token: me.token });
});

t.test('defaults: whole word, warn, and an expiry from expires_in', async (t) => {
  const before = Date.now();
  const res = await h.request('POST', '/api/v1/filters', { token: me.token, payload: { phrase: 'soon', context: ['thread'], expires_in: 3600 } });
  t.equal(res.statusCode, 200);
  t.match(res.json, { phrase: 'soon', whole_word: true, irreversible: false });
  const expires = Date.parse(res.json.expires_at);
  t.ok(expires >= before + 3600_000 - 1000 && expires <= Date.now() + 3600_000 + 1000, 'expires in an hour');
});

t.test("validation: Mastodon's texts", async (t) => {
  const none = await h.request('POST', '/api/v1/filters', { token: me.token, payload: {} });
  t.equal(none.statusCode, 422);
  t.strictSame(none.json, { error: "Validation failed: Title can't be blank, Context can't be blank, Context None or invalid context supplied" });
  const noContext = await h.request('POST', '/api/v1/filters', { token: me.token, payload: { phrase: 'x' } });
  t.equal(noContext.statusCode, 422);
  t.strictSame(noContext.json, { error: "Validation failed: Context can't be blank, Context None or invalid context supplied" });
  const badContext = await h.request('POST', '/api/v1/filters', { token: me.token, payload: { phrase: 'x', context: ['home', 'nowhere'] } });
  t.equal(badContext.statusCode, 422);
  t.strictSame(badContext.json, { error: 'Validation failed: Context None or invalid context supplied' });
  const long = await h.request('POST', '/api/v1/filters', { token: me.token, payload: { phrase: 'k'.repeat(65), context: ['home'] } });
  t.equal(long.statusCode, 422);
  t.strictSame(long.json, { error: 'Validation failed: Keyword is too long (maximum is 64 characters)' });
  t.strictSame((await h.request('GET', '/api/v1/filters', { token: me.token })).json, [], 'nothing was created');
});

t.test('list: one v1 filter per keyword of every v2 filter, oldest first', async (t) => {
  const v2 = (
    await h.request('POST', '/api/v2/filters', {
      token: me.token,
      payload: { title: 'Two', context: ['notifications'], filter_action: 'warn', keywords_attributes: [{ keyword: 'alpha' }, { keyword: 'beta', whole_word: false }] },
    })
  ).json;
  const single = (await h.request('POST', '/api/v1/filters', { token: me.token, payload: { phrase: 'gamma', context: ['account'] } })).json;
  const list = await h.request('GET', '/api/v1/filters', { token: me.token });
  t.equal(list.statusCode, 200);
  t.strictSame(list.json, [
    { id: v2.keywords[0].id, phrase: 'alpha', context: ['notifications'], whole_word: true, expires_at: null, irreversible: false },
    { id: v2.keywords[1].id, phrase: 'beta', context: ['notifications'], whole_word: false, expires_at: null, irreversible: false },
    single,
  ]);
  t.strictSame((await h.request('GET', '/api/v1/filters', { token: other.token })).json, []);

  // A filter change would change the other keyword too: refused, and nothing changes.
  const refused = await h.request('PUT', `/api/v1/filters/${v2.keywords[0].id}`, { token: me.token, payload: { phrase: 'alpha2', context: ['home'] } });
  t.equal(refused.statusCode, 422);
  t.strictSame(refused.json, {
    error: 'These parameters cannot be changed from this application because they apply to more than one filter keyword. Use a more recent application or the web interface.',
  });
  t.strictSame((await h.request('GET', `/api/v2/filters/${v2.id}`, { token: me.token })).json, v2);
  // Only the keyword's own whole_word: allowed.
  const wholeWord = await h.request('PUT', `/api/v1/filters/${v2.keywords[1].id}`, { token: me.token, payload: { whole_word: true } });
  t.equal(wholeWord.statusCode, 200);
  t.strictSame(wholeWord.json, { id: v2.keywords[1].id, phrase: 'beta', context: ['notifications'], whole_word: true, expires_at: null, irreversible: false });

  // Delete: the keyword goes; its filter stays with the other one.
  t.strictSame((await h.request('DELETE', `/api/v1/filters/${v2.keywords[0].id}`, { token: me.token })).json, {});
  t.strictSame((await h.request('GET', `/api/v2/filters/${v2.id}`, { token: me.token })).json.keywords, [{ id: v2.keywords[1].id, keyword: 'beta', whole_word: true }]);
  t.equal((await h.request('GET', `/api/v1/filters/${v2.keywords[0].id}`, { token: me.token })).statusCode, 404);
  t.equal((await h.request('DELETE', `/api/v1/filters/${v2.keywords[0].id}`, { token: me.token })).statusCode, 404);
  t.equal((await h.request('DELETE', `/api/v1/filters/${single.id}`, { token: other.token })).statusCode, 404);
});

t.test('update: the keyword and its single-keyword filter', async (t) => {
  const created = (await h.request('POST', '/api/v1/filters', { token: me.token, payload: { phrase: 'old', context: ['home'] } })).json;
  const res = await h.request('PUT', `/api/v1/filters/${created.id}`, { token: me.token, payload: { phrase: 'new', context: ['public', 'thread'], irreversible: true, whole_word: false } });
  t.equal(res.statusCode, 200);
  t.strictSame(res.json, { id: created.id, phrase: 'new', context: ['public', 'thread'], whole_word: false, expires_at: null, irreversible: true });
  const v2 = (await h.request('GET', '/api/v2/filters', { token: me.token })).json;
  t.match(v2, [{ title: 'new', context: ['public', 'thread'], filter_action: 'hide', keywords: [{ id: created.id, keyword: 'new', whole_word: false }] }]);
  const blank = await h.request('PUT', `/api/v1/filters/${created.id}`, { token: me.token, payload: { phrase: '' } });
  t.equal(blank.statusCode, 422);
  t.strictSame(blank.json, { error: "Validation failed: Keyword can't be blank" });
  const badContext = await h.request('PUT', `/api/v1/filters/${created.id}`, { token: me.token, payload: { context: ['elsewhere'] } });
  t.equal(badContext.statusCode, 422);
  t.strictSame(badContext.json, { error: 'Validation failed: Context None or invalid context supplied' });
  t.equal((await h.request('PUT', `/api/v1/filters/${created.id}`, { token: other.token, payload: { phrase: 'x' } })).statusCode, 404);
  t.equal((await h.request('PUT', '/api/v1/filters/abc', { token: me.token, payload: { phrase: 'x' } })).statusCode, 404);
  // Deleting the filter's last keyword leaves the (keyword-less) filter, as Mastodon does.
  t.strictSame((await h.request('DELETE', `/api/v1/filters/${created.id}`, { token: me.token })).json, {});
  t.strictSame((await h.request('GET', '/api/v1/filters', { token: me.token })).json, []);
  const left = (await h.request('GET', '/api/v2/filters', { token: me.token })).json;
  t.match(left, [{ title: 'new', keywords: [] }]);
});

t.test('a v1 filter filters statuses like its v2 filter', async (t) => {
  const created = (await h.request('POST', '/api/v1/filters', { token: me.token, payload: { phrase: 'dragon', context: ['home'] } })).json;
  const status = (await h.request('POST', '/api/v1/statuses', { token: other.token, payload: { status: 'here be dragon' } })).json;
  const seen = (await h.request('GET', `/api/v1/statuses/${status.id}`, { token: me.token })).json;
  t.match(seen.filtered, [{ keyword_matches: ['dragon'], status_matches: null, filter: { title: 'dragon', filter_action: 'warn' } }]);
  await h.request('DELETE', `/api/v1/filters/${created.id}`, { token: me.token });
});

t.test('scopes: read:filters reads, write:filters writes; signed in only', async (t) => {
  t.strictSame((await h.request('GET', '/api/v1/filters')).json, { error: 'The access token is invalid' });
  const reader = await h.user('v1reader', { scopes: ['read:filters'] });
  t.equal((await h.request('GET', '/api/v1/filters', { token: reader.token })).statusCode, 200);
  const refused = await h.request('POST', '/api/v1/filters', { token: reader.token, payload: { phrase: 'x', context: ['home'] } });
  t.equal(refused.statusCode, 403);
  t.strictSame(refused.json, { error: 'This action is outside the authorized scopes' });
  const writer = await h.user('v1writer', { scopes: ['write:filters'] });
  const created = await h.request('POST', '/api/v1/filters', { token: writer.token, payload: { phrase: 'x', context: ['home'] } });
  t.equal(created.statusCode, 200);
  t.equal((await h.request('GET', `/api/v1/filters/${created.json.id}`, { token: writer.token })).statusCode, 403);
  t.equal((await h.request('PUT', `/api/v1/filters/${created.json.id}`, { token: writer.token, payload: { whole_word: false } })).statusCode, 200);
  t.equal((await h.request('DELETE', `/api/v1/filters/${created.json.id}`, { token: writer.token })).statusCode, 200);
});
