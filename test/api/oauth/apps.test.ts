// POST /api/v1/apps and GET /api/v1/apps/verify_credentials over HTTP (docs/behaviour.md, "OAuth").

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { basic, CALLBACK, registerApp, tokenRequest } from '../../helpers/oauth.ts';

t.test('registering an application', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());

  t.test('returns the CredentialApplication, scopes default to read', async (t) => {
    const res = await h.request('POST', '/api/v1/apps', { payload: { client_name: 'Phanpy', redirect_uris: CALLBACK } });
    t.equal(res.statusCode, 200);
    t.match(res.json, {
      name: 'Phanpy',
      website: null,
      scopes: ['read'],
      redirect_uri: CALLBACK,
      redirect_uris: [CALLBACK],
      client_id: String,
      client_secret: String,
      client_secret_expires_at: 0,
      vapid_key: String,
    });
    t.match(res.json.id, /^\d+$/, 'id is a string of digits');
    t.ok(res.json.client_id.length >= 40 && res.json.client_secret.length >= 40, 'credentials carry 256 bits');
  });

  t.test('several redirect URIs and scopes, as strings or lists, in JSON, form and multipart', async (t) => {
    const other = 'myapp://oauth';
    const json = await h.request('POST', '/api/v1/apps', {
      payload: { client_name: 'Elk', redirect_uris: [CALLBACK, other], scopes: ['read', 'write', 'push'], website: 'https://elk.zone' },
    });
    t.equal(json.statusCode, 200);
    t.same(json.json.redirect_uris, [CALLBACK, other]);
    t.equal(json.json.redirect_uri, `${CALLBACK}\n${other}`, 'redirect_uri is the newline-joined list');
    t.same(json.json.scopes, ['read', 'write', 'push'], 'an array of scopes is accepted');
    t.equal(json.json.website, 'https://elk.zone');

    const form = await h.request('POST', '/api/v1/apps', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `client_name=Tusky&redirect_uris=${encodeURIComponent(`${CALLBACK}\n${other}`)}&scopes=read+write+write&website=`,
    });
    t.equal(form.statusCode, 200);
    t.same(form.json.redirect_uris, [CALLBACK, other], 'whitespace separated string');
    t.same(form.json.scopes, ['read', 'write'], 'duplicates collapse');
    t.equal(form.json.website, null, 'a blank website is null');

    const formList = await h.request('POST', '/api/v1/apps', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `client_name=Ivory&redirect_uris[]=${encodeURIComponent(CALLBACK)}&redirect_uris[]=${encodeURIComponent(other)}&scopes[]=read&scopes[]=follow`,
    });
    t.equal(formList.statusCode, 200);
    t.same(formList.json.redirect_uris, [CALLBACK, other]);
    t.same(formList.json.scopes, ['read', 'follow']);

    const boundary = 'rookeryboundary';
    const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const multipart = await h.request('POST', '/api/v1/apps', {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload: `${part('client_name', 'masto.js')}${part('redirect_uris', 'urn:ietf:wg:oauth:2.0:oob')}${part('scopes', 'read write')}--${boundary}--\r\n`,
    });
    t.equal(multipart.statusCode, 200);
    t.equal(multipart.json.name, 'masto.js');
    t.same(multipart.json.redirect_uris, ['urn:ietf:wg:oauth:2.0:oob'], 'the out-of-band URI is allowed');
    t.same(multipart.json.scopes, ['read', 'write']);
  });

  t.test('each validation error, with its text', async (t) => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['no name', { redirect_uris: CALLBACK }, "Validation failed: Application name can't be blank"],
      ['long name', { client_name: 'x'.repeat(61), redirect_uris: CALLBACK }, 'Validation failed: Application name is too long (maximum is 60 characters)'],
      ['no redirect URI', { client_name: 'A' }, "Validation failed: Redirect URI can't be blank"],
      ['relative redirect URI', { client_name: 'A', redirect_uris: '/callback' }, 'Validation failed: Redirect URI must be an absolute URI.'],
      ['invalid redirect URI', { client_name: 'A', redirect_uris: 'https://[bad/' }, 'Validation failed: Redirect URI must be a valid URI.'],
      ['fragment', { client_name: 'A', redirect_uris: `${CALLBACK}#x` }, 'Validation failed: Redirect URI cannot contain a fragment.'],
      ['javascript:', { client_name: 'A', redirect_uris: 'javascript:alert(1)' }, 'Validation failed: Redirect URI is forbidden by the server.'],
      ['data:', { client_name: 'A', redirect_uris: 'data:text/html,x' }, 'Validation failed: Redirect URI is forbidden by the server.'],
      ['long redirect URI', { client_name: 'A', redirect_uris: `https://app.example/${'x'.repeat(2000)}` }, 'Validation failed: Redirect URI is too long (maximum is 2000 characters)'],
      ['unknown scope', { client_name: 'A', redirect_uris: CALLBACK, scopes: 'read crypto' }, "Validation failed: Scopes doesn't match configured on the server."],
      ['no admin scope', { client_name: 'A', redirect_uris: CALLBACK, scopes: 'admin' }, "Validation failed: Scopes doesn't match configured on the server."],
      ['bad website', { client_name: 'A', redirect_uris: CALLBACK, website: 'not a url' }, 'Validation failed: Application website is invalid'],
      ['long website', { client_name: 'A', redirect_uris: CALLBACK, website: `https://a.example/${'x'.repeat(2000)}` }, 'Validation failed: Application website is too long (maximum is 2000 characters)'],
      ['several at once', {}, "Validation failed: Application name can't be blank, Redirect URI can't be blank"],
    ];
    for (const [label, payload, error] of cases) {
      const res = await h.request('POST', '/api/v1/apps', { payload });
      t.equal(res.statusCode, 422, `${label}: 422`);
      t.same(res.json, { error }, `${label}: text`);
    }
  });

  t.test('needs no token, and ignores a bad one', async (t) => {
    const res = await h.request('POST', '/api/v1/apps', { token: 'not-a-token', payload: { client_name: 'A', redirect_uris: CALLBACK } });
    t.equal(res.statusCode, 200);
  });
});

t.test('GET /api/v1/apps/verify_credentials', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const app = await registerApp(h, { client_name: 'Verifier', website: 'https://verifier.example', scopes: 'read write' });
  const issued = await tokenRequest(h, { grant_type: 'client_credentials', scope: 'write' }, { authorization: basic(app.client_id, app.client_secret) });
  t.equal(issued.statusCode, 200);

  const expected = {
    id: app.id,
    name: 'Verifier',
    website: 'https://verifier.example',
    scopes: ['read', 'write'],
    redirect_uri: CALLBACK,
    redirect_uris: [CALLBACK],
    vapid_key: '',
  };
  const res = await h.request('GET', '/api/v1/apps/verify_credentials', { token: issued.json.access_token });
  t.equal(res.statusCode, 200, 'an app token, whatever its scopes');
  t.same(res.json, expected, 'the Application, never its credentials');
  t.notOk('client_secret' in res.json || 'client_id' in res.json);

  const alice = await h.user('alice', { scopes: ['read:statuses'] });
  const byUser = await h.request('GET', '/api/v1/apps/verify_credentials', { token: alice.token });
  t.equal(byUser.statusCode, 200, 'a user token works too');
  t.equal(byUser.json.name, "alice's app");

  const viaQuery = await h.request('GET', `/api/v1/apps/verify_credentials?access_token=${issued.json.access_token}`);
  t.equal(viaQuery.statusCode, 200, 'the token may come in the access_token query parameter');

  for (const [label, token] of [['missing', undefined], ['unknown', 'nope']] as const) {
    const refused = await h.request('GET', '/api/v1/apps/verify_credentials', token === undefined ? {} : { token });
    t.equal(refused.statusCode, 401, `${label} token`);
    t.same(refused.json, { error: 'The access token is invalid' });
  }
});
