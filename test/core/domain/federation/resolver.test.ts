// The resolver hook (host.provideResolver): used by search with resolve=true (signed-in only),
// not by lookup (known accounts only), and by @user@domain mentions in a new status, at most a
// few per status and each bounded in time. The resolver here is a small test plugin that
// "fetches" from a table and stores through core/federation, as the federation plugin will.

import t from 'tap';
import { resolveAccount } from '../../../../core/domain/federation/index.ts';
import type { Account } from '../../../../core/domain/model.ts';
import type { PluginHost, RookeryPlugin } from '../../../../core/mastodon/host/types.ts';
import { post } from '../../../helpers/api.ts';
import { harness } from '../../../helpers/harness.ts';

const asked: string[] = [];
let mode: 'answer' | 'fail' | 'hang' = 'answer';

async function store(host: PluginHost, username: string): Promise<Account> {
  return host.system.federation.upsertRemoteAccount({
    uri: `https://far.example/users/${username}`,
    url: `https://far.example/@${username}`,
    username,
    domain: 'far.example',
    displayName: username,
    noteHtml: '',
    fields: [],
    avatarUrl: null,
    headerUrl: null,
    locked: false,
    bot: false,
    discoverable: true,
  });
}

const resolverPlugin: RookeryPlugin = {
  name: 'test-resolver',
  register(host) {
    host.provideResolver({
      async account(acct) {
        asked.push(acct);
        if (mode === 'fail') throw new Error('remote down');
        if (mode === 'hang') return new Promise<never>(() => undefined);
        const [username, domain] = acct.split('@');
        return domain === 'far.example' && username !== undefined && username.startsWith('z') ? store(host, username) : null;
      },
      async url(url) {
        asked.push(url);
        if (url === 'https://far.example/@zack') return { account: await store(host, 'zack') };
        if (url === 'https://far.example/@zack/1') {
          const author = await store(host, 'zack');
          const status = await host.system.federation.receiveRemoteStatus({
            uri: 'https://far.example/users/zack/statuses/1',
            url,
            authorId: author.id,
            contentHtml: '<p>found</p>',
            spoilerText: '',
            sensitive: false,
            visibility: 'public',
            language: 'en',
            inReplyToUri: null,
            mentionIds: [],
            tags: [],
            createdAt: Date.UTC(2026, 0, 1),
            editedAt: null,
          });
          return status === null ? null : { status };
        }
        return null;
      },
    });
  },
};

const h = await harness({ plugins: [resolverPlugin] });
t.teardown(() => h.close());
const amy = await h.user('amy');

async function search(q: string, token: string | null, resolve = true) {
  return h.request('GET', `/api/v2/search?q=${encodeURIComponent(q)}${resolve ? '&resolve=true' : ''}`, { token });
}

t.test('a second resolver is refused', async (t) => {
  await t.rejects(
    harness({ plugins: [resolverPlugin, { ...resolverPlugin, name: 'other' }] }),
    { message: 'the plugin "other" provides a resolver, but another plugin already did' },
  );
});

t.test('search: resolve=true is for signed-in callers only', async (t) => {
  asked.length = 0;
  const res = await search('zoe@far.example', null);
  t.equal(res.statusCode, 401);
  t.strictSame(res.json, { error: 'Search queries that resolve remote resources are not supported without authentication' });
  t.strictSame(asked, [], 'the resolver was not asked');
});

t.test('search: an unknown handle is resolved, then known without resolving', async (t) => {
  asked.length = 0;
  const without = await search('zoe@far.example', amy.token, false);
  t.strictSame(without.json, { accounts: [], statuses: [], hashtags: [] }, 'without resolve: nothing');
  const res = await search('@zoe@far.example', amy.token);
  t.equal(res.statusCode, 200);
  t.strictSame(res.json.accounts.map((a: any) => [a.acct, a.url, a.uri]), [['zoe@far.example', 'https://far.example/@zoe', 'https://far.example/users/zoe']]);
  t.strictSame(asked, ['zoe@far.example']);
  const known = await search('zoe@far.example', amy.token, false);
  t.strictSame(known.json.accounts.map((a: any) => a.acct), ['zoe@far.example'], 'stored now');
  const lookup = await h.request('GET', '/api/v1/accounts/lookup?acct=zoe@far.example');
  t.equal(lookup.json.acct, 'zoe@far.example', 'lookup finds it once known');
  t.strictSame(asked, ['zoe@far.example'], 'asked once');
  const missing = await search('nobody@far.example', amy.token);
  t.strictSame(missing.json, { accounts: [], statuses: [], hashtags: [] });
  t.strictSame(asked, ['zoe@far.example', 'nobody@far.example']);
});

t.test('lookup never resolves: an unknown remote handle is 404', async (t) => {
  asked.length = 0;
  const res = await h.request('GET', '/api/v1/accounts/lookup?acct=zed@far.example');
  t.equal(res.statusCode, 404);
  t.strictSame(res.json, { error: 'Record not found' });
  t.strictSame(asked, []);
});

t.test('search: URLs of remote accounts and statuses', async (t) => {
  asked.length = 0;
  const status = await search('https://far.example/@zack/1', amy.token);
  t.strictSame(status.json.statuses.map((s: any) => [s.uri, s.url, s.content, s.account.acct]), [
    ['https://far.example/users/zack/statuses/1', 'https://far.example/@zack/1', '<p>found</p>', 'zack@far.example'],
  ]);
  t.strictSame(status.json.accounts, []);
  const known = await search('https://far.example/users/zack/statuses/1', amy.token, false);
  t.strictSame(known.json.statuses.map((s: any) => s.uri), ['https://far.example/users/zack/statuses/1'], 'a stored status by its uri, no resolve');
  const account = await search('https://far.example/users/zack', amy.token, false);
  t.strictSame(account.json.accounts.map((a: any) => a.acct), ['zack@far.example'], 'a stored account by its uri');
  const unknown = await search('https://far.example/nothing', amy.token);
  t.strictSame(unknown.json, { accounts: [], statuses: [], hashtags: [] });
  t.strictSame(asked, ['https://far.example/@zack/1', 'https://far.example/nothing']);
});

t.test('mentions of unknown remote handles are resolved, at most five per status', async (t) => {
  asked.length = 0;
  const s = await post(h, amy, 'hi @zara@far.example and @nope@far.example');
  t.strictSame(s.mentions.map((m: any) => [m.acct, m.url]), [['zara@far.example', 'https://far.example/@zara']]);
  t.match(s.content, /<a href="https:\/\/far\.example\/@zara" class="u-url mention">@<span>zara<\/span><\/a>/);
  t.strictSame(asked.sort(), ['nope@far.example', 'zara@far.example']);

  asked.length = 0;
  const many = ['z1', 'z2', 'z3', 'z4', 'z5', 'z6', 'z7'].map((u) => `@${u}@far.example`).join(' ');
  const crowded = await post(h, amy, `${many} @zara@far.example`);
  t.equal(asked.length, 5, 'five resolutions, no more');
  t.equal(crowded.mentions.length, 6, 'five resolved and one already known');

  asked.length = 0;
  const again = await post(h, amy, '@zara@far.example @z1@far.example');
  t.strictSame(asked, [], 'known accounts are not resolved again');
  t.equal(again.mentions.length, 2);
});

t.test('a failing or slow resolver means no link, never an error', async (t) => {
  mode = 'fail';
  const failed = await post(h, amy, 'hi @zed@far.example');
  t.strictSame(failed.mentions, []);
  const searched = await search('zed@far.example', amy.token);
  t.equal(searched.statusCode, 200);
  t.strictSame(searched.json.accounts, []);
  mode = 'hang';
  const started = performance.now();
  t.equal(await resolveAccount(h.core, 'zed@far.example', 30), null, 'a hung resolver answers nothing once its time is up');
  t.ok(performance.now() - started < 2000);
  t.equal(await resolveAccount(h.core, 'amy@rookery.test'), null, 'our own domain is never resolved');
  t.equal(await resolveAccount(h.core, 'not a handle'), null);
  mode = 'answer';
});
