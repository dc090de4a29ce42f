// masto.js, unchanged, files a report and works through the moderators' reports API over real
// HTTP: the entities parse, pagination follows the Link headers, each action answers.

import { createRestAPIClient } from 'masto';
import t from 'tap';
import { harness } from '../helpers/harness.ts';
import { post } from '../helpers/api.ts';

t.test('masto.js: a report, then a moderator lists, assigns, resolves and reopens it', async (t) => {
  const h = await harness({ listen: true, config: { rules: ['Be kind'] } });
  t.teardown(() => h.close());
  const url = h.server.info.uri;
  const alice = await h.user('alice');
  const spammer = await h.user('spammer');
  const mia = await h.user('mia', { role: 'Admin', scopes: ['read', 'write', 'admin:read', 'admin:write'] });
  const status = await post(h, spammer, 'buy now');

  const reporter = createRestAPIClient({ url, accessToken: alice.token });
  const report = await reporter.v1.reports.create({ accountId: spammer.account.id, statusIds: [status.id], comment: 'spam', category: 'spam', forward: false });
  t.same([report.category, report.comment, report.statusIds, report.targetAccount.id, report.actionTaken], ['spam', 'spam', [status.id], spammer.account.id, false]);
  const violation = await reporter.v1.reports.create({ accountId: spammer.account.id, ruleIds: ['1'] });
  t.same([violation.category, violation.ruleIds], ['violation', ['1']]);

  const moderator = createRestAPIClient({ url, accessToken: mia.token });
  // The moderators are told by a job: requests over real HTTP do not wait for it.
  await h.rookery.drain();
  const [note] = await moderator.v1.notifications.list({ types: ['admin.report'] });
  t.same([note?.type, note?.report?.id], ['admin.report', report.id], 'told, with the report');

  const pages: string[][] = [];
  // masto.js does not type `limit` here, but sends it.
  const onePerPage = { resolved: false, limit: 1 };
  for await (const page of moderator.v1.admin.reports.list(onePerPage)) pages.push(page.map((r) => r.id));
  // A full page always links to the next one, as Mastodon's does: the last is empty.
  t.same(pages, [[violation.id], [report.id], []], 'one report a page, through the Link headers');

  const selected = moderator.v1.admin.reports.$select(report.id);
  const fetched = await selected.fetch();
  t.same([fetched.account.username, fetched.targetAccount.username, fetched.statuses.map((s) => s.id)], ['alice', 'spammer', [status.id]]);
  t.equal((await selected.assignToSelf()).assignedAccount?.id, mia.account.id);
  t.equal((await selected.unassign()).assignedAccount, null);
  t.equal((await selected.resolve()).actionTaken, true);
  t.same((await moderator.v1.admin.reports.list({ resolved: true })).map((r) => r.id), [report.id]);
  t.equal((await selected.reopen()).actionTaken, false);
  t.same((await moderator.v1.admin.reports.list({ resolved: false })).map((r) => r.id), [violation.id, report.id]);
});
