// Spec part 7 over HTTP, for every status operation: the 401s, the 404s (missing, deleted,
// private, not an id) and the scopes each operation accepts, with exact bodies.

import t from 'tap';
import { harness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { post } from '../../helpers/api.ts';
import { issueToken } from '../../../core/mastodon/oauth/tokens.ts';

interface Op {
  n: number;
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: string; // after /api/v1/statuses/:id
  needsToken: boolean;
  scope: string | null; // the narrow scope that suffices
}

const OPS: Op[] = [
  { n: 2, name: 'view', method: 'GET', path: '', needsToken: false, scope: 'read:statuses' },
  { n: 3, name: 'delete', method: 'DELETE', path: '', needsToken: true, scope: 'write:statuses' },
  { n: 4, name: 'context', method: 'GET', path: '/context', needsToken: false, scope: 'read:statuses' },
  { n: 5, name: 'reblogged_by', method: 'GET', path: '/reblogged_by', needsToken: false, scope: 'read:accounts' },
  { n: 6, name: 'favourited_by', method: 'GET', path: '/favourited_by', needsToken: false, scope: 'read:accounts' },
  { n: 7, name: 'favourite', method: 'POST', path: '/favourite', needsToken: true, scope: 'write:favourites' },
  { n: 8, name: 'unfavourite', method: 'POST', path: '/unfavourite', needsToken: true, scope: 'write:favourites' },
  { n: 9, name: 'reblog', method: 'POST', path: '/reblog', needsToken: true, scope: 'write:statuses' },
  { n: 10, name: 'unreblog', method: 'POST', path: '/unreblog', needsToken: true, scope: 'write:statuses' },
  { n: 11, name: 'bookmark', method: 'POST', path: '/bookmark', needsToken: true, scope: 'write:bookmarks' },
  { n: 12, name: 'unbookmark', method: 'POST', path: '/unbookmark', needsToken: true, scope: 'write:bookmarks' },
  { n: 13, name: 'mute', method: 'POST', path: '/mute', needsToken: true, scope: 'write:mutes' },
  { n: 14, name: 'unmute', method: 'POST', path: '/unmute', needsToken: true, scope: 'write:mutes' },
  { n: 15, name: 'pin', method: 'POST', path: '/pin', needsToken: true, scope: 'write:accounts' },
  { n: 16, name: 'unpin', method: 'POST', path: '/unpin', needsToken: true, scope: 'write:accounts' },
  { n: 17, name: 'card', method: 'GET', path: '/card', needsToken: false, scope: null },
];

const INVALID = { error: 'The access token is invalid' };
const NOT_FOUND = { error: 'Record not found' };
const OUTSIDE = { error: 'This action is outside the authorized scopes' };

let h: Harness;
let alice: TestUser;
let bob: TestUser;
let open: string;
let hidden: string;
let gone: string;

t.before(async () => {
  h = await harness();
  alice = await h.user('alice');
  bob = await h.user('bob');
  open = (await post(h, alice, 'public')).id;
  hidden = (await post(h, alice, { status: 'followers only', visibility: 'private' })).id;
  gone = (await post(h, alice, 'to be deleted')).id;
  await h.request('DELETE', `/api/v1/statuses/${gone}`, { token: alice.token });
});
t.after(async () => {
  await h.close();
});

function call(op: Op, id: string, headers: Record<string, string> = {}) {
  return h.server.inject({ method: op.method, url: `/api/v1/statuses/${id}${op.path}`, headers });
}

for (const op of OPS) {
  t.test(`operation ${op.n} (${op.name})`, async (t) => {
    if (op.needsToken) {
      const missing = await call(op, open);
      t.equal(missing.statusCode, 401, 'no Authorization header: 401');
      t.same(JSON.parse(missing.payload), INVALID);
      const wrong = await call(op, open, { authorization: 'Bearer not-a-token' });
      t.equal(wrong.statusCode, 401, 'unknown token: 401');
      t.same(JSON.parse(wrong.payload), INVALID);
      const malformed = await call(op, open, { authorization: 'Basic abc' });
      t.equal(malformed.statusCode, 401, 'not a bearer token: 401');
    } else {
      const anonymous = await call(op, open);
      t.equal(anonymous.statusCode, 200, 'a public status needs no token');
    }
    for (const [label, id] of [['missing', '999999999999999999'], ['deleted', gone], ['not an id', 'abc'], ['private, caller cannot see it', hidden]] as const) {
      const res = await call(op, id, { authorization: `Bearer ${bob.token}` });
      t.equal(res.statusCode, 404, `${label}: 404`);
      t.same(JSON.parse(res.payload), NOT_FOUND, `${label}: Record not found`);
    }
    if (!op.needsToken) {
      const anonymousPrivate = await call(op, hidden);
      t.equal(anonymousPrivate.statusCode, 404, 'private status, anonymous caller: 404');
    }
  });
}

t.test('scopes: the narrow scope suffices, nothing outside it does', async (t) => {
  for (const op of OPS) {
    if (op.scope === null) continue;
    // Each operation gets a state in which it succeeds: its own status to delete or pin, a
    // boost or bookmark to undo.
    const own = op.name === 'delete' || op.name === 'pin' || op.name === 'unpin';
    const actor = own ? alice : bob;
    const target = own ? (await post(h, alice, `${op.name} me`)).id : open;
    if (op.name === 'unreblog') await h.request('POST', `/api/v1/statuses/${target}/reblog`, { token: bob.token });
    if (op.name === 'unbookmark') await h.request('POST', `/api/v1/statuses/${target}/bookmark`, { token: bob.token });
    const ok = await call(op, target, { authorization: `Bearer ${await tokenWith(actor, [op.scope])}` });
    t.equal(ok.statusCode, 200, `${op.name} with only ${op.scope}`);
    const family = op.scope.startsWith('read') ? 'read' : 'write';
    const withParent = (await call(op, open, { authorization: `Bearer ${await tokenWith(bob, [family])}` })).statusCode;
    t.ok(withParent !== 401 && withParent !== 403, `${op.name}: the parent scope ${family} passes the scope check`);
    const wrong = family === 'read' ? 'write' : 'read';
    const refused = await call(op, open, { authorization: `Bearer ${await tokenWith(bob, [wrong, 'push', 'profile'])}` });
    t.equal(refused.statusCode, 403, `${op.name} with ${wrong} push profile`);
    t.same(JSON.parse(refused.payload), OUTSIDE);
  }
});

async function tokenWith(user: TestUser, scopes: string[]): Promise<string> {
  return (await issueToken(h.core, user.application.id, user.account.id, scopes)).accessToken;
}

t.test('publish (operation 1): 401 without a token, 403 without write:statuses, 422 for an app token', async (t) => {
  const missing = await h.request('POST', '/api/v1/statuses', { payload: { status: 'x' } });
  t.equal(missing.statusCode, 401);
  t.same(missing.json, INVALID);
  const reader = await h.user('reader', { scopes: ['read'] });
  const refused = await h.request('POST', '/api/v1/statuses', { token: reader.token, payload: { status: 'x' } });
  t.equal(refused.statusCode, 403);
  t.same(refused.json, OUTSIDE);
  const writer = await h.user('writer', { scopes: ['write:statuses'] });
  t.equal((await h.request('POST', '/api/v1/statuses', { token: writer.token, payload: { status: 'x' } })).statusCode, 200);
  const app = await h.app(['write']);
  const appOnly = await h.request('POST', '/api/v1/statuses', { token: app.token, payload: { status: 'x' } });
  t.equal(appOnly.statusCode, 422, 'an app token acts for nobody');
  t.same(appOnly.json, { error: 'This method requires an authenticated user' });
});

t.test('the token may also come from the access_token query parameter', async (t) => {
  const res = await h.request('POST', `/api/v1/statuses/${open}/favourite?access_token=${bob.token}`);
  t.equal(res.statusCode, 200);
  t.equal(res.json.favourited, true);
});

t.test('an unknown token on an endpoint that allows anonymous callers reads anonymously', async (t) => {
  const res = await h.request('GET', `/api/v1/statuses/${open}`, { token: 'unknown' });
  t.equal(res.statusCode, 200);
  t.notOk('favourited' in res.json);
});
