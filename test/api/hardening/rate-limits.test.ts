// Rate limits as Mastodon applies them (docs/behaviour.md, "Rate limits"), over HTTP. The harness's requests
// come from 127.0.0.1, a trusted proxy by default: X-Forwarded-For names the client, and
// without it a request from loopback is exempt, as in Mastodon.

import t from 'tap';
import { createMemoryCounters } from '../../../core/domain/counters.ts';
import { resetText } from '../../../core/mastodon/rate-limits.ts';
import { readSettings } from '../../../examples/standalone/env.ts';
import { issueToken } from '../../../core/mastodon/oauth/tokens.ts';
import { windowedHarness, type Harness, type TestUser } from '../../helpers/harness.ts';
import { authorizeQuery, Browser, forms, registerApp } from '../../helpers/oauth.ts';

const FIVE_MINUTES = 5 * 60_000;

function from(ip: string, headers: Record<string, string> = {}) {
  return { 'x-forwarded-for': ip, ...headers };
}

/** The end of the current fixed window of `period`, as Mastodon's X-RateLimit-Reset says it. */
function windowEnd(h: Harness, period: number): string {
  return resetText((Math.floor(h.clock.now() / period) + 1) * period);
}

/** `count` requests; the statuses they got. */
async function repeat(count: number, send: (i: number) => Promise<{ statusCode: number }>): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await send(i)).statusCode);
  return statuses;
}

/** Another token of the same user. */
async function tokenFor(h: Harness, user: TestUser): Promise<string> {
  return (await issueToken(h.core, user.application.id, user.account.id, ['read', 'write', 'follow'])).accessToken;
}

const only = (statuses: number[], status: number) => statuses.every((s) => s === status);

t.test('anonymous API: 300 per 5 minutes per client address, with the headers', async (t) => {
  const h = await windowedHarness();
  t.teardown(() => h.close());
  const first = await h.request('GET', '/api/v1/instance', { headers: from('203.0.113.7') });
  t.equal(first.statusCode, 200);
  t.equal(first.headers['x-ratelimit-limit'], '300');
  t.equal(first.headers['x-ratelimit-remaining'], '299');
  t.equal(first.headers['x-ratelimit-reset'], windowEnd(h, FIVE_MINUTES), 'the end of the fixed window');
  t.match(String(first.headers['x-ratelimit-reset']), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'ISO 8601 with six fractional digits');
  t.ok(only(await repeat(299, () => h.request('GET', '/api/v1/timelines/public', { headers: from('203.0.113.7') })), 200), 'up to the limit');
  const over = await h.request('GET', '/api/v1/instance', { headers: from('203.0.113.7') });
  t.equal(over.statusCode, 429);
  t.same(over.json, { error: 'Too many requests' });
  t.equal(over.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(over.headers['x-ratelimit-remaining'], '0');
  t.equal(over.headers['x-ratelimit-reset'], windowEnd(h, FIVE_MINUTES));
  t.equal((await h.request('GET', '/api/v1/instance', { headers: from('203.0.113.8') })).statusCode, 200, 'another client is not limited');
  t.equal((await h.request('GET', '/api/v1/instance')).statusCode, 200, 'loopback itself is exempt');
  t.equal((await h.request('GET', '/api/v1/instance')).headers['x-ratelimit-limit'], undefined, 'and gets no rate-limit headers');
  h.clock.advance(FIVE_MINUTES);
  t.equal((await h.request('GET', '/api/v1/instance', { headers: from('203.0.113.7') })).statusCode, 200, 'the next window starts afresh');
});

t.test('IPv6 clients are counted by their /64; the nearest untrusted hop is the client', async (t) => {
  const h = await windowedHarness({ config: { trustedProxies: ['127.0.0.1', '10.0.0.0/8'] } });
  t.teardown(() => h.close());
  for (let i = 0; i < 300; i++) {
    const res = await h.request('GET', '/api/v1/instance', { headers: from(`2001:db8:1:2::${(i % 50).toString(16)}`) });
    if (res.statusCode !== 200) t.fail(`request ${i}: ${res.statusCode}`);
  }
  t.equal((await h.request('GET', '/api/v1/instance', { headers: from('2001:db8:1:2:ffff::1') })).statusCode, 429, 'the same /64');
  t.equal((await h.request('GET', '/api/v1/instance', { headers: from('2001:db8:1:3::1') })).statusCode, 200, 'the next /64');
  // A client behind two proxies: the spoofed first hop is ignored, the address the trusted
  // proxy saw counts.
  const chain = (client: string) => from(`198.51.100.99, ${client}, 10.1.2.3`);
  t.ok(only(await repeat(300, (i) => h.request('GET', '/api/v1/instance', { headers: from(`203.0.113.${i % 200}, 198.51.100.5, 10.1.2.3`) })), 200));
  t.equal((await h.request('GET', '/api/v1/instance', { headers: chain('198.51.100.5') })).statusCode, 429, 'counted by the hop before the trusted proxies');
});

t.test('X-Forwarded-For from a peer that is not a trusted proxy is ignored', async (t) => {
  const h = await windowedHarness({ config: { trustedProxies: ['192.0.2.1'] } });
  t.teardown(() => h.close());
  const statuses = await repeat(301, () => h.request('GET', '/api/v1/instance', { headers: from('203.0.113.7') }));
  t.ok(only(statuses, 200), 'the peer (loopback) is the client, and exempt: the header cannot make it someone else');
});

t.test('signed in: 300 per token and 1500 per user, every 5 minutes', async (t) => {
  const h = await windowedHarness();
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const ip = from('198.51.100.20', { authorization: `Bearer ${alice.token}` });
  const first = await h.request('GET', '/api/v1/timelines/home', { headers: ip });
  t.same([first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']], ['300', '299'], 'the token limit, nearer exhaustion than the user limit');
  t.ok(only(await repeat(299, () => h.request('GET', '/api/v1/timelines/home', { headers: ip })), 200));
  const over = await h.request('GET', '/api/v1/timelines/home', { headers: ip });
  t.same([over.statusCode, over.json], [429, { error: 'Too many requests' }]);
  const second = await h.request('GET', '/api/v1/timelines/home', { headers: from('198.51.100.20', { authorization: `Bearer ${await tokenFor(h, alice)}` }) });
  t.equal(second.statusCode, 200, "another token of the same user has its own 300");
  t.equal(second.headers['x-ratelimit-remaining'], '299');
});

t.test('the statuses family: 300 posts and boosts per account every 3 hours, headers on the create response', async (t) => {
  const h = await windowedHarness();
  t.teardown(() => h.close());
  const bob = await h.user('bob');
  // Three tokens so that no per-token limit (300 per 5 minutes) is reached first.
  const tokens = [bob.token, await tokenFor(h, bob), await tokenFor(h, bob)];
  const as = (i: number) => from('198.51.100.30', { authorization: `Bearer ${tokens[Math.floor(i / 140)]}` });
  const first = await h.request('POST', '/api/v1/statuses', { headers: as(0), payload: { status: 'post 0' } });
  t.equal(first.statusCode, 200);
  t.same([first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']], ['300', '299'], 'the family, counted');
  t.equal(first.headers['x-ratelimit-reset'], windowEnd(h, 3 * 60 * 60_000));
  const refused = await h.request('POST', '/api/v1/statuses', { headers: as(1), payload: { status: '' } });
  t.same([refused.statusCode, refused.headers['x-ratelimit-limit'], refused.headers['x-ratelimit-remaining']], [422, '300', '299'], 'a 422 carries them, and does not count');
  const boost = await h.request('POST', `/api/v1/statuses/${first.json.id}/reblog`, { headers: as(1) });
  t.same([boost.statusCode, boost.headers['x-ratelimit-remaining']], [200, '298'], 'a boost counts');
  t.ok(only(await repeat(298, (i) => h.request('POST', '/api/v1/statuses', { headers: as(i + 2), payload: { status: `post ${i + 1}` } })), 200));
  const over = await h.request('POST', '/api/v1/statuses', { headers: as(299), payload: { status: 'one too many' } });
  t.same([over.statusCode, over.json, over.headers['x-ratelimit-remaining']], [429, { error: 'Too many requests' }, '0']);
  t.equal((await h.request('GET', `/api/v1/accounts/${bob.account.id}`)).json.statuses_count, 300, 'nothing was written past the limit');
  t.equal((await h.request('GET', '/api/v1/timelines/home', { headers: as(299) })).statusCode, 200, 'reading is still allowed');
});

t.test('deletes: 30 per 30 minutes per account', async (t) => {
  const h = await windowedHarness();
  t.teardown(() => h.close());
  const carol = await h.user('carol');
  const ids: string[] = [];
  for (let i = 0; i < 31; i++) ids.push((await h.request('POST', '/api/v1/statuses', { token: carol.token, payload: { status: `s${i}` } })).json.id);
  const as = from('198.51.100.40', { authorization: `Bearer ${carol.token}` });
  t.ok(only(await repeat(30, (i) => h.request('DELETE', `/api/v1/statuses/${ids[i]}`, { headers: as })), 200));
  const over = await h.request('DELETE', `/api/v1/statuses/${ids[30]}`, { headers: as });
  t.same([over.statusCode, over.headers['x-ratelimit-limit']], [429, '30']);
});

t.test('sign-up: 5 per 30 minutes per address, and per e-mail address', async (t) => {
  const h = await windowedHarness();
  t.teardown(() => h.close());
  const { token } = await h.app(['read', 'write']);
  const signUp = (ip: string, n: number, email = `user${n}@example.com`) =>
    h.request('POST', '/api/v1/accounts', { headers: from(ip, { authorization: `Bearer ${token}` }), payload: { username: `user${n}`, email, password: 'long enough password', agreement: true } });
  t.ok(only(await repeat(5, (i) => signUp('203.0.113.50', i)), 200));
  t.same((await signUp('203.0.113.50', 5)).statusCode, 429, 'the sixth from one address');
  const sameEmail = await repeat(6, (i) => signUp(`203.0.113.${60 + i}`, 100 + i, 'Shared@Example.com'));
  t.same(sameEmail.slice(5), [429], 'the sixth with one e-mail address, from six addresses');
});

t.test('sign-in: 25 per 5 minutes per address on the forms, 25 per hour per login', async (t) => {
  const h = await windowedHarness();
  t.teardown(() => h.close());
  await h.user('dave');
  const app = await registerApp(h);
  const browser = new Browser(h);
  const page = await browser.get(`/oauth/authorize?${authorizeQuery(app)}`);
  const form = forms(page.body).find((f) => f.action === '/auth/sign_in');
  if (form === undefined) throw new Error('no sign-in form');
  const attempt = (ip: string, login: string) =>
    h.server.inject({
      method: 'POST',
      url: '/auth/sign_in',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: browser.cookieHeader, 'x-forwarded-for': ip },
      payload: new URLSearchParams({ ...form.fields, 'user[email]': login, 'user[password]': 'wrong password' }).toString(),
    });
  const perAddress = await repeat(26, (i) => attempt('203.0.113.70', `someone${i}@example.com`));
  t.ok(only(perAddress.slice(0, 25), 401), 'wrong passwords');
  t.equal(perAddress[25], 429, 'the 26th from one address');
  const perLogin = await repeat(26, (i) => attempt(`198.51.100.${100 + i}`, 'dave@example.com'));
  t.equal(perLogin[25], 429, 'the 26th for one login, from 26 addresses');
  const grant = await h.request('POST', '/oauth/token', {
    headers: from('198.51.100.200'),
    payload: { grant_type: 'password', client_id: app.client_id, client_secret: app.client_secret, username: 'dave@example.com', password: 'wrong' },
  });
  t.same([grant.statusCode, grant.json], [429, { error: 'Too many requests', error_description: 'Too many requests' }], 'the password grant is a sign-in too, with an RFC 6749 body');
});

t.test('RATE_LIMITS=false turns them off', async (t) => {
  t.equal(readSettings({ RATE_LIMITS: 'false' }).config.rateLimits, false, 'the standalone setting');
  t.equal(readSettings({}).config.rateLimits, true, 'on by default');
  t.same(readSettings({ TRUSTED_PROXY_IP: '10.0.0.1, 172.16.0.0/12' }).config.trustedProxies, ['10.0.0.1', '172.16.0.0/12'], 'TRUSTED_PROXY_IP, as Mastodon names it');
  const h = await windowedHarness({ config: { rateLimits: false } });
  t.teardown(() => h.close());
  const statuses = await repeat(310, () => h.request('GET', '/api/v1/instance', { headers: from('203.0.113.7') }));
  t.ok(only(statuses, 200), '310 requests from one address');
  t.equal((await h.request('GET', '/api/v1/instance', { headers: from('203.0.113.7') })).headers['x-ratelimit-limit'], undefined, 'no headers');
});

t.test('the in-process counters: fixed windows, forgotten when they end', async (t) => {
  const counters = createMemoryCounters();
  t.same(await counters.add([{ key: 'a', amount: 1, expiresAt: 1000 }, { key: 'a', amount: 1, expiresAt: 1000 }, { key: 'b', amount: 0, expiresAt: 1000 }], 0), [1, 2, 0]);
  t.same(await counters.add([{ key: 'a', amount: 0, expiresAt: 1000 }], 999), [2]);
  t.same(await counters.add([{ key: 'a', amount: 1, expiresAt: 2000 }], 1000), [1], 'a new window');
});
