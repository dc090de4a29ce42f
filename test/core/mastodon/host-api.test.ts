// What an embedding app gets from the package root (core/index.ts, published as `rookery`):
// accounts and tokens from code for a host with its own sign-up, and the plugin host's reads
// under the visibility rules and its presenters, used by a plugin endpoint over HTTP.

import t from 'tap';
import { json, RookeryError, type RookeryPlugin } from '../../../core/index.ts';
import { harness } from '../../helpers/harness.ts';

async function refusal(run: () => Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await run();
  } catch (err) {
    if (err instanceof RookeryError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('accepted');
}

t.test('rookery.accounts.create and rookery.tokens.issue', async (t) => {
  const h = await harness({ config: { title: 'Host Community' } });
  t.teardown(() => h.close());
  const account = await h.rookery.accounts.create({ username: 'hostuser', email: 'hostuser@example.com', displayName: 'Host User' });
  t.match(account, { username: 'hostuser', displayName: 'Host User', domain: null });
  const token = await h.rookery.tokens.issue(account.id);
  const me = await h.request('GET', '/api/v1/accounts/verify_credentials', { token });
  t.same([me.statusCode, me.json.username, me.json.display_name], [200, 'hostuser', 'Host User'], 'the token works over HTTP');
  const posted = await h.request('POST', '/api/v1/statuses', { token, payload: { status: 'hello from the host' } });
  t.same([posted.statusCode, posted.json.application], [200, { name: 'Host Community', website: null }], 'the token belongs to an app named after the instance');
  const user = await h.core.storage.accounts.getUser(account.id);
  t.match(user, { confirmedAt: Number, approved: true, disabled: false }, 'confirmed and approved unless said otherwise');

  const readOnly = await h.rookery.tokens.issue(account.id, ['read']);
  const refused = await h.request('POST', '/api/v1/statuses', { token: readOnly, payload: { status: 'no' } });
  t.same([refused.statusCode, refused.json], [403, { error: 'This action is outside the authorized scopes' }], 'scopes are as asked');
  const second = await h.rookery.accounts.create({ username: 'other', email: 'other@example.com', password: 'a long password' });
  await h.rookery.tokens.issue(second.id);
  t.equal((await h.core.storage.oauth.findTokenByHash(h.core.secrets.sha256(readOnly)))?.applicationId, (await h.core.storage.oauth.findTokenByHash(h.core.secrets.sha256(token)))?.applicationId, 'one application for all of them');

  t.same(await refusal(() => h.rookery.accounts.create({ username: 'hostuser', email: 'bad' })), { status: 422, message: 'Validation failed: Username is already taken, Email is invalid' });
  t.same(await refusal(() => h.rookery.tokens.issue('123456789', ['read'])), { status: 404, message: 'Record not found' });
  t.same(await refusal(() => h.rookery.tokens.issue(account.id, ['read', 'bogus'])), { status: 422, message: 'Unknown scope: bogus' });
  t.same(await refusal(() => h.rookery.tokens.issue(account.id, [])), { status: 422, message: 'A token needs at least one scope' });
});

t.test('the plugin host: visibility lookups and presenters', async (t) => {
  const kit: RookeryPlugin = {
    name: 'kit',
    register(host) {
      host.addEndpoint({
        method: 'GET',
        path: '/api/v1/kit/:id',
        auth: 'optional',
        scopes: ['read'],
        async handle(request) {
          const viewer = request.caller.account;
          const { status } = await host.statuses.visible(viewer, request.params['id'] ?? '');
          const all = await host.system.statuses.getMany([status.id]);
          return json({
            one: (await host.present.status(status, viewer)).id,
            many: (await host.present.statuses(await host.statuses.filterVisible(viewer, all), viewer)).length,
            author: (await host.present.accounts([status.accountId]))[0]?.username,
            canView: (await host.statuses.getVisible(viewer, [status.id])).length === 1,
          });
        },
      });
    },
  };
  const h = await harness({ plugins: [kit] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const secret = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'only me', visibility: 'direct' } });
  const own = await h.request('GET', `/api/v1/kit/${secret.json.id}`, { token: alice.token });
  t.same([own.statusCode, own.json], [200, { one: secret.json.id, many: 1, author: 'alice', canView: true }]);
  const other = await h.request('GET', `/api/v1/kit/${secret.json.id}`, { token: bob.token });
  t.same([other.statusCode, other.json], [404, { error: 'Record not found' }], 'the same rule as the API');
});
