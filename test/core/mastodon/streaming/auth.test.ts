// Who may open a stream, and the exact refusals of docs/behaviour.md, "Streaming", through the
// core's stream entry on the in-process bus.

import t from 'tap';
import { sink } from '../../../helpers/streams.ts';
import { harness, type Harness } from '../../../helpers/harness.ts';

let h: Harness;
t.beforeEach(async () => {
  h = await harness();
});
t.afterEach(() => h.close());

t.test('the token: header first, then access_token, then the WebSocket protocol', async (t) => {
  const alice = await h.user('alice');
  const hub = h.rookery.streaming;
  t.strictSame(await hub.authenticate({}), { status: 401, error: 'Missing access token' });
  t.strictSame(await hub.authenticate({ authorization: 'Bearer nope' }), { status: 401, error: 'Invalid access token' });
  t.strictSame((await hub.authenticate({ authorization: `Bearer ${alice.token}` })) as object, { tokenId: (await hub.authenticate({ accessToken: alice.token }) as { tokenId: string }).tokenId, accountId: alice.account.id, scopes: ['read', 'write', 'follow'] });
  t.match(await hub.authenticate({ protocol: alice.token }), { accountId: alice.account.id }, 'Sec-WebSocket-Protocol carries the token for masto.js');
  t.strictSame(await hub.authenticate({ authorization: 'Bearer wrong', accessToken: alice.token }), { status: 401, error: 'Invalid access token' }, 'the header wins even when wrong');
  t.match(await hub.authenticate({ authorization: 'Basic abc', accessToken: alice.token }), { accountId: alice.account.id }, 'a header that is no bearer token is not a token');
});

t.test('app tokens, revoked tokens, disabled, unconfirmed and pending users are refused alike', async (t) => {
  const hub = h.rookery.streaming;
  const app = await h.app(['read']);
  t.strictSame(await hub.authenticate({ accessToken: app.token }), { status: 401, error: 'Invalid access token' }, 'an app token');
  const bob = await h.user('bob');
  const carol = await h.user('carol');
  await h.core.storage.accounts.updateUser(carol.account.id, { disabled: true });
  const dave = await h.user('dave', { confirmed: false });
  const erin = await h.user('erin', { approved: false });
  for (const user of [carol, dave, erin]) {
    t.strictSame(await hub.authenticate({ accessToken: user.token }), { status: 401, error: 'Invalid access token' }, user.account.username);
  }
  const { token } = bob;
  const revoked = await h.core.storage.oauth.findTokenByHash(h.core.secrets.sha256(token));
  await h.core.storage.oauth.revokeToken(revoked?.id ?? '', Date.now());
  t.strictSame(await hub.authenticate({ accessToken: token }), { status: 401, error: 'Invalid access token' }, 'a revoked token');
});

t.test('subscription refusals: scopes, unknown streams, missing tag or list, a list of someone else', async (t) => {
  const writer = await h.user('writer', { scopes: ['write'] });
  const reader = await h.user('reader', { scopes: ['read:statuses'] });
  const owner = await h.user('owner');
  const other = await h.user('other');
  const list = (await h.request('POST', '/api/v1/lists', { token: owner.token, payload: { title: 'mine' } })).json;
  const open = async (user: typeof writer) => {
    const identity = await h.rookery.streaming.authenticate({ accessToken: user.token });
    if ('error' in identity) throw new Error(identity.error);
    return h.rookery.streaming.connect(identity, sink().output);
  };
  const scopes = { status: 401, error: 'Access token does not have the required scopes' };
  const w = await open(writer);
  t.strictSame(await w.subscribe('public', {}), scopes, 'a token without read may connect but not subscribe');
  t.strictSame(await w.subscribe('user', {}), scopes);
  const r = await open(reader);
  t.equal(await r.subscribe('public:local', {}), null, 'read:statuses reads timelines');
  t.strictSame(await r.subscribe('user:notification', {}), scopes, 'notifications need read or read:notifications');
  const o = await open(owner);
  t.strictSame(await o.subscribe('nonsense', {}), { status: 400, error: 'Unknown stream type' });
  t.strictSame(await o.subscribe('hashtag', {}), { status: 400, error: 'Missing tag name parameter' });
  t.strictSame(await o.subscribe('hashtag:local', { tag: '' }), { status: 400, error: 'Missing tag name parameter' });
  t.strictSame(await o.subscribe('list', {}), { status: 400, error: 'Missing list name parameter' });
  t.equal(await o.subscribe('list', { list: list.id }), null, 'the owner streams their list');
  const x = await open(other);
  t.strictSame(await x.subscribe('list', { list: list.id }), { status: 401, error: 'Not authorized to stream this list' });
  t.strictSame(await x.subscribe('list', { list: '999999999999' }), { status: 401, error: 'Not authorized to stream this list' }, 'a list that does not exist');
  t.strictSame(await x.subscribe('list', { list: 'not-an-id' }), { status: 401, error: 'Not authorized to stream this list' });
  t.equal(await o.unsubscribe('public', {}), null, 'unsubscribing what was never subscribed is silent');
  t.strictSame(await o.unsubscribe('nonsense', {}), { status: 400, error: 'Error unsubscribing from channel' });
  t.strictSame(h.rookery.streaming.stats(), { connections: 4, subscriptions: 2, channels: 2 });
  for (const c of [w, r, o, x]) await c.close();
  t.strictSame(h.rookery.streaming.stats(), { connections: 0, subscriptions: 0, channels: 0 }, 'closing releases every channel');
});

t.test('SSE paths: the path decides the stream; refusals in Mastodon\'s order', async (t) => {
  const alice = await h.user('alice');
  const hub = h.rookery.streaming;
  const out = sink().output;
  t.strictSame(await hub.openSse('/api/v1/streaming/nowhere', {}, { accessToken: alice.token }, out), { status: 400, error: 'Unknown channel requested' });
  t.strictSame(await hub.openSse('/api/v1/streaming/nowhere', {}, {}, out), { status: 400, error: 'Unknown channel requested' }, 'an unknown path before the token');
  t.strictSame(await hub.openSse('/api/v1/streaming/public', {}, {}, out), { status: 401, error: 'Missing access token' });
  t.strictSame(await hub.openSse('/api/v1/streaming/hashtag', {}, { accessToken: alice.token }, out), { status: 400, error: 'Missing tag name parameter' });
  t.strictSame(await hub.openSse('/api/v1/streaming/list', {}, { accessToken: alice.token }, out), { status: 400, error: 'Missing list name parameter' });
  t.equal(hub.stats().connections, 0, 'a refused stream leaves nothing behind');
  for (const [path, query] of [
    ['/api/v1/streaming/user', {}],
    ['/api/v1/streaming/user/notification', {}],
    ['/api/v1/streaming/public', {}],
    ['/api/v1/streaming/public', { only_media: 'true' }],
    ['/api/v1/streaming/public/local', { only_media: '1' }],
    ['/api/v1/streaming/public/remote', { only_media: 'false' }],
    ['/api/v1/streaming/hashtag', { tag: 'Cats' }],
    ['/api/v1/streaming/hashtag/local', { tag: 'cats' }],
    ['/api/v1/streaming/direct', {}],
  ] as const) {
    const opened = await hub.openSse(path, query, { accessToken: alice.token }, out);
    t.notOk('error' in opened, `${path} ${JSON.stringify(query)}`);
  }
  t.strictSame(hub.stats(), { connections: 9, subscriptions: 9, channels: 8 }, 'hashtag Cats and cats share a channel; user and user:notification too');
});
