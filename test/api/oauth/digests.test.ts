// Secrets at rest: client secrets, access and refresh tokens, authorization codes and session
// ids are stored only as digests. The flows run on the SQLite store, whose every table is then
// read directly and searched for any of the plain values handed out.

import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import t from 'tap';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { harness } from '../../helpers/harness.ts';
import { authorizeQuery, Browser, CALLBACK, forms, PASSWORD, pkce, registerApp, tokenRequest } from '../../helpers/oauth.ts';

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');

t.test('no plain secret anywhere in the store', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rookery-digests-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'store.db');
  const h = await harness({ storage: openSqliteStorage({ path }), config: { refreshTokens: true } });
  t.teardown(() => h.close());
  await h.user('alice');

  const app = await registerApp(h);
  const creds = { client_id: app.client_id, client_secret: app.client_secret };
  const plain: Record<string, string> = { client_secret: app.client_secret };

  // The browser flow: session cookie, code, then the token and its refresh token.
  const browser = new Browser(h);
  const { verifier, challenge } = pkce();
  const consent = await browser.consent(authorizeQuery(app, { code_challenge: challenge, code_challenge_method: 'S256' }), 'alice');
  plain['session'] = browser.cookies.get('_rookery_session')!;
  plain['csrf'] = forms(consent.body)[0]!.fields['authenticity_token']!;
  const approved = await browser.decide(consent.body, 'approve');
  plain['code'] = new URL(approved.location!).searchParams.get('code')!;
  const exchanged = await tokenRequest(h, { grant_type: 'authorization_code', code: plain['code'], redirect_uri: CALLBACK, code_verifier: verifier, ...creds });
  t.equal(exchanged.statusCode, 200);
  plain['code_token'] = exchanged.json.access_token;
  plain['refresh_token'] = exchanged.json.refresh_token;
  plain['password_token'] = (await tokenRequest(h, { grant_type: 'password', username: 'alice', password: PASSWORD, ...creds })).json.access_token;
  plain['app_token'] = (await tokenRequest(h, { grant_type: 'client_credentials', scope: 'write', ...creds })).json.access_token;
  const signUp = await h.request('POST', '/api/v1/accounts', { token: plain['app_token']!, payload: { username: 'newbie', email: 'n@example.com', password: 'a good password', agreement: true } });
  t.equal(signUp.statusCode, 200);
  plain['signup_token'] = signUp.json.access_token;
  plain['password'] = PASSWORD;

  const db = new DatabaseSync(path, { readOnly: true });
  t.teardown(() => db.close());
  const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((row) => row.name);
  t.ok(tables.length > 5, `read ${tables.length} tables`);
  const readAll = (table: string) => {
    const statement = db.prepare(`SELECT * FROM "${table}"`);
    statement.setReadBigInts(true); // ids exceed 2^53
    return JSON.stringify(statement.all(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
  };
  const dump = tables.map(readAll).join('\n');

  for (const [name, value] of Object.entries(plain)) {
    t.ok(value.length >= 20, `${name} was handed out`);
    if (name === 'csrf') continue; // the form token is stored as issued: it is worthless without the session cookie
    t.notOk(dump.includes(value), `${name}: the plain value is nowhere in the store`);
  }
  for (const name of ['client_secret', 'code', 'code_token', 'password_token', 'app_token', 'signup_token', 'session']) {
    t.ok(dump.includes(digest(plain[name]!)), `${name}: its digest is what is stored`);
  }
});
