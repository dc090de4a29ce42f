// POST /api/v1/accounts (sign-up by an app) and GET /api/v1/accounts/verify_credentials over
// HTTP (docs/behaviour.md, "OAuth").

import t from 'tap';
import { harness, type Harness } from '../../helpers/harness.ts';
import { registerApp, tokenRequest } from '../../helpers/oauth.ts';

async function appToken(h: Harness, registered = 'read write follow', scope = 'read write'): Promise<{ token: string; appId: string }> {
  const app = await registerApp(h, { scopes: registered });
  const res = await tokenRequest(h, { grant_type: 'client_credentials', scope, client_id: app.client_id, client_secret: app.client_secret });
  if (res.statusCode !== 200) throw new Error(res.body);
  return { token: res.json.access_token, appId: app.id };
}

const signUp = (h: Harness, token: string | undefined, payload: Record<string, unknown>) =>
  h.request('POST', '/api/v1/accounts', token === undefined ? { payload } : { token, payload });

const valid = { username: 'newbie', email: 'newbie@example.com', password: 'a good password', agreement: 'true', locale: 'de' };

t.test('signing up', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const { token, appId } = await appToken(h);

  const res = await signUp(h, token, valid);
  t.equal(res.statusCode, 200);
  t.same(Object.keys(res.json).sort(), ['access_token', 'created_at', 'scope', 'token_type']);
  t.match(res.json, { access_token: /^[\w-]{43}$/, token_type: 'Bearer', scope: 'read write follow', created_at: Number }, "the app's registered scopes");

  const me = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: res.json.access_token });
  t.equal(me.statusCode, 200, 'confirmed and approved by default');
  t.match(me.json, {
    username: 'newbie',
    acct: 'newbie',
    display_name: '',
    locked: false,
    source: { privacy: 'public', sensitive: false, note: '', fields: [], follow_requests_count: 0 },
    role: { id: '-99' },
  });
  const account = await h.core.storage.accounts.findByUsername('newbie', null);
  const user = await h.core.storage.accounts.getUser(account!.id);
  t.equal(user?.createdByApplicationId, appId, 'remembers the app that created it');
  t.equal(user?.locale, 'de');
  t.notOk(user?.passwordHash.includes('a good password'), 'the password is hashed');
  t.equal((await signUp(h, token, { ...valid, username: 'second', email: 'second@example.com', agreement: true })).statusCode, 200, 'a JSON true');
  t.equal((await signUp(h, token, { ...valid, username: 'third', email: 'third@example.com', agreement: '1', locale: undefined })).statusCode, 200, "'1'");
});

t.test('who may sign people up', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const none = await signUp(h, undefined, valid);
  t.equal(none.statusCode, 401);
  t.same(none.json, { error: 'The access token is invalid' });

  const readOnly = await appToken(h, 'read', 'read');
  const outside = await signUp(h, readOnly.token, valid);
  t.equal(outside.statusCode, 403);
  t.same(outside.json, { error: 'This action is outside the authorized scopes' });

  const alice = await h.user('alice');
  const user = await signUp(h, alice.token, valid);
  t.equal(user.statusCode, 403);
  t.same(user.json, { error: 'This method requires an client credentials authentication' }, '(sic)');

  const narrow = await appToken(h, 'read write:accounts', 'write:accounts');
  t.equal((await signUp(h, narrow.token, valid)).statusCode, 200, 'write:accounts is enough');
});

t.test('validation: every error at once, with details', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const { token } = await appToken(h);
  await h.user('taken');

  const blank = await signUp(h, token, {});
  t.equal(blank.statusCode, 422);
  t.same(blank.json, {
    error: "Validation failed: Username can't be blank, Email can't be blank, Password can't be blank, Agreement must be accepted",
    details: {
      username: [{ error: 'ERR_BLANK', description: "can't be blank" }],
      email: [{ error: 'ERR_BLANK', description: "can't be blank" }],
      password: [{ error: 'ERR_BLANK', description: "can't be blank" }],
      agreement: [{ error: 'ERR_ACCEPTED', description: 'must be accepted' }],
    },
  });

  const cases: [string, Record<string, unknown>, string, string, string][] = [
    ['taken username', { username: 'TAKEN' }, 'username', 'ERR_TAKEN', 'is already taken'],
    ['taken e-mail', { email: 'taken@example.com' }, 'email', 'ERR_TAKEN', 'is already taken'],
    ['reserved username', { username: 'admin' }, 'username', 'ERR_RESERVED', 'is reserved'],
    ['invalid username', { username: 'no spaces' }, 'username', 'ERR_INVALID', 'must contain only letters, numbers and underscores'],
    ['long username', { username: 'x'.repeat(31) }, 'username', 'ERR_TOO_LONG', 'is too long (maximum is 30 characters)'],
    ['invalid e-mail', { email: 'not-an-email' }, 'email', 'ERR_INVALID', 'is invalid'],
    ['short password', { password: 'short' }, 'password', 'ERR_TOO_SHORT', 'is too short (minimum is 8 characters)'],
    ['long password', { password: 'x'.repeat(73) }, 'password', 'ERR_TOO_LONG', 'is too long (maximum is 72 characters)'],
    ['agreement refused', { agreement: 'false' }, 'agreement', 'ERR_ACCEPTED', 'must be accepted'],
    ['agreement 0', { agreement: '0' }, 'agreement', 'ERR_ACCEPTED', 'must be accepted'],
    ['unknown locale', { locale: 'xx' }, 'locale', 'ERR_INCLUSION', 'is not included in the list'],
  ];
  const labels: Record<string, string> = { username: 'Username', email: 'Email', password: 'Password', agreement: 'Agreement', locale: 'Locale' };
  for (const [label, change, field, code, description] of cases) {
    const res = await signUp(h, token, { ...valid, ...change });
    t.equal(res.statusCode, 422, `${label}: 422`);
    t.same(res.json, { error: `Validation failed: ${labels[field]} ${description}`, details: { [field]: [{ error: code, description }] } }, `${label}: text and details`);
  }
});

t.test('closed registrations', async (t) => {
  const h = await harness({ config: { registrations: { open: false } } });
  t.teardown(() => h.close());
  const { token } = await appToken(h);
  const res = await signUp(h, token, valid);
  t.equal(res.statusCode, 403);
  t.same(res.json, { error: 'This action is not allowed' });
  t.equal(await h.core.storage.accounts.findByUsername('newbie', null), null, 'nobody was created');
});

t.test('approval and confirmation required', async (t) => {
  const approval = await harness({ config: { registrations: { approvalRequired: true } } });
  t.teardown(() => approval.close());
  const { token } = await appToken(approval);
  const noReason = await signUp(approval, token, valid);
  t.equal(noReason.statusCode, 422, 'a reason is required');
  t.same(noReason.json, { error: "Validation failed: Reason can't be blank", details: { reason: [{ error: 'ERR_BLANK', description: "can't be blank" }] } });
  const pending = await signUp(approval, token, { ...valid, reason: 'I like birds' });
  t.equal(pending.statusCode, 200);
  const pendingMe = await approval.request('GET', '/api/v1/accounts/verify_credentials', { token: pending.json.access_token });
  t.equal(pendingMe.statusCode, 403);
  t.same(pendingMe.json, { error: 'Your login is currently pending approval' });

  const both = await harness({ config: { registrations: { approvalRequired: true, confirmationRequired: true } } });
  t.teardown(() => both.close());
  const unconfirmed = await signUp(both, (await appToken(both)).token, { ...valid, reason: 'birds' });
  t.equal(unconfirmed.statusCode, 200);
  const me = await both.request('GET', '/api/v1/accounts/verify_credentials', { token: unconfirmed.json.access_token });
  t.equal(me.statusCode, 403, 'confirmation is checked first');
  t.same(me.json, { error: 'Your login is missing a confirmed e-mail address' });
  const apps = await both.request('GET', '/api/v1/apps/verify_credentials', { token: unconfirmed.json.access_token });
  t.equal(apps.statusCode, 200, 'the token itself is valid');
});

t.test('verify_credentials counts pending follow requests', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  for (const name of ['bob', 'carol']) {
    const follower = await h.user(name);
    await h.core.storage.relationships.requestFollow({
      id: h.core.ids.next(),
      accountId: follower.account.id,
      targetAccountId: alice.account.id,
      showReblogs: true,
      notify: false,
      languages: null,
      createdAt: h.core.clock.now(),
    });
  }
  const res = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: alice.token });
  t.equal(res.json.source.follow_requests_count, 2);
  const app = await h.app(['read']);
  const appRes = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: app.token });
  t.equal(appRes.statusCode, 422);
  t.same(appRes.json, { error: 'This method requires an authenticated user' });
});
