// The admin dashboard's API as Mastodon 4.4 answers it: measures, dimensions and retention with
// figures read from the store (users on known days through the test clock), the admin trends
// lists, the roles and scopes they need, and bad parameters' errors.

import t from 'tap';
import { harness, TEST_DOMAIN, type Harness, type TestUser } from '../../helpers/harness.ts';
import { account, status } from '../../../adapters/testing/fixtures.ts';
import { createMemoryStorage } from '../../../adapters/memory/index.ts';
import { counted } from '../../helpers/stores.ts';

const DAY = 86_400_000;
const ADMIN_SCOPES = ['read', 'write', 'admin:read', 'admin:write'];
const date = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const measureDate = (ms: number) => `${date(ms)}T00:00:00.000+00:00`;
const cohortDate = (ms: number) => `${date(ms)}T00:00:00+00:00`;

interface World {
  h: Harness;
  /** The first of the three days, 00:00 UTC. */
  b: number;
  ada: TestUser;
  alice: TestUser;
  bob: TestUser;
  pat: TestUser;
  tagId: string;
}

/** Day 0: ada (Admin) and alice sign up, alice uses the API. Day 1: bob and carol sign up, bob
 * posts #cats, alice favourites it; remote.example's first account arrives with a status (in
 * French). Day 2: alice replies to bob, bob reports alice, pat (no role) signs up. */
async function world(): Promise<World> {
  const h = await harness();
  // One hour after a midnight: the test's few seconds never cross the next one.
  h.clock.advance(DAY - (h.clock.now() % DAY) + 3_600_000);
  const b = h.clock.now() - 3_600_000;
  const ada = await h.user('ada', { role: 'Admin', scopes: ADMIN_SCOPES });
  const alice = await h.user('alice');
  t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token: alice.token })).statusCode, 200);

  h.clock.advance(DAY);
  const bob = await h.user('bob');
  await h.user('carol');
  const post = await h.request('POST', '/api/v1/statuses', { token: bob.token, payload: { status: 'I like #cats', language: 'en' } });
  t.equal(post.statusCode, 200, post.body);
  t.equal((await h.request('POST', `/api/v1/statuses/${post.json.id}/favourite`, { token: alice.token })).statusCode, 200);
  const remote = account(h.core.ids.next(), { domain: 'remote.example', username: 'rem', createdAt: h.clock.now(), uri: 'https://remote.example/users/rem' });
  await h.core.storage.accounts.create(remote);
  await h.core.storage.statuses.create(status(h.core.ids.next(), remote.id, { local: false, uri: 'https://remote.example/s/1', language: 'fr', createdAt: h.clock.now() }), {
    countForAuthor: true,
    countReplyOf: null,
  });

  h.clock.advance(DAY);
  t.equal((await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: '@bob me too', in_reply_to_id: post.json.id } })).statusCode, 200);
  const report = await h.request('POST', '/api/v1/reports', { token: bob.token, payload: { account_id: alice.account.id, comment: 'rude' } });
  t.equal(report.statusCode, 200, report.body);
  const pat = await h.user('pat', { scopes: ADMIN_SCOPES });
  const tag = await h.request('GET', '/api/v1/tags/cats', { token: alice.token });
  return { h, b, ada, alice, bob, pat, tagId: tag.json.id as string };
}

t.test('measures: exact figures by day, totals and previous totals', async (t) => {
  const w = await world();
  t.teardown(() => w.h.close());
  const { h, b, ada } = w;
  const keys = ['active_users', 'new_users', 'interactions', 'opened_reports', 'resolved_reports', 'tag_accounts', 'tag_uses', 'tag_servers', 'nonsense', 'instance_accounts', 'instance_statuses', 'instance_reports', 'instance_follows', 'instance_followers'];
  const res = await h.request('POST', '/api/v1/admin/measures', {
    token: ada.token,
    payload: {
      keys,
      start_at: date(b),
      end_at: `${date(b + 2 * DAY)}T12:00:00Z`,
      tag_accounts: { id: w.tagId },
      tag_uses: { id: w.tagId },
      tag_servers: { id: w.tagId },
      instance_accounts: { domain: 'remote.example' },
      instance_statuses: { domain: 'Remote.Example' },
      instance_reports: { domain: 'remote.example' },
      instance_follows: { domain: 'remote.example' },
      instance_followers: { domain: 'remote.example' },
    },
  });
  t.equal(res.statusCode, 200, res.body);
  const days = [b, b + DAY, b + 2 * DAY];
  const series = (values: number[]) => values.map((v, i) => ({ date: measureDate(days[i] as number), value: String(v) }));
  const inRange = (key: string, total: number, previous: number, values: number[]) => ({ key, unit: null, total: String(total), previous_total: String(previous), data: series(values) });
  const allTime = (key: string, total: number, values: number[]) => ({ key, unit: null, total: String(total), data: series(values) });
  t.strictSame(res.json, [
    // Day 2: alice, bob and ada (asking now) used the API; pat only signed up.
    inRange('active_users', 3, 0, [1, 2, 3]),
    inRange('new_users', 5, 0, [2, 2, 1]),
    inRange('interactions', 2, 0, [0, 1, 1]),
    inRange('opened_reports', 1, 0, [0, 0, 1]),
    inRange('resolved_reports', 0, 0, [0, 0, 0]),
    inRange('tag_accounts', 1, 0, [0, 1, 0]),
    inRange('tag_uses', 1, 0, [0, 1, 0]),
    inRange('tag_servers', 0, 0, [0, 0, 0]),
    allTime('instance_accounts', 1, [0, 1, 0]),
    allTime('instance_statuses', 1, [0, 1, 0]),
    allTime('instance_reports', 0, [0, 0, 0]),
    allTime('instance_follows', 0, [0, 0, 0]),
    allTime('instance_followers', 0, [0, 0, 0]),
  ]);

  const later = await h.request('POST', '/api/v1/admin/measures', { token: ada.token, payload: { keys: ['new_users', 'active_users'], start_at: date(b + DAY), end_at: date(b + 2 * DAY) } });
  t.strictSame(
    later.json.map((m: { key: string; total: string; previous_total: string }) => [m.key, m.total, m.previous_total]),
    [['new_users', '3', '2'], ['active_users', '3', '1']],
    'previous_total: the two days before',
  );

  const form = await h.request('POST', '/api/v1/admin/measures', {
    token: ada.token,
    payload: `keys[]=new_users&start_at=${date(b)}&end_at=${date(b)}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.strictSame(form.json, [{ key: 'new_users', unit: null, total: '2', previous_total: '0', data: [{ date: measureDate(b), value: '2' }] }], 'form-encoded');

  const unknownTag = await h.request('POST', '/api/v1/admin/measures', { token: ada.token, payload: { keys: ['tag_uses'], start_at: date(b), end_at: date(b), tag_uses: { id: '12345' } } });
  t.strictSame(unknownTag.json, [{ key: 'tag_uses', unit: null, total: '0', previous_total: '0', data: [{ date: measureDate(b), value: '0' }] }], 'a tag used by nobody counts nothing');
  const none = await h.request('POST', '/api/v1/admin/measures', { token: ada.token, payload: { start_at: date(b), end_at: date(b) } });
  t.strictSame([none.statusCode, none.json], [200, []], 'no keys, no measures');

  const sub = account(h.core.ids.next(), { domain: 'sub.remote.example', username: 'sub', createdAt: b, uri: 'https://sub.remote.example/users/sub' });
  await h.core.storage.accounts.create(sub);
  const subdomains = async (include: unknown) =>
    (await h.request('POST', '/api/v1/admin/measures', { token: ada.token, payload: { keys: ['instance_accounts'], start_at: date(b), end_at: date(b), instance_accounts: { domain: 'remote.example', include_subdomains: include } } })).json;
  t.strictSame(await subdomains(true), [{ key: 'instance_accounts', unit: null, total: '2', data: [{ date: measureDate(b), value: '1' }] }], 'include_subdomains');
  t.strictSame(await subdomains('false'), [{ key: 'instance_accounts', unit: null, total: '1', data: [{ date: measureDate(b), value: '0' }] }], 'the domain only');
});

t.test('dimensions: ranked keys with their human names', async (t) => {
  const w = await world();
  t.teardown(() => w.h.close());
  const { h, b, ada } = w;
  const res = await h.request('POST', '/api/v1/admin/dimensions', {
    token: ada.token,
    payload: {
      keys: ['languages', 'sources', 'servers', 'tag_servers', 'tag_languages', 'instance_accounts', 'instance_languages', 'space_usage', 'software_versions'],
      start_at: date(b),
      end_at: date(b + 2 * DAY),
      limit: 5,
      tag_servers: { id: w.tagId },
      tag_languages: { id: w.tagId },
      instance_accounts: { domain: 'remote.example' },
      instance_languages: { domain: 'remote.example' },
    },
  });
  t.equal(res.statusCode, 200, res.body);
  const byKey = new Map(res.json.map((d: { key: string; data: unknown }) => [d.key, d.data]));
  t.strictSame([...byKey.keys()], ['languages', 'sources', 'servers', 'tag_servers', 'tag_languages', 'instance_accounts', 'instance_languages', 'software_versions'], 'asked order; space_usage is not served');
  t.strictSame(byKey.get('languages'), [{ key: 'en', human_key: 'English', value: '3' }], 'alice, bob and ada were active');
  t.strictSame(byKey.get('sources'), [{ key: 'web', human_key: 'Website', value: '5' }]);
  t.strictSame(byKey.get('servers'), [{ key: TEST_DOMAIN, human_key: TEST_DOMAIN, value: '2' }, { key: 'remote.example', human_key: 'remote.example', value: '1' }]);
  t.strictSame(byKey.get('tag_servers'), [{ key: TEST_DOMAIN, human_key: TEST_DOMAIN, value: '1' }]);
  t.strictSame(byKey.get('tag_languages'), [{ key: 'en', human_key: 'English', value: '1' }]);
  t.strictSame(byKey.get('instance_accounts'), [{ key: 'rem', human_key: 'rem', value: '0' }]);
  t.strictSame(byKey.get('instance_languages'), [{ key: 'fr', human_key: 'French', value: '1' }]);
  const software = byKey.get('software_versions') as { key: string; value: string }[];
  t.strictSame(software.map((s) => s.key), ['mastodon', 'rookery', 'storage']);
  t.match(software[0]?.value, /^4\.\d+\.\d+ \(compatible; Rookery /);

  const one = await h.request('POST', '/api/v1/admin/dimensions', { token: ada.token, payload: { keys: ['servers'], start_at: date(b), end_at: date(b + 2 * DAY), limit: 1 } });
  t.strictSame(one.json, [{ key: 'servers', data: [{ key: TEST_DOMAIN, human_key: TEST_DOMAIN, value: '2' }] }], 'limit');
  const early = await h.request('POST', '/api/v1/admin/dimensions', { token: ada.token, payload: { keys: ['servers', 'languages'], start_at: date(b), end_at: date(b) } });
  t.strictSame(early.json, [{ key: 'servers', data: [] }, { key: 'languages', data: [{ key: 'en', human_key: 'English', value: '1' }] }], 'day 0 only');
});

t.test('retention: daily and monthly cohorts', async (t) => {
  const w = await world();
  t.teardown(() => w.h.close());
  const { h, b, ada } = w;
  const res = await h.request('POST', '/api/v1/admin/retention', { token: ada.token, payload: { start_at: date(b), end_at: date(b + 2 * DAY), frequency: 'day' } });
  t.equal(res.statusCode, 200, res.body);
  const point = (at: number, value: number, rate: number) => ({ date: cohortDate(at), rate, value: String(value) });
  t.strictSame(res.json, [
    // ada and alice, both active on day 2.
    { period: cohortDate(b), frequency: 'day', data: [point(b, 2, 1), point(b + DAY, 2, 1), point(b + 2 * DAY, 2, 1)] },
    // bob (active on day 2) and carol (never).
    { period: cohortDate(b + DAY), frequency: 'day', data: [point(b + DAY, 1, 0.5), point(b + 2 * DAY, 1, 0.5)] },
    // pat, who signed up and never used the API.
    { period: cohortDate(b + 2 * DAY), frequency: 'day', data: [point(b + 2 * DAY, 0, 0)] },
  ]);
  const unsaid = await h.request('POST', '/api/v1/admin/retention', { token: ada.token, payload: { start_at: date(b), end_at: date(b), frequency: 'week' } });
  t.equal(unsaid.json[0]?.frequency, 'day', 'an unknown frequency is day');

  const month = await h.request('POST', '/api/v1/admin/retention', { token: ada.token, payload: { start_at: date(b), end_at: date(b), frequency: 'month' } });
  const first = new Date(b);
  const monthStart = Date.UTC(first.getUTCFullYear(), first.getUTCMonth(), 1);
  // ada, alice, bob, carol, pat: those who signed up in b's month, and who of them came back.
  const cohort = ([[b, true], [b, true], [b + DAY, true], [b + DAY, false], [b + 2 * DAY, false]] as const).filter(([at]) => new Date(at).getUTCMonth() === first.getUTCMonth());
  const retained = cohort.filter(([, back]) => back).length;
  t.strictSame(month.json, [{ period: cohortDate(monthStart), frequency: 'month', data: [point(monthStart, retained, retained / cohort.length)] }]);
});

t.test('admin trends: tags and statuses for moderators, links empty without the cards plugin', async (t) => {
  const w = await world();
  t.teardown(() => w.h.close());
  const { h, ada } = w;
  const tags = await h.request('GET', '/api/v1/admin/trends/tags', { token: ada.token });
  t.equal(tags.statusCode, 200, tags.body);
  t.strictSame(tags.json.map((tag: { name: string }) => tag.name), ['cats']);
  t.strictSame(Object.keys(tags.json[0]), ['id', 'name', 'url', 'history', 'trendable', 'usable', 'requires_review', 'listable']);
  t.equal(tags.json[0].id, w.tagId);
  const statuses = await h.request('GET', '/api/v1/admin/trends/statuses', { token: ada.token });
  t.equal(statuses.statusCode, 200);
  const ids = (list: { id: string }[]) => list.map((s) => s.id);
  const listed = ids(statuses.json);
  t.ok(listed.length > 0, 'the favourited #cats post trends');
  t.strictSame(listed, ids((await h.request('GET', '/api/v1/trends/statuses', { token: ada.token })).json), 'as the public list ranks them');
  for (const path of ['/api/v1/admin/trends/links', '/api/v1/admin/trends/links/publishers']) {
    t.strictSame(await h.request('GET', path, { token: ada.token }).then((r) => [r.statusCode, r.json]), [200, []], path);
  }
});

t.test('roles, scopes and bad parameters', async (t) => {
  const w = await world();
  t.teardown(() => w.h.close());
  const { h, b, ada, pat, alice } = w;
  const mia = await h.user('mia', { role: 'Moderator', scopes: ADMIN_SCOPES });
  const forbidden = [403, { error: 'This action is not allowed' }];
  const calls: [string, string][] = [
    ['POST', '/api/v1/admin/measures'],
    ['POST', '/api/v1/admin/dimensions'],
    ['POST', '/api/v1/admin/retention'],
    ['GET', '/api/v1/admin/trends/tags'],
    ['GET', '/api/v1/admin/trends/statuses'],
    ['GET', '/api/v1/admin/trends/links'],
    ['GET', '/api/v1/admin/trends/links/publishers'],
  ];
  for (const [method, path] of calls) {
    t.strictSame(await h.request(method, path, { token: pat.token }).then((r) => [r.statusCode, r.json]), forbidden, `${path}: no role`);
    t.strictSame(await h.request(method, path).then((r) => [r.statusCode, r.json]), forbidden, `${path}: no token`);
    t.strictSame(await h.request(method, path, { token: alice.token }).then((r) => [r.statusCode, r.json]), [403, { error: 'This action is outside the authorized scopes' }], `${path}: no admin scope`);
    t.equal((await h.request(method, path, { token: mia.token })).statusCode, 200, `${path}: a moderator may`);
  }
  const measure = (payload: unknown) => h.request('POST', '/api/v1/admin/measures', { token: ada.token, payload }).then((r) => [r.statusCode, r.json]);
  t.strictSame(await measure({ keys: ['new_users'], start_at: 'yesterday', end_at: date(b) }), [400, { error: 'Invalid date in start_at' }]);
  t.strictSame(await measure({ keys: ['new_users'], start_at: date(b), end_at: '2024-13-45' }), [400, { error: 'Invalid date in end_at' }]);
  t.strictSame(await measure({ keys: ['new_users'], start_at: date(b + DAY), end_at: date(b) }), [422, { error: 'end_at must not be before start_at' }]);
  const zoneless = await measure({ keys: ['new_users'], start_at: `${date(b)}T23:30:00`, end_at: `${date(b)} 23:59:59.999` });
  t.strictSame([zoneless[0], (zoneless[1] as { data: unknown[] }[])[0]?.data.length], [200, 1], 'a time without its offset is UTC');
  const offset = await measure({ keys: ['new_users'], start_at: `${date(b)}T23:30:00-02:00`, end_at: `${date(b + DAY)}T03:30:00+02:00` });
  t.strictSame((offset[1] as { data: { date: string }[] }[])[0]?.data.map((d) => d.date), [measureDate(b + DAY)], 'times with offsets, on their UTC days');
  t.strictSame(await measure({ keys: ['new_users'], start_at: '2024-01-01', end_at: '2025-01-01' }), [422, { error: 'The period may span at most 366 days' }], '367 days');
  t.equal((await measure({ keys: ['new_users'], start_at: '2024-01-01', end_at: '2024-12-31' }))[0], 200, '366 days');
  t.strictSame(await measure({ keys: Array.from({ length: 51 }, () => 'new_users'), start_at: date(b), end_at: date(b) }), [422, { error: 'At most 50 keys may be asked for' }]);
  t.strictSame(await measure({ keys: ['tag_uses'], start_at: date(b), end_at: date(b) }), [400, { error: 'param is missing or the value is empty: tag_uses' }]);
  t.strictSame(await measure({ keys: ['instance_accounts'], start_at: date(b), end_at: date(b), instance_accounts: { domain: '' } }), [400, { error: 'param is missing or the value is empty: instance_accounts' }]);
  t.strictSame(await measure({ keys: ['tag_uses'], start_at: date(b), end_at: date(b), tag_uses: { id: 'cats' } }), [404, { error: 'Record not found' }]);
  const retention = await h.request('POST', '/api/v1/admin/retention', { token: ada.token, payload: { start_at: '2020-01-01', end_at: '2023-01-01', frequency: 'month' } });
  t.strictSame([retention.statusCode, retention.json], [422, { error: 'The period may span at most 731 days' }]);
  const dims = await h.request('POST', '/api/v1/admin/dimensions', { token: ada.token, payload: { keys: ['servers'], limit: 100000 } });
  t.equal(dims.statusCode, 200, 'a limit past the most is the most');
});

t.test("masto.js's admin specs: measures, dimension, retention", async (t) => {
  const w = await world();
  t.teardown(() => w.h.close());
  const { h, ada } = w;
  const measures = await h.request('POST', '/api/v1/admin/measures', { token: ada.token, payload: { keys: ['active_users'], start_at: new Date('2019-01-01').toISOString(), end_at: new Date('2019-01-02').toISOString() } });
  t.strictSame(measures.json, [{ key: 'active_users', unit: null, total: '0', previous_total: '0', data: [{ date: '2019-01-01T00:00:00.000+00:00', value: '0' }, { date: '2019-01-02T00:00:00.000+00:00', value: '0' }] }]);
  const dimensions = await h.request('POST', '/api/v1/admin/dimensions', { token: ada.token, payload: { keys: ['languages', 'sources'] } });
  t.strictSame(dimensions.json.map((d: { key: string }) => d.key), ['languages', 'sources'], 'no period: the last 30 days');
  t.strictSame(dimensions.json[1].data, [{ key: 'web', human_key: 'Website', value: '5' }]);
  const retention = await h.request('POST', '/api/v1/admin/retention', { token: ada.token, payload: { start_at: new Date('2023-04-07').toISOString(), end_at: new Date('2023-04-08').toISOString(), frequency: 'day' } });
  t.equal(retention.json.length, 2);
  t.strictSame(retention.json[0].data, [{ date: '2023-04-07T00:00:00+00:00', rate: 0, value: '0' }, { date: '2023-04-08T00:00:00+00:00', rate: 0, value: '0' }]);
});

t.test('a day of activity is written once per account and day, and only for users', async (t) => {
  const calls: string[] = [];
  const h = await harness({ storage: counted(createMemoryStorage(), calls) });
  t.teardown(() => h.close());
  h.clock.advance(DAY - (h.clock.now() % DAY) + 3_600_000);
  const zoe = await h.user('zoe');
  const app = await h.app(['read']);
  const writes = () => calls.filter((c) => c === 'analytics.recordActivity').length;
  for (let i = 0; i < 3; i += 1) t.equal((await h.request('GET', '/api/v1/accounts/verify_credentials', { token: zoe.token })).statusCode, 200);
  t.equal(writes(), 1, 'three requests, one write');
  t.equal((await h.request('GET', '/api/v1/timelines/public', { token: app.token })).statusCode, 200);
  t.equal(writes(), 1, "an application's own token is nobody's activity");
  h.clock.advance(DAY);
  await h.request('GET', '/api/v1/accounts/verify_credentials', { token: zoe.token });
  await h.request('GET', '/api/v1/accounts/verify_credentials', { token: zoe.token });
  t.equal(writes(), 2, 'the next day, one more');
  const today = Math.floor(h.clock.now() / DAY) * DAY;
  t.strictSame(await h.core.storage.analytics.daily({ what: 'activeUsers' }, today - DAY, 2), [1, 1]);
});

t.test('hostile parameters: never a 5xx, errors in Mastodon\'s shape', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const ada = await h.user('ada', { role: 'Owner', scopes: ADMIN_SCOPES });
  const values: unknown[] = [null, 0, -1, 1e308, 'x'.repeat(5000), [], [[['deep']]], { a: { b: 'c' } }, true, '2024-01-01', '9999-12-31', '0000-01-01', '2024-02-30', '\u0000', '%00', '2024-01-01T25:99:99Z'];
  const pick = (i: number) => values[i % values.length];
  const keys = ['keys', 'start_at', 'end_at', 'limit', 'frequency', 'tag_uses', 'tag_servers', 'instance_accounts', 'instance_languages'];
  let i = 0;
  for (const path of ['/api/v1/admin/measures', '/api/v1/admin/dimensions', '/api/v1/admin/retention']) {
    for (let round = 0; round < 40; round += 1) {
      const payload: Record<string, unknown> = { keys: ['new_users', 'tag_uses', 'instance_accounts', 'languages', 'tag_servers', 'instance_languages'] };
      for (const key of keys) if ((round + key.length) % 3 !== 0) payload[key] = pick((i += 7));
      if (round % 5 === 0) payload['tag_uses'] = { id: pick((i += 3)) };
      if (round % 4 === 0) payload['instance_accounts'] = { domain: pick((i += 5)), include_subdomains: pick((i += 1)) };
      const res = await h.request('POST', path, { token: ada.token, payload });
      t.ok(res.statusCode < 500, `${path} ${JSON.stringify(payload).slice(0, 200)}: ${res.statusCode} ${res.body.slice(0, 200)}`);
      if (res.statusCode >= 400) t.match(res.json, { error: String }, 'the error shape');
    }
  }
});
