// Every input bounded (the hardening issue, part A): holes a hostile-input campaign found, each
// reproduced here over HTTP. A status's raw length, filters and their keywords, titles, ids,
// redirect URIs, sign-up and sign-in fields, the OAuth parameters echoed back, JSON bodies.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { json } from '../../../core/mastodon/endpoint/types.ts';
import type { RookeryPlugin } from '../../../core/mastodon/host/types.ts';
import { post } from '../../helpers/api.ts';
import { harness } from '../../helpers/harness.ts';
import { authorizeQuery, Browser, CALLBACK, forms, registerApp } from '../../helpers/oauth.ts';

// SQLite: where a value the core let through used to fail deep in the adapter (a 500).
const dir = mkdtempSync(join(tmpdir(), 'rookery-bounds-'));
const h = await harness({ storage: openSqliteStorage({ path: join(dir, 'bounds.sqlite3') }) });
t.teardown(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});
const alice = await h.user('alice');
const bob = await h.user('bob');

const publish = (payload: unknown, token = alice.token) => h.request('POST', '/api/v1/statuses', { token, payload });

t.test('a status is bounded by its raw length, whatever it counts', async (t) => {
  const huge = `https://example.com/${'a'.repeat(15 * 1024 * 1024)}`;
  const res = await publish({ status: huge });
  t.equal(res.statusCode, 422, 'a 15 MB one-URL status');
  t.same(res.json, { error: 'Validation failed: Text is too long (maximum is 10000 characters)' });
  const withWarning = await publish({ status: 'x'.repeat(9_000), spoiler_text: 'y'.repeat(1_001) });
  t.same([withWarning.statusCode, withWarning.json.error], [422, 'Validation failed: Text is too long (maximum is 10000 characters)'], 'text and warning together');
  const longest = `https://example.com/${'a'.repeat(10_000 - 'https://example.com/'.length)}`;
  const atLimit = await publish({ status: longest });
  t.equal(atLimit.statusCode, 200, 'exactly 10,000 raw characters, 23 counted, is a post');
  const edit = await h.request('PUT', `/api/v1/statuses/${atLimit.json.id}`, { token: alice.token, payload: { status: huge } });
  t.same([edit.statusCode, edit.json], [422, { error: 'Validation failed: Text is too long (maximum is 10000 characters)' }], 'an edit too');
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.statuses_count, 1, 'nothing else was written');
});

t.test('keyword filters: keywords per filter, filters per account, lengths', async (t) => {
  const started = performance.now();
  const keywords = (n: number) => Array.from({ length: n }, (_, i) => ({ keyword: `k${i}` }));
  const twentyThousand = await h.request('POST', '/api/v2/filters', { token: alice.token, payload: { title: 't', context: ['home'], keywords_attributes: keywords(20_000) } });
  t.same([twentyThousand.statusCode, twentyThousand.json], [400, { error: 'JSON payload has too many values (at most 10000)' }], '20,000 keywords: refused unread');
  const many = Array.from({ length: 9_000 }, (_, i) => `k${i}`);
  const nineThousand = await h.request('POST', '/api/v2/filters', { token: alice.token, payload: { title: 't', context: ['home'], keywords_attributes: [{ keyword: many }] } });
  t.same([nineThousand.statusCode, nineThousand.json], [422, { error: 'Validation failed: A filter can have at most 50 keywords' }], '9,000 keywords');
  const fifty = Array.from({ length: 50 }, (_, i) => ({ keyword: `w${i}` }));
  const full = await h.request('POST', '/api/v2/filters', { token: alice.token, payload: { title: 'full', context: ['home'], keywords_attributes: fifty } });
  t.equal(full.statusCode, 200, '50 keywords');
  const oneMore = await h.request('POST', `/api/v2/filters/${full.json.id}/keywords`, { token: alice.token, payload: { keyword: 'one more' } });
  t.same([oneMore.statusCode, oneMore.json], [422, { error: 'Validation failed: A filter can have at most 50 keywords' }], 'the 51st, added alone');
  const viaUpdate = await h.request('PUT', `/api/v2/filters/${full.json.id}`, { token: alice.token, payload: { keywords_attributes: [{ keyword: 'again' }] } });
  t.equal(viaUpdate.statusCode, 422, 'the 51st, through an update');
  const swapped = await h.request('PUT', `/api/v2/filters/${full.json.id}`, {
    token: alice.token,
    payload: { keywords_attributes: [{ id: full.json.keywords[0].id, _destroy: true }, { keyword: 'instead' }] },
  });
  t.equal(swapped.statusCode, 200, 'one out, one in: still 50');
  t.equal(swapped.json.keywords.length, 50);

  const long = await h.request('POST', '/api/v2/filters', { token: alice.token, payload: { title: 't', context: ['home'], keywords_attributes: [{ keyword: 'k'.repeat(65) }] } });
  t.same([long.statusCode, long.json], [422, { error: 'Validation failed: Keywords keyword is too long (maximum is 64 characters)' }]);
  const longAlone = await h.request('POST', `/api/v2/filters/${full.json.id}/keywords`, { token: alice.token, payload: { keyword: 'k'.repeat(65) } });
  t.same([longAlone.statusCode, longAlone.json], [422, { error: 'Validation failed: Keyword is too long (maximum is 64 characters)' }]);
  const title = await h.request('POST', '/api/v2/filters', { token: alice.token, payload: { title: 'x'.repeat(1024 * 1024), context: ['home'] } });
  t.same([title.statusCode, title.json], [422, { error: 'Validation failed: Title is too long (maximum is 256 characters)' }], 'a 1 MB title');

  for (let i = 1; i < 50; i++) {
    const res = await h.request('POST', '/api/v2/filters', { token: alice.token, payload: { title: `f${i}`, context: ['home'] } });
    if (res.statusCode !== 200) t.fail(`filter ${i}: ${res.statusCode} ${res.body}`);
  }
  const fiftyFirst = await h.request('POST', '/api/v2/filters', { token: alice.token, payload: { title: 'one too many', context: ['home'] } });
  t.same([fiftyFirst.statusCode, fiftyFirst.json], [422, { error: 'Validation failed: You have reached the maximum number of filters' }], 'the 51st filter');
  t.equal((await h.request('GET', '/api/v2/filters', { token: alice.token })).json.length, 50);
  t.ok(performance.now() - started < 20_000, 'no request froze the server');
  t.equal((await h.request('GET', '/api/v1/timelines/home', { token: alice.token })).statusCode, 200, 'timelines still render with the filters');
});

t.test('a filter holds a bounded number of statuses', async (t) => {
  const small = await harness({ config: { limits: { maxFilterStatuses: 2 } } });
  t.teardown(() => small.close());
  const me = await small.user('me');
  const filter = (await small.request('POST', '/api/v2/filters', { token: me.token, payload: { title: 'f', context: ['home'] } })).json;
  for (const text of ['a', 'b', 'c']) {
    const status = await post(small, me, text);
    const res = await small.request('POST', `/api/v2/filters/${filter.id}/statuses`, { token: me.token, payload: { status_id: status.id } });
    if (text === 'c') t.same([res.statusCode, res.json], [422, { error: 'Validation failed: A filter can have at most 2 statuses' }]);
    else t.equal(res.statusCode, 200);
  }
});

t.test('a JSON body with 130,000 keyword entries is refused before any work, not a 500', async (t) => {
  const entry: Record<string, string> = {};
  for (let i = 0; i < 130_000; i++) entry[`k${i}`] = 'x';
  const res = await h.request('POST', '/api/v2/filters', { token: bob.token, payload: { title: 't', context: ['home'], keywords_attributes: [entry] } });
  t.same([res.statusCode, res.json], [400, { error: 'JSON payload has too many values (at most 10000)' }]);
  const wide: Record<string, string> = {};
  for (let i = 0; i < 5_000; i++) wide[`k${i}`] = 'x';
  const allowed = await h.request('POST', '/api/v2/filters', { token: bob.token, payload: { title: 'wide', context: ['home'], keywords_attributes: [{ ...wide, keyword: 'w' }] } });
  t.equal(allowed.statusCode, 200, 'an entry with thousands of unknown fields is one keyword');
  t.same(allowed.json.keywords.map((k: { keyword: string }) => k.keyword), ['w']);
});

t.test('list titles and members per request', async (t) => {
  const res = await h.request('POST', '/api/v1/lists', { token: bob.token, payload: { title: 'x'.repeat(1024 * 1024) } });
  t.same([res.statusCode, res.json], [422, { error: 'Validation failed: Title is too long (maximum is 256 characters)' }]);
  const list = (await h.request('POST', '/api/v1/lists', { token: bob.token, payload: { title: 'ok' } })).json;
  const renamed = await h.request('PUT', `/api/v1/lists/${list.id}`, { token: bob.token, payload: { title: 'y'.repeat(257) } });
  t.same([renamed.statusCode, renamed.json], [422, { error: 'Validation failed: Title is too long (maximum is 256 characters)' }]);
  const ids = Array.from({ length: 101 }, (_, i) => String(1000 + i));
  const added = await h.request('POST', `/api/v1/lists/${list.id}/accounts`, { token: bob.token, payload: { account_ids: ids } });
  t.same([added.statusCode, added.json], [422, { error: 'Too many ids requested' }]);
});

t.test('markers: a last_read_id that is not an id is 422, not a 500 from the store', async (t) => {
  for (const id of ['abc', '-1', '1e5', '99999999999999999999999']) {
    const res = await h.request('POST', '/api/v1/markers', { token: alice.token, payload: { home: { last_read_id: id } } });
    t.same([res.statusCode, res.json], [422, { error: 'Validation failed: Last read is invalid' }], id);
  }
});

t.test('path ids are checked at the edge: anything but an id is 404', async (t) => {
  // A plugin endpoint that trusts its :id, as a store would (SQLite refuses a non-integer key).
  const trusting: RookeryPlugin = {
    name: 'trusting',
    register(host) {
      host.addEndpoint({
        method: 'GET',
        path: '/api/v1/trusting/:id',
        auth: 'public',
        scopes: [],
        handle: async (request) => {
          const id = request.params['id'] ?? '';
          if (!/^[0-9]+$/.test(id)) throw new Error(`not an integer key: ${id}`);
          return json({ id });
        },
      });
    },
  };
  const withPlugin = await harness({ plugins: [trusting] });
  t.teardown(() => withPlugin.close());
  for (const id of ['abc', '%E2%80%AE1', '1%20OR%201']) {
    const res = await withPlugin.request('GET', `/api/v1/trusting/${id}`);
    t.same([res.statusCode, res.json], [404, { error: 'Record not found' }], `a plugin's :id ${id}`);
  }
  t.same((await withPlugin.request('GET', '/api/v1/trusting/42')).json, { id: '42' });
  const list = (await h.request('POST', '/api/v1/lists', { token: alice.token, payload: { title: 'l' } })).json;
  for (const id of ['abc', '0', '-5', '9223372036854775808', '%EF%BC%91', '1.0']) {
    for (const path of [`/api/v1/statuses/${id}`, `/api/v1/timelines/list/${id}`, `/api/v1/lists/${id}/accounts`, `/api/v2/filters/keywords/${id}`, `/api/v1/notifications/${id}`]) {
      const res = await h.request('GET', path, { token: alice.token });
      t.same([res.statusCode, res.json], [404, { error: 'Record not found' }], path);
    }
  }
  t.equal((await h.request('GET', `/api/v1/timelines/list/${list.id}`, { token: alice.token })).statusCode, 200, 'a real id still works');
});

t.test('redirect URIs: what RFC 3986 and Mastodon accept, nothing else', async (t) => {
  const refused: [string, string][] = [
    ['https://client.example/café', 'Validation failed: Redirect URI must be a valid URI.'],
    ['https://client.example/\u0001', 'Validation failed: Redirect URI must be a valid URI.'],
    ['https://client.example/a"b', 'Validation failed: Redirect URI must be a valid URI.'],
    ['https://client.example/%zz', 'Validation failed: Redirect URI must be a valid URI.'],
    ['https://client.example/[x]', 'Validation failed: Redirect URI must be a valid URI.'],
    ['https://client.example:80x/', 'Validation failed: Redirect URI must be a valid URI.'],
    ['vbscript:msgbox', 'Validation failed: Redirect URI is forbidden by the server.'],
  ];
  for (const [uri, error] of refused) {
    const res = await h.request('POST', '/api/v1/apps', { payload: { client_name: 'A', redirect_uris: [uri] } });
    t.same([res.statusCode, res.json], [422, { error }], JSON.stringify(uri));
  }
  for (const uri of ['https://client.example/caf%C3%A9', 'com.example.app:/oauth', 'elk://callback', 'http://localhost:4000/cb?x=1', 'https://[::1]:8080/cb', 'https://u:p@client.example/cb']) {
    const res = await h.request('POST', '/api/v1/apps', { payload: { client_name: 'A', redirect_uris: [uri] } });
    t.equal(res.statusCode, 200, `${uri} is a URI`);
  }
});

t.test('an app stored with such a redirect URI (before the check) cannot break /oauth/authorize', async (t) => {
  const registered = await h.request('POST', '/api/v1/apps', { payload: { client_name: 'Legacy', redirect_uris: 'https://client.example/ok' } });
  const app = await h.core.storage.oauth.findApplicationByClientId(registered.json.client_id);
  if (app === null) throw new Error('no app');
  const legacy = { ...app, id: h.core.smallIds.next(), clientId: `${app.clientId}-legacy`, redirectUris: ['https://client.example/café\u0001'] };
  await h.core.storage.oauth.createApplication(legacy);
  const query = new URLSearchParams({ client_id: legacy.clientId, redirect_uri: 'https://client.example/café\u0001', response_type: 'token' });
  const res = await h.request('GET', `/oauth/authorize?${query.toString()}`);
  t.equal(res.statusCode, 302, 'the error goes back to the client');
  t.equal(String(res.headers['location']).split('?')[0], 'https://client.example/caf%C3%A9%01', 'with its URI %-encoded');
});

t.test('OAuth parameters echoed into forms and redirects are bounded', async (t) => {
  const app = await registerApp(h);
  const res = await h.request('GET', `/oauth/authorize?${authorizeQuery(app, { state: 's'.repeat(2001) })}`);
  t.equal(res.statusCode, 302);
  const location = new URL(String(res.headers['location']));
  t.equal(`${location.origin}${location.pathname}`, CALLBACK);
  t.same(Object.fromEntries(location.searchParams), {
    error: 'invalid_request',
    error_description: 'The state parameter is too long (maximum is 2000 characters).',
  }, 'refused, and the state is not echoed');
  t.equal((await h.request('GET', `/oauth/authorize?${authorizeQuery(app, { state: 's'.repeat(2000) })}`)).statusCode, 200, '2000 is fine');
});

t.test('sign-in and the password grant refuse logins and passwords no one can have, without hashing them', async (t) => {
  const app = await registerApp(h);
  // Counts the hashes the server computes (scrypt's cost grows with the password).
  const secrets = h.core.secrets;
  const verify = secrets.verifyPassword.bind(secrets);
  let hashed = 0;
  secrets.verifyPassword = (password, hash) => {
    hashed++;
    return verify(password, hash);
  };
  t.teardown(() => void (secrets.verifyPassword = verify));
  const grant = await h.request('POST', '/oauth/token', {
    payload: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: 'alice@example.com', password: 'p'.repeat(4 * 1024 * 1024) },
  });
  t.same([grant.statusCode, grant.json.error], [400, 'invalid_grant'], 'a 4 MB password');
  const browser = new Browser(h);
  const page = await browser.get(`/oauth/authorize?${authorizeQuery(app)}`);
  const form = forms(page.body).find((f) => f.action === '/auth/sign_in');
  if (form === undefined) throw new Error('no sign-in form');
  const signIn = await browser.post('/auth/sign_in', { ...form.fields, 'user[email]': 'a'.repeat(100_000), 'user[password]': 'correct horse battery' });
  t.equal(signIn.statusCode, 401, 'a 100 kB login');
  t.match(signIn.body, 'Invalid email or password.');
  t.equal(hashed, 0, 'no password was hashed');
  const normal = await h.request('POST', '/oauth/token', {
    payload: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: 'alice@example.com', password: 'correct horse battery' },
  });
  t.same([normal.statusCode, hashed], [200, 1], 'a real sign-in still hashes once');
});

t.test('sign-up: the reason is at most 420 characters (Mastodon)', async (t) => {
  const approval = await harness({ config: { registrations: { approvalRequired: true } } });
  t.teardown(() => approval.close());
  const { token } = await approval.app(['read', 'write']);
  const res = await approval.request('POST', '/api/v1/accounts', {
    token,
    payload: { username: 'newbie', email: 'newbie@example.com', password: 'long enough password', agreement: true, reason: 'r'.repeat(421) },
  });
  t.equal(res.statusCode, 422);
  t.same(res.json, {
    error: 'Validation failed: Reason is too long (maximum is 420 characters)',
    details: { reason: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 420 characters)' }] },
  });
  const email = await approval.request('POST', '/api/v1/accounts', {
    token,
    payload: { username: 'other', email: `${'a'.repeat(60_000)}@${'b.'.repeat(30_000)}`, password: 'long enough password', agreement: true, reason: 'r' },
  });
  t.same([email.statusCode, email.json.details.email], [422, [{ error: 'ERR_INVALID', description: 'is invalid' }]], 'a 120 kB address, refused at once');
});

t.test('accounts made from code: the display name is at most 30 characters (Mastodon)', async (t) => {
  const refused = await h.rookery.accounts.create({ username: 'named', email: 'named@example.com', displayName: 'n'.repeat(1024 * 1024) }).catch((err: Error) => err);
  t.equal((refused as Error).message, 'Validation failed: Display name is too long (maximum is 30 characters)');
  t.equal((await h.rookery.accounts.create({ username: 'named', email: 'named@example.com', displayName: 'n'.repeat(30) })).displayName, 'n'.repeat(30));
});

t.test('follow languages: known codes only, each once', async (t) => {
  const carol = await h.user('carol');
  const refused = await h.request('POST', `/api/v1/accounts/${carol.account.id}/follow`, { token: bob.token, payload: { languages: ['en', 'x'.repeat(10_000)] } });
  t.same([refused.statusCode, refused.json], [422, { error: 'Validation failed: Languages is invalid' }]);
  const followed = await h.request('POST', `/api/v1/accounts/${carol.account.id}/follow`, { token: bob.token, payload: { languages: ['en', 'EN', 'de-AT'] } });
  t.same([followed.statusCode, followed.json.languages], [200, ['en', 'de']]);
});
