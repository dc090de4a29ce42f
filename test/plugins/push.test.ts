// Web Push (plugins/push) as Mastodon clients use it: the subscription endpoints and their
// errors, the VAPID key (made once, kept in the store, announced by the instance and the apps),
// and deliveries to a push service on 127.0.0.1 that the test decrypts with the subscription's
// own keys: only for the alerts and policy asked for, only for notifications the recipient may
// see, never to a disabled login nor after the token is revoked, retried when the service
// fails, dropped when it says the subscription is gone.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openSqliteStorage } from '../../adapters/sqlite/index.ts';
import type { Notification } from '../../core/domain/model.ts';
import { nodePushTransport, pushPlugin, pushStorage } from '../../plugins/push/index.ts';
import { follow, post } from '../helpers/api.ts';
import { harness, type Harness, type TestUser } from '../helpers/harness.ts';
import { decryptPush, startPushService, userAgentKeys, verifyVapid, type PushService, type UserAgentKeys } from '../helpers/push-service.ts';
import { defaultPolicy } from '../../core/domain/notifications/screening.ts';

const NOT_FOUND = { error: 'Record not found' };
const PUSH_USER = ['read', 'write', 'follow', 'push'];

let h: Harness;
let service: PushService;
let alice: TestUser;
let bob: TestUser;
t.beforeEach(async () => {
  service = await startPushService();
  h = await harness({ plugins: [pushPlugin({ allowLocalEndpoints: true })], config: { contactEmail: 'staff@rookery.test' } });
  alice = await h.user('alice', { scopes: PUSH_USER });
  bob = await h.user('bob', { scopes: PUSH_USER });
  // These tests are about private mentions reaching bob: he takes them from anyone (by default
  // Mastodon filters those from people one does not follow).
  await h.core.storage.notificationPolicies.setPolicy({ ...defaultPolicy(bob.account.id), forPrivateMentions: 'accept' });
});
t.afterEach(async () => {
  await h.close();
  await service.close();
});

function subscribe(user: TestUser, keys: UserAgentKeys, data: Record<string, unknown> = {}, path = '/bob') {
  return h.request('POST', '/api/v1/push/subscription', {
    token: user.token,
    payload: { subscription: { endpoint: `${service.origin}${path}`, keys: { p256dh: keys.p256dh, auth: keys.auth } }, data },
  });
}

const ALL_OFF = { mention: false, status: false, reblog: false, follow: false, follow_request: false, favourite: false, poll: false, update: false, quote: false, quoted_update: false, 'admin.sign_up': false, 'admin.report': false };

t.test('without a subscription: GET and PUT are 404 Record not found, DELETE is {}', async (t) => {
  for (const method of ['GET', 'PUT']) {
    const res = await h.request(method, '/api/v1/push/subscription', { token: bob.token, payload: {} });
    t.equal(res.statusCode, 404, `${method}: 404 (Elk asks on every page load)`);
    t.strictSame(res.json, NOT_FOUND);
  }
  const gone = await h.request('DELETE', '/api/v1/push/subscription', { token: bob.token });
  t.equal(gone.statusCode, 200);
  t.strictSame(gone.json, {});
  const anonymous = await h.request('GET', '/api/v1/push/subscription');
  t.equal(anonymous.statusCode, 401);
  t.strictSame(anonymous.json, { error: 'The access token is invalid' });
  const noPush = await h.user('nopush', { scopes: ['read', 'write'] });
  const refused = await h.request('GET', '/api/v1/push/subscription', { token: noPush.token });
  t.equal(refused.statusCode, 403, 'the push scope is needed');
  t.strictSame(refused.json, { error: 'This action is outside the authorized scopes' });
});

t.test('create, read, change, replace, delete; one subscription per token', async (t) => {
  const keys = userAgentKeys();
  const created = await subscribe(bob, keys, { alerts: { mention: true, favourite: 'true', nonsense: true }, policy: 'followed' });
  t.equal(created.statusCode, 200);
  const instance = await h.request('GET', '/api/v2/instance');
  const serverKey = instance.json.configuration.vapid.public_key;
  t.match(serverKey, /^B[\w-]{86}$/, 'the VAPID public key: an uncompressed P-256 point, base64url');
  t.strictSame(created.json, {
    id: created.json.id,
    endpoint: `${service.origin}/bob`,
    standard: true,
    alerts: { ...ALL_OFF, mention: true, favourite: true },
    policy: 'followed',
    server_key: serverKey,
  });
  t.match(created.json.id, /^\d+$/);
  t.strictSame((await h.request('GET', '/api/v1/push/subscription', { token: bob.token })).json, created.json, 'GET answers the same');

  const changed = await h.request('PUT', '/api/v1/push/subscription', {
    token: bob.token,
    payload: { data: { alerts: { follow: true, mention: false }, policy: 'all' }, subscription: { endpoint: 'https://elsewhere.example/' } },
  });
  t.equal(changed.statusCode, 200);
  t.strictSame(changed.json, { ...created.json, alerts: { ...ALL_OFF, favourite: true, follow: true }, policy: 'all' }, 'PUT changes alerts and policy only');

  const again = await subscribe(bob, userAgentKeys(), { alerts: { reblog: true } }, '/bob-again');
  t.not(again.json.id, created.json.id, 'a new POST replaces the subscription');
  t.equal((await h.request('GET', '/api/v1/push/subscription', { token: bob.token })).json.endpoint, `${service.origin}/bob-again`);
  t.equal(again.json.policy, 'all', 'policy defaults to all');

  const otherToken = (await h.user('bob2', { scopes: PUSH_USER })).token;
  t.equal((await h.request('GET', '/api/v1/push/subscription', { token: otherToken })).statusCode, 404, "another token's subscription is its own");

  t.strictSame((await h.request('DELETE', '/api/v1/push/subscription', { token: bob.token })).json, {});
  t.equal((await h.request('GET', '/api/v1/push/subscription', { token: bob.token })).statusCode, 404);

  const app = await h.request('POST', '/api/v1/apps', { payload: { client_name: 'Elk', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write push' } });
  t.equal(app.json.vapid_key, serverKey, "the app's vapid_key is the same key");
  t.equal((await h.request('GET', '/api/v1/apps/verify_credentials', { token: bob.token })).json.vapid_key, serverKey);
  t.equal((await h.request('GET', '/api/v1/instance')).statusCode, 200);
});

t.test('bad subscriptions are refused with the error shape, never a 500', async (t) => {
  const keys = userAgentKeys();
  const good = { endpoint: `${service.origin}/x`, keys: { p256dh: keys.p256dh, auth: keys.auth } };
  const cases: [string, Record<string, unknown>, number, string][] = [
    ['no subscription', { data: { alerts: { mention: true } } }, 400, 'param is missing or the value is empty: subscription'],
    ['no endpoint', { subscription: { keys: good.keys } }, 422, "Validation failed: Endpoint can't be blank"],
    ['an endpoint that is no URL', { subscription: { ...good, endpoint: 'push me' } }, 422, 'Validation failed: Endpoint must be an https URL'],
    ['no keys', { subscription: { endpoint: good.endpoint } }, 422, "Validation failed: Key p256dh can't be blank"],
    ['no auth', { subscription: { ...good, keys: { p256dh: keys.p256dh } } }, 422, "Validation failed: Key auth can't be blank"],
    ['a p256dh that is no point', { subscription: { ...good, keys: { ...good.keys, p256dh: 'AAAA' } } }, 422, 'Validation failed: Key p256dh is not a P-256 public key'],
    ['an auth of 8 bytes', { subscription: { ...good, keys: { ...good.keys, auth: 'AAAAAAAAAAA' } } }, 422, 'Validation failed: Key auth is not 16 bytes'],
    ['an unknown policy', { subscription: good, data: { policy: 'friends' } }, 422, 'Validation failed: Policy is not included in the list'],
  ];
  for (const [label, payload, status, error] of cases) {
    const res = await h.request('POST', '/api/v1/push/subscription', { token: bob.token, payload });
    t.equal(res.statusCode, status, `${label}: ${status}`);
    t.strictSame(res.json, { error }, label);
  }
  const strict = await harness({ plugins: [pushPlugin()] });
  t.teardown(() => strict.close());
  const carol = await strict.user('carol', { scopes: PUSH_USER });
  const local = await strict.request('POST', '/api/v1/push/subscription', { token: carol.token, payload: { subscription: good } });
  t.equal(local.statusCode, 422, 'by default an http:// endpoint is refused');
  t.strictSame(local.json, { error: 'Validation failed: Endpoint must be an https URL' });
});

t.test('a delivery: encrypted for the subscription, signed with the instance key, the payload clients read', async (t) => {
  const keys = userAgentKeys();
  const subscribed = await subscribe(bob, keys, { alerts: { mention: true } });
  const mention = await post(h, alice, '@bob <b>hello</b> & welcome');
  t.equal(service.received.length, 1, 'one message reached the push service');
  const [message] = service.received;
  if (message === undefined) return;
  t.equal(message.path, '/bob');
  t.equal(message.headers['content-encoding'], 'aes128gcm');
  t.equal(message.headers['content-type'], 'application/octet-stream');
  t.equal(message.headers['ttl'], '172800', 'kept 48 hours by the push service');
  t.equal(message.headers['urgency'], 'normal');
  t.equal(message.headers['user-agent'], `Rookery/0.1.0 (+${h.core.config.baseUrl})`, 'saying who sends it');
  const claims = verifyVapid(String(message.headers['authorization']), subscribed.json.server_key);
  t.equal(claims.aud, service.origin, 'VAPID audience: the push service origin');
  t.equal(claims.sub, 'mailto:staff@rookery.test', 'VAPID subject: the contact address');
  const now = Math.floor(Date.now() / 1000);
  t.ok(claims.exp > now && claims.exp <= now + 24 * 3600, 'expires within a day');

  const payload = JSON.parse(decryptPush(message.body, keys));
  const [notification] = (await h.request('GET', '/api/v1/notifications', { token: bob.token })).json;
  t.strictSame(payload, {
    access_token: bob.token,
    preferred_locale: 'en',
    notification_id: notification.id,
    notification_type: 'mention',
    icon: 'https://rookery.test/avatars/original/missing.png',
    title: 'alice mentioned you',
    body: '@bob <b>hello</b> & welcome',
  });
  t.equal(notification.status.id, mention.id);
  t.throws(() => decryptPush(message.body, userAgentKeys()), 'and nobody else can read it');
});

t.test('only the alerts asked for, only from whom the policy allows', async (t) => {
  const keys = userAgentKeys();
  const carol = await h.user('carol', { scopes: PUSH_USER });
  await subscribe(bob, keys, { alerts: { mention: true, favourite: true }, policy: 'followed' });
  await follow(h, bob, alice);
  await follow(h, carol, bob);
  await post(h, carol, '@bob from someone bob does not follow');
  const fromAlice = await post(h, alice, '@bob from someone bob follows');
  const types = () => service.received.map((m) => JSON.parse(decryptPush(m.body, keys)) as { notification_type: string; body: string });
  t.strictSame(types().map((p) => p.body), ['@bob from someone bob follows'], "policy followed: carol's mention and carol's follow are not pushed");
  await h.request('PUT', '/api/v1/push/subscription', { token: bob.token, payload: { data: { policy: 'follower' } } });
  await post(h, carol, '@bob from a follower');
  await post(h, alice, '@bob from someone who does not follow bob');
  t.strictSame(types().map((p) => p.body).slice(1), ['@bob from a follower'], 'policy follower');
  await h.request('PUT', '/api/v1/push/subscription', { token: bob.token, payload: { data: { policy: 'all', alerts: { mention: false, favourite: true } } } });
  await post(h, alice, '@bob not pushed: mentions are off now');
  const own = await post(h, bob, 'something to favourite');
  await h.request('POST', `/api/v1/statuses/${own.id}/favourite`, { token: alice.token });
  t.strictSame(types().slice(2).map((p) => p.notification_type), ['favourite'], 'alerts: only the favourite');
  await h.request('PUT', '/api/v1/push/subscription', { token: bob.token, payload: { data: { policy: 'none' } } });
  await post(h, alice, '@bob nothing with policy none');
  await h.request('POST', `/api/v1/statuses/${own.id}/unfavourite`, { token: alice.token });
  await h.request('POST', `/api/v1/statuses/${own.id}/favourite`, { token: alice.token });
  t.equal(service.received.length, 3, 'policy none: nothing more');
  t.ok(fromAlice.id);
});

t.test('quotes (Mastodon 4.5): a quote of the subscriber\'s post is pushed when asked for', async (t) => {
  const keys = userAgentKeys();
  await subscribe(bob, keys, { alerts: { quote: true } });
  const own = await post(h, bob, 'worth quoting');
  const quoting = await post(h, alice, 'so true', { quoted_status_id: own.id });
  t.match(quoting.quote, { state: 'accepted', quoted_status: { id: own.id } });
  const pushed = service.received.map((m) => JSON.parse(decryptPush(m.body, keys)) as { notification_type: string; title: string });
  t.strictSame(pushed.map((p) => [p.notification_type, p.title]), [['quote', 'alice quoted your post']]);
  const shown = await h.request('GET', '/api/v1/push/subscription', { token: bob.token });
  t.strictSame(shown.json.alerts, { ...ALL_OFF, quote: true }, 'every type shown, quote on');
});

t.test('a notification whose status the recipient can no longer see is not pushed', async (t) => {
  const keys = userAgentKeys();
  await subscribe(bob, keys, { alerts: { mention: true } });
  const secret = await post(h, alice, { status: '@bob psst', visibility: 'direct' });
  t.equal(service.received.length, 1);
  await h.request('PUT', `/api/v1/statuses/${secret.id}`, { token: alice.token, payload: { status: 'nobody mentioned now' } });
  // The state a race leaves: a notification created before the edit, delivered after it.
  const late: Notification = { id: h.core.ids.next(), accountId: bob.account.id, type: 'mention', fromAccountId: alice.account.id, statusId: secret.id, createdAt: h.clock.now(), groupKey: null, filtered: false };
  await h.core.storage.notifications.create(late, { key: `late:${late.id}`, outbox: () => h.core.record({ type: 'notification.created', notification: late }) });
  await post(h, alice, '@bob a visible one after it');
  await h.rookery.drain();
  const bodies = service.received.map((m) => (JSON.parse(decryptPush(m.body, keys)) as { body: string }).body);
  t.strictSame(bodies, ['@bob psst', '@bob a visible one after it'], 'the edited text never left');
});

t.test('a disabled login gets no pushes until it is enabled again', async (t) => {
  const keys = userAgentKeys();
  await subscribe(bob, keys, { alerts: { mention: true } });
  await h.core.storage.accounts.updateUser(bob.account.id, { disabled: true });
  await post(h, alice, '@bob while disabled');
  t.equal(service.received.length, 0, 'nothing while disabled');
  await h.core.storage.accounts.updateUser(bob.account.id, { disabled: false });
  await post(h, alice, '@bob enabled again');
  t.strictSame(service.received.map((m) => (JSON.parse(decryptPush(m.body, keys)) as { body: string }).body), ['@bob enabled again']);
});

t.test('revoking the token deletes its subscription', async (t) => {
  const app = await h.request('POST', '/api/v1/apps', { payload: { client_name: 'Phone', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read push' } });
  const grant = await h.request('POST', '/oauth/token', {
    payload: { grant_type: 'password', username: 'bob', password: 'correct horse battery', client_id: app.json.client_id, client_secret: app.json.client_secret, scope: 'read push' },
  });
  t.equal(grant.statusCode, 200);
  const token = grant.json.access_token;
  const keys = userAgentKeys();
  const res = await h.request('POST', '/api/v1/push/subscription', {
    token,
    payload: { subscription: { endpoint: `${service.origin}/phone`, keys: { p256dh: keys.p256dh, auth: keys.auth } }, data: { alerts: { mention: true } } },
  });
  t.equal(res.statusCode, 200);
  await post(h, alice, '@bob before');
  t.equal(service.received.length, 1);
  const tokenId = (await h.core.storage.oauth.findTokenByHash(h.core.secrets.sha256(token)))?.id ?? '';
  const revoked = await h.request('POST', '/oauth/revoke', { payload: { token, client_id: app.json.client_id, client_secret: app.json.client_secret } });
  t.equal(revoked.statusCode, 200);
  t.equal(await h.core.storage.extend(pushStorage).byToken(tokenId), null, 'the subscription is gone');
  await post(h, alice, '@bob after');
  t.equal(service.received.length, 1, 'nothing is pushed after the revocation');
});

t.test('the push service: 5xx is retried, 410 drops the subscription', async (t) => {
  const keys = userAgentKeys();
  await subscribe(bob, keys, { alerts: { mention: true } });
  service.answer = 503;
  await post(h, alice, '@bob try again');
  t.equal(service.received.length, 1, 'a first attempt');
  service.answer = 201;
  h.clock.advance(60_000);
  await h.rookery.drain();
  t.equal(service.received.length, 2, 'retried after the backoff');
  t.strictSame(service.received.map((m) => (JSON.parse(decryptPush(m.body, keys)) as { body: string }).body), ['@bob try again', '@bob try again']);
  service.answer = 410;
  await post(h, alice, '@bob are you there');
  t.equal(service.received.length, 3);
  t.equal((await h.request('GET', '/api/v1/push/subscription', { token: bob.token })).statusCode, 404, 'the subscription was dropped');
});

t.test('the VAPID key pair is made once and kept in the store', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'rookery-push-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'store.db');
  const keyOf = async () => {
    const instance = await harness({ storage: openSqliteStorage({ path }), plugins: [pushPlugin()] });
    const key = (await instance.request('GET', '/api/v2/instance')).json.configuration.vapid.public_key;
    await instance.close();
    return key;
  };
  const first = await keyOf();
  t.match(first, /^B[\w-]{86}$/);
  t.equal(await keyOf(), first, 'the same key after a restart');
  const without = await harness();
  t.teardown(() => without.close());
  t.equal((await without.request('GET', '/api/v2/instance')).json.configuration.vapid.public_key, '', 'no push plugin, no key');
});

t.test('the default transport reaches public https endpoints only, however the address is spelt', async (t) => {
  const transport = nodePushTransport();
  const port = new URL(service.origin).port;
  const refused: readonly (readonly [string, string])[] = [
    [`${service.origin}/bob`, 'refused: the endpoint is not an https URL'],
    [`https://127.0.0.1:${port}/bob`, 'refused: 127.0.0.1 is not a public address (loopback)'],
    [`https://[::ffff:7f00:1]:${port}/bob`, 'refused: ::ffff:7f00:1 is not a public address (loopback)'],
    [`https://[::127.0.0.1]:${port}/bob`, 'refused: ::7f00:1 is not a public address (IPv4-compatible)'],
    [`https://[64:ff9b::a9fe:a9fe]/bob`, 'refused: 64:ff9b::a9fe:a9fe is not a public address (NAT64 of link-local)'],
    [`https://[::ffff:a9fe:a9fe]/bob`, 'refused: ::ffff:a9fe:a9fe is not a public address (link-local)'],
  ];
  for (const [endpoint, message] of refused) {
    await t.rejects(transport.send({ endpoint, headers: {}, body: new Uint8Array(1) }), { message }, endpoint);
  }
  const byName = await transport.send({ endpoint: `https://localhost:${port}/bob`, headers: {}, body: new Uint8Array(1) }).catch((error: unknown) => error);
  t.match((byName as Error).message, /^refused: localhost resolves to (127\.0\.0\.1|::1), which is not a public address \(loopback\)$/);
  t.equal(service.received.length, 0, 'nothing reached the service');
});
