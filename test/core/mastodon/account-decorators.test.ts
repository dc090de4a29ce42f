// Account decorators (host.decorateAccounts): a plugin fills its part of every account the API
// presents (the account reads, statuses' authors and boosters, notifications' senders, account
// lists, the edit history, the streams) from one load per presentation call; without one, a
// status read makes the storage calls it made before the hook existed, and nothing else.

import t from 'tap';
import { createMemoryStorage } from '../../../adapters/memory/index.ts';
import type { Account } from '../../../core/domain/model.ts';
import type { RookeryPlugin } from '../../../core/mastodon/host/types.ts';
import { harness, record } from '../../helpers/harness.ts';
import { counted } from '../../helpers/stores.ts';

/** Gives every account an emoji named after it; records which accounts each load was for. */
function namingPlugin(loads: string[][]): RookeryPlugin {
  return {
    name: 'naming',
    register(host) {
      host.decorateAccounts<Set<string>>({
        async load(accounts: readonly Account[]) {
          loads.push(accounts.map((a) => a.username).sort());
          return new Set(accounts.map((a) => a.id));
        },
        render(account, loaded, json) {
          if (loaded.has(account.id)) json.emojis = [{ shortcode: account.username, url: `https://pics.example/${account.username}.png`, static_url: `https://pics.example/${account.username}.png`, visible_in_picker: false, category: null }];
        },
      });
    },
  };
}

const shortcodes = (json: { emojis: { shortcode: string }[] }) => json.emojis.map((e) => e.shortcode);

t.test('a plugin fills accounts wherever they are presented, one load per call', async (t) => {
  const loads: string[][] = [];
  const h = await harness({ plugins: [namingPlugin(loads)] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  await h.request('POST', `/api/v1/accounts/${alice.account.id}/follow`, { token: bob.token });
  const first = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'hello @bob' } });
  t.strictSame(shortcodes(first.json.account), ['alice'], 'the published status: its author');
  await h.request('POST', `/api/v1/statuses/${first.json.id}/reblog`, { token: bob.token });
  await h.request('PUT', `/api/v1/statuses/${first.json.id}`, { token: alice.token, payload: { status: 'hello again @bob' } });

  loads.length = 0;
  const home = await h.request('GET', '/api/v1/timelines/home', { token: bob.token });
  t.strictSame(home.json.map((s: { account: { emojis: { shortcode: string }[] } }) => shortcodes(s.account)), [['alice']], 'authors');
  t.strictSame(loads, [['alice']], 'one load; bob, only mentioned, is not rendered as an account and not loaded');

  loads.length = 0;
  const profile = await h.request('GET', `/api/v1/accounts/${bob.account.id}/statuses`, { token: bob.token });
  t.strictSame(
    profile.json.map((s: { account: { emojis: { shortcode: string }[] }; reblog: { account: { emojis: { shortcode: string }[] } } | null }) => [shortcodes(s.account), s.reblog === null ? null : shortcodes(s.reblog.account)]),
    [[['bob'], ['alice']]],
    'a booster and the boosted author',
  );
  t.strictSame(loads, [['alice', 'bob']], 'both in one load');

  loads.length = 0;
  const notifications = await h.request('GET', '/api/v1/notifications', { token: bob.token });
  t.strictSame(
    notifications.json.map((n: { type: string; account: { emojis: { shortcode: string }[] }; status?: { account: { emojis: { shortcode: string }[] } } }) => [n.type, shortcodes(n.account), n.status === undefined ? null : shortcodes(n.status.account)]),
    [['update', ['alice'], ['alice']], ['mention', ['alice'], ['alice']]],
    "notifications: the sender and the status's author",
  );
  t.strictSame(loads, [['alice']], 'one load for senders and authors together');

  loads.length = 0;
  const grouped = await h.request('GET', '/api/v2/notifications', { token: bob.token });
  t.strictSame(grouped.json.accounts.map(shortcodes), [['alice']], 'grouped notifications: their accounts');

  const single = await h.request('GET', `/api/v1/accounts/${alice.account.id}`, { token: bob.token });
  t.strictSame(shortcodes(single.json), ['alice'], 'GET /api/v1/accounts/:id');
  const followers = await h.request('GET', `/api/v1/accounts/${alice.account.id}/followers`, { token: bob.token });
  t.strictSame(followers.json.map(shortcodes), [['bob']], 'followers lists');
  const searched = await h.request('GET', '/api/v2/search?q=alice&type=accounts', { token: bob.token });
  t.strictSame(searched.json.accounts.map(shortcodes), [['alice']], 'search');
  const history = await h.request('GET', `/api/v1/statuses/${first.json.id}/history`, { token: bob.token });
  t.strictSame(history.json.map((entry: { account: { emojis: { shortcode: string }[] } }) => shortcodes(entry.account)), [['alice'], ['alice']], 'the edit history');
  const anonymous = await h.request('GET', `/api/v1/statuses/${first.json.id}`);
  t.strictSame(shortcodes(anonymous.json.account), ['alice'], 'an anonymous read');

  const streamed = await record(h.bus, ['timeline:public']);
  t.teardown(() => streamed.stop());
  await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'streamed' } });
  const updates = streamed.messages.filter((m) => m.message.event === 'update').map((m) => JSON.parse(m.message.payload ?? '{}'));
  t.strictSame(updates.map((s: { account: { emojis: { shortcode: string }[] } }) => shortcodes(s.account)), [['alice']], 'the streams');

  loads.length = 0;
  const verify = await h.request('GET', '/api/v1/accounts/verify_credentials', { token: alice.token });
  // Local accounts have emoji of their own now (the emoji plugin): the caller's too.
  t.strictSame(shortcodes(verify.json), ['alice'], 'verify_credentials');
  t.strictSame(loads, [['alice']], 'one load, for the caller');
  loads.length = 0;
  const updated = await h.request('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, payload: { display_name: 'Alice' } });
  t.strictSame([updated.json.display_name, shortcodes(updated.json), loads], ['Alice', ['alice'], [['alice']]], 'update_credentials');
});

t.test('without an account decorator: a status read makes only the storage calls it made before', async (t) => {
  const calls: string[] = [];
  const h = await harness({ storage: counted(createMemoryStorage(), calls) });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const posted = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'hello' } });
  t.strictSame(h.core.hooks.accountDecorators.map((d) => d.plugin), ['core'], "no plugin decorates accounts; the core's own (moved) covers no account that did not move");

  calls.length = 0;
  const anonymous = await h.request('GET', `/api/v1/statuses/${posted.json.id}`, { drain: false });
  t.strictSame(anonymous.json.account.emojis, []);
  t.strictSame(
    calls,
    ['statuses.get', 'accounts.getMany', 'quotes.summary', 'accounts.getMany', 'oauth.getApplicationsMany'],
    "anonymous: the status, its author's moderation state (viewer.ts), its quote parts, its author, its application",
  );

  calls.length = 0;
  const signedIn = await h.request('GET', `/api/v1/statuses/${posted.json.id}`, { token: alice.token, drain: false });
  t.strictSame(signedIn.json.account.emojis, []);
  t.strictSame(
    calls,
    ['oauth.findTokenByHash', 'oauth.getApplication', 'accounts.get', 'accounts.getUser', 'relationships.nextMuteEnd', 'filters.listBy', 'statuses.get', 'accounts.getMany', 'quotes.summary', 'accounts.getMany', 'oauth.getApplicationsMany', 'interactions.viewerState', 'filters.listBy'],
    'signed in: the caller, when the reader\'s mutes and filters end (the kept answer\'s life), then the same plus the reader\'s own state and filters',
  );
});

t.test('a decorator that covers none of a call\'s accounts is neither loaded nor rendered', async (t) => {
  const loads: string[][] = [];
  const rendered: string[] = [];
  const h = await harness({
    plugins: [
      {
        name: 'alice-only',
        register(host) {
          host.decorateAccounts<null>({
            covers: (account) => account.username === 'alice',
            async load(accounts) {
              loads.push(accounts.map((a) => a.username).sort());
              return null;
            },
            render: (account) => void rendered.push(account.username),
          });
        },
      },
    ],
  });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const fromBob = await h.request('POST', '/api/v1/statuses', { token: bob.token, payload: { status: 'from bob' } });
  const fromAlice = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'from alice' } });
  loads.length = 0;
  rendered.length = 0;
  await h.request('GET', `/api/v1/statuses/${fromBob.json.id}`, { token: bob.token });
  await h.request('GET', `/api/v1/accounts/${bob.account.id}`, { token: bob.token });
  t.strictSame([loads, rendered], [[], []], "bob's status and account: nothing loaded, nothing rendered");
  await h.request('GET', `/api/v1/statuses/${fromAlice.json.id}`, { token: bob.token });
  t.strictSame([loads, rendered], [[['alice']], ['alice']], "alice's: loaded and rendered");
});
