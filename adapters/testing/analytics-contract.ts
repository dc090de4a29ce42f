// The storage contract of the admin dashboard's figures (AnalyticsRepository in
// core/domain/ports/storage.ts), run by storageContract on every adapter: one small world whose
// every figure is known, read back by day, over ranges and by key.

import { NO_EFFECTS, T0, account, application, follow, mark, status, user } from './fixtures.ts';
import type { Account, Id, Report, Status } from '../../core/domain/model.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';

interface ContractTest {
  equal(found: unknown, wanted: unknown, ...message: [] | [string]): unknown;
  strictSame(found: unknown, wanted: unknown, ...message: [] | [string]): unknown;
}
interface World {
  s: Storage;
  id(): Id;
}
type It = (name: string, body: (t: ContractTest, w: World) => Promise<void>) => void;

const DAY = 86_400_000;
const HOUR = 3_600_000;
const D0 = T0;
const D1 = T0 + DAY;
const D2 = T0 + 2 * DAY;
const THREE_DAYS = { from: D0, to: T0 + 3 * DAY };

/** Local users alice (day 0, locale en, signed up with "Phanpy"), bob (day 1, de), carol and
 * dave (day 1, en); remote r1, r2 (remote.example, days 0 and 1) and r3 (other.example). */
async function seed(w: World) {
  const s = w.s;
  const app = application(w.id(), { name: 'Phanpy' });
  await s.oauth.createApplication(app);
  const local = async (createdAt: number, locale: string, appId: Id | null = null): Promise<Account> => {
    const a = account(w.id(), { createdAt });
    await s.accounts.create(a, user(a.id, { createdAt, locale, createdByApplicationId: appId }));
    return a;
  };
  const remote = async (domain: string, createdAt: number): Promise<Account> => {
    const a = account(w.id(), { domain, createdAt, uri: `https://${domain}/users/${w.id()}` });
    await s.accounts.create(a);
    return a;
  };
  const alice = await local(D0 + HOUR, 'en', app.id);
  const bob = await local(D1 + 5, 'de');
  const carol = await local(D1 + 10, 'en');
  const dave = await local(D1 + 20, 'en');
  const r1 = await remote('remote.example', D0 + 2 * HOUR);
  const r2 = await remote('remote.example', D1);
  const r3 = await remote('other.example', D0);

  for (const [who, day] of [[alice, D0], [alice, D1], [alice, D2], [bob, D1], [carol, D2], [alice, D1]] as const) await s.analytics.recordActivity(who.id, day);

  const post = async (author: Account, createdAt: number, o: Partial<Status> = {}): Promise<Status> => {
    const st = status(w.id(), author.id, { createdAt, local: author.domain === null, ...(author.domain === null ? {} : { uri: `https://${author.domain}/s/${w.id()}` }), ...o });
    const r = await s.statuses.create(st, NO_EFFECTS);
    if (!r.created) throw new Error('not created');
    return r.status;
  };
  const s1 = await post(alice, D0 + 10, { tags: ['cats'] });
  const s2 = await post(r1, D0 + 20, { tags: ['cats'], language: 'fr' });
  await post(r2, D1 + 30, { tags: ['cats'], language: 'fr' });
  await post(r3, D1 + 40, { tags: ['cats', 'dogs'], language: null });
  await post(bob, D1 + 50, { inReplyToId: s2.id, inReplyToAccountId: r1.id });
  await post(bob, D2 + 60, { reblogOfId: s1.id, text: '', content: '' });
  await post(alice, D2 + 70, { inReplyToId: s1.id, inReplyToAccountId: alice.id });
  const gone = await post(r1, D2 + 80, { tags: ['cats'] });
  await s.statuses.delete(gone.id, D2 + 90, NO_EFFECTS);
  await post(alice, D1 + 90, { tags: ['cats'] });

  await s.interactions.favourite(mark(w.id(), alice.id, s2.id, D1 + 100));
  await s.interactions.favourite(mark(w.id(), r1.id, s1.id, D1 + 110));

  const report = (o: Partial<Report>): Report => ({
    id: w.id(), accountId: alice.id, targetAccountId: r1.id, statusIds: [], comment: '', category: 'other', ruleIds: null, forwarded: false,
    assignedAccountId: null, actionTakenAt: null, actionTakenByAccountId: null, createdAt: D0 + 5, updatedAt: D0 + 5, ...o,
  });
  await s.reports.create(report({ actionTakenAt: D2 + 5, actionTakenByAccountId: alice.id }));
  await s.reports.create(report({ targetAccountId: bob.id, accountId: r1.id, createdAt: D1 + 5, updatedAt: D1 + 5 }));

  await s.relationships.follow(follow(w.id(), alice.id, r1.id, { createdAt: D0 + 1 }));
  await s.relationships.follow(follow(w.id(), bob.id, r1.id, { createdAt: D1 + 1 }));
  await s.relationships.follow(follow(w.id(), r1.id, alice.id, { createdAt: D1 + 2 }));
  await s.relationships.follow(follow(w.id(), r2.id, alice.id, { createdAt: D2 + 3 }));
  await s.relationships.requestFollow(follow(w.id(), carol.id, r2.id, { createdAt: D1 + 4 }));
  return { alice, bob, carol, dave, r1, r2, r3 };
}

export function analyticsContract(it: It): void {
  it('analytics: daily counts and totals of every kind', async (t, w) => {
    await seed(w);
    const a = w.s.analytics;
    const remote = 'remote.example';
    const cases: [Parameters<typeof a.daily>[0], number[], number][] = [
      [{ what: 'activeUsers' }, [1, 2, 2], 3],
      [{ what: 'newUsers' }, [1, 3, 0], 4],
      [{ what: 'openedReports' }, [1, 1, 0], 2],
      [{ what: 'resolvedReports' }, [0, 0, 1], 1],
      [{ what: 'interactions' }, [0, 2, 1], 3],
      [{ what: 'tagUses', tag: 'cats' }, [2, 3, 0], 5],
      [{ what: 'tagAccounts', tag: 'cats' }, [2, 3, 0], 4],
      [{ what: 'tagServers', tag: 'cats' }, [1, 2, 0], 2],
      [{ what: 'tagUses', tag: 'fish' }, [0, 0, 0], 0],
      [{ what: 'domainAccounts', domain: remote }, [1, 1, 0], 2],
      [{ what: 'domainStatuses', domain: remote }, [1, 1, 0], 2],
      [{ what: 'domainReports', domain: remote }, [1, 0, 0], 1],
      [{ what: 'domainFollows', domain: remote }, [1, 1, 0], 2],
      [{ what: 'domainFollowers', domain: remote }, [0, 1, 1], 2],
      [{ what: 'domainStatuses', domain: 'nowhere.example' }, [0, 0, 0], 0],
    ];
    for (const [count, days, total] of cases) {
      const name = JSON.stringify(count);
      t.strictSame(await a.daily(count, D0, 3), days, `${name} by day`);
      t.equal(await a.total(count, THREE_DAYS), total, `${name} over the three days`);
    }
    t.strictSame(await a.daily({ what: 'activeUsers' }, D1, 1), [2], 'one day');
    t.strictSame(await a.daily({ what: 'activeUsers' }, D0 - 2 * DAY, 2), [0, 0], 'days before anything');
    t.strictSame(await a.daily({ what: 'activeUsers' }, D0, 0), [], 'no days');
    t.equal(await a.total({ what: 'activeUsers' }, { from: D1, to: D2 }), 2, 'a range of one day');
    t.equal(await a.total({ what: 'tagAccounts', tag: 'cats' }, { from: D1, to: D2 }), 3, 'distinct within the range');
    t.equal(await a.total({ what: 'domainAccounts', domain: 'other.example' }, null), 1, 'at any time');
    t.equal(await a.total({ what: 'newUsers' }, { from: D0 + 2 * HOUR, to: D1 + 10 }), 1, 'the range is [from, to)');
  });

  it('analytics: recording a day of activity twice counts it once', async (t, w) => {
    const a = account(w.id());
    await w.s.accounts.create(a, user(a.id));
    await w.s.analytics.recordActivity(a.id, D0);
    await w.s.analytics.recordActivity(a.id, D0);
    await w.s.analytics.recordActivity('not an id', D0);
    t.strictSame(await w.s.analytics.daily({ what: 'activeUsers' }, D0, 2), [1, 0]);
  });

  it('analytics: a domain with its subdomains', async (t, w) => {
    const s = w.s;
    const at = (domain: string) => account(w.id(), { domain, createdAt: D0, uri: `https://${domain}/users/${w.id()}` });
    const accounts = ['remote.example', 'a.remote.example', 'b.a.remote.example', 'xremote.example', 'remote.example.org', 'a_remote.example'].map(at);
    for (const a of accounts) await s.accounts.create(a);
    for (const a of accounts) {
      const r = await s.statuses.create(status(w.id(), a.id, { local: false, uri: `https://${a.domain}/s/${w.id()}`, createdAt: D0 + 1 }), NO_EFFECTS);
      if (!r.created) throw new Error('not created');
    }
    const local = account(w.id());
    await s.accounts.create(local, user(local.id));
    await s.relationships.follow(follow(w.id(), local.id, (accounts[1] as Account).id, { createdAt: D0 + 2 }));
    await s.relationships.follow(follow(w.id(), (accounts[2] as Account).id, local.id, { createdAt: D0 + 3 }));
    for (const what of ['domainAccounts', 'domainStatuses'] as const) {
      t.equal(await s.analytics.total({ what, domain: 'remote.example', subdomains: true }, null), 3, `${what}: the domain and its subdomains, no look-alikes`);
      t.equal(await s.analytics.total({ what, domain: 'remote.example' }, null), 1, `${what}: the domain only`);
      t.strictSame(await s.analytics.daily({ what, domain: 'a.remote.example', subdomains: true }, D0, 1), [2]);
    }
    t.equal(await s.analytics.total({ what: 'domainFollows', domain: 'remote.example', subdomains: true }, null), 1);
    t.equal(await s.analytics.total({ what: 'domainFollows', domain: 'remote.example' }, null), 0);
    t.equal(await s.analytics.total({ what: 'domainFollowers', domain: 'remote.example', subdomains: true }, null), 1);
    t.equal(await s.analytics.total({ what: 'domainReports', domain: 'remote.example', subdomains: true }, null), 0);
  });

  it('analytics: dimensions ranked by count, then key, none last', async (t, w) => {
    const { r1, r2 } = await seed(w);
    const a = w.s.analytics;
    const remote = 'remote.example';
    t.strictSame(await a.top({ what: 'languages' }, THREE_DAYS, 10), [{ key: 'en', count: 2 }, { key: 'de', count: 1 }], 'locales of active users');
    t.strictSame(await a.top({ what: 'languages' }, { from: D1, to: D2 }, 10), [{ key: 'de', count: 1 }, { key: 'en', count: 1 }], 'ties by key');
    t.strictSame(await a.top({ what: 'sources' }, THREE_DAYS, 10), [{ key: null, count: 3 }, { key: 'Phanpy', count: 1 }], 'sign-up applications');
    t.strictSame(await a.top({ what: 'servers' }, THREE_DAYS, 10), [{ key: null, count: 5 }, { key: remote, count: 2 }, { key: 'other.example', count: 1 }], 'live statuses by domain');
    t.strictSame(await a.top({ what: 'servers' }, THREE_DAYS, 1), [{ key: null, count: 5 }], 'limited');
    t.strictSame(await a.top({ what: 'tagServers', tag: 'cats' }, THREE_DAYS, 10), [{ key: remote, count: 2 }, { key: null, count: 2 }, { key: 'other.example', count: 1 }], 'null after keys of the same count');
    t.strictSame(await a.top({ what: 'tagLanguages', tag: 'cats' }, THREE_DAYS, 10), [{ key: 'en', count: 2 }, { key: 'fr', count: 2 }, { key: null, count: 1 }]);
    t.strictSame(await a.top({ what: 'tagLanguages', tag: 'cats' }, { from: D2, to: D2 + DAY }, 10), [], 'nothing in the range');
    t.strictSame(await a.top({ what: 'domainLanguages', domain: remote }, THREE_DAYS, 10), [{ key: 'fr', count: 2 }]);
    t.strictSame(await a.top({ what: 'domainAccounts', domain: remote }, { from: D2, to: D2 }, 10), [{ key: r1.username, count: 2 }, { key: r2.username, count: 0 }], 'followers, whatever the range');
    t.strictSame(await a.top({ what: 'servers' }, THREE_DAYS, 0), []);
  });

  it('analytics: retention rows by sign-up day and last active day', async (t, w) => {
    await seed(w);
    const rows = await w.s.analytics.retention(THREE_DAYS);
    const order = (r: { signedUpDay: number; lastActiveDay: number | null }) => `${r.signedUpDay}:${r.lastActiveDay ?? -1}`;
    t.strictSame(
      [...rows].sort((x, y) => order(x).localeCompare(order(y))),
      [
        { signedUpDay: D0, lastActiveDay: D2, users: 1 },
        { signedUpDay: D1, lastActiveDay: null, users: 1 },
        { signedUpDay: D1, lastActiveDay: D1, users: 1 },
        { signedUpDay: D1, lastActiveDay: D2, users: 1 },
      ].sort((x, y) => order(x).localeCompare(order(y))),
    );
    t.strictSame(await w.s.analytics.retention({ from: D2, to: D2 + DAY }), [], 'nobody signed up');
  });
}
