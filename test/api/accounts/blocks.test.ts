// Block, unblock, mute, unmute, and the lists of blocked and muted accounts.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';
import { follow, ids, links } from '../../helpers/api.ts';

const h = await harness();
t.teardown(() => h.close());

t.test('block ends follows both ways and answers a Relationship; unblock', async (t) => {
  const amy = await h.user('amy');
  const bo = await h.user('bo');
  await follow(h, amy, bo);
  await follow(h, bo, amy);
  const res = await h.request('POST', `/api/v1/accounts/${bo.account.id}/block`, { token: amy.token });
  t.equal(res.statusCode, 200);
  t.equal(res.json.blocking, true);
  t.equal(res.json.following, false);
  t.equal(res.json.followed_by, false);
  const seenByBo = await h.request('GET', `/api/v1/accounts/relationships?id[]=${amy.account.id}`, { token: bo.token });
  t.equal(seenByBo.json[0].blocked_by, true);
  t.equal((await h.request('POST', `/api/v1/accounts/${bo.account.id}/block`, { token: amy.token })).statusCode, 200, 'idempotent');
  const blocks = await h.request('GET', '/api/v1/blocks', { token: amy.token });
  t.same(ids(blocks.json), [bo.account.id]);
  const unblocked = await h.request('POST', `/api/v1/accounts/${bo.account.id}/unblock`, { token: amy.token });
  t.equal(unblocked.statusCode, 200);
  t.equal(unblocked.json.blocking, false);
  t.same((await h.request('GET', '/api/v1/blocks', { token: amy.token })).json, []);
});

t.test('mute: notifications default true, duration, expiry, unmute', async (t) => {
  const cy = await h.user('cy');
  const di = await h.user('di');
  const ed = await h.user('ed');
  const muted = await h.request('POST', `/api/v1/accounts/${di.account.id}/mute`, { token: cy.token });
  t.equal(muted.statusCode, 200);
  t.equal(muted.json.muting, true);
  t.equal(muted.json.muting_notifications, true);
  t.equal(muted.json.muting_expires_at, null);
  const quiet = await h.request('POST', `/api/v1/accounts/${ed.account.id}/mute`, { token: cy.token, payload: { notifications: false, duration: 60 } });
  t.equal(quiet.json.muting_notifications, false);
  t.equal(Date.parse(quiet.json.muting_expires_at) - h.clock.now() <= 60_000, true);
  t.ok(Date.parse(quiet.json.muting_expires_at) > h.clock.now() + 58_000);
  const list = await h.request('GET', '/api/v1/mutes', { token: cy.token });
  t.same(ids(list.json), [ed.account.id, di.account.id]);
  t.equal(list.json[0].mute_expires_at, quiet.json.muting_expires_at);
  t.equal(list.json[1].mute_expires_at, null);

  h.clock.advance(61_000);
  const later = await h.request('GET', `/api/v1/accounts/relationships?id[]=${ed.account.id}`, { token: cy.token });
  t.equal(later.json[0].muting, false, 'an expired mute no longer counts');
  t.same(ids((await h.request('GET', '/api/v1/mutes', { token: cy.token })).json), [di.account.id]);

  const unmuted = await h.request('POST', `/api/v1/accounts/${di.account.id}/unmute`, { token: cy.token });
  t.equal(unmuted.json.muting, false);
  t.same((await h.request('GET', '/api/v1/mutes', { token: cy.token })).json, []);
});

t.test('oneself cannot be blocked or muted; unknown accounts are 404', async (t) => {
  const fo = await h.user('fo');
  for (const action of ['block', 'mute']) {
    const res = await h.request('POST', `/api/v1/accounts/${fo.account.id}/${action}`, { token: fo.token });
    t.equal(res.statusCode, 403, action);
    t.same(res.json, { error: 'This action is not allowed' });
  }
  for (const action of ['block', 'unblock', 'mute', 'unmute']) {
    t.equal((await h.request('POST', `/api/v1/accounts/5555/${action}`, { token: fo.token })).statusCode, 404, action);
  }
});

t.test('scopes: write:blocks / write:mutes / follow; read:blocks / read:mutes', async (t) => {
  const gi = await h.user('gi');
  const blocker = await h.user('blocker', { scopes: ['write:blocks', 'read:blocks'] });
  const muter = await h.user('muter', { scopes: ['write:mutes'] });
  const legacy = await h.user('legacy', { scopes: ['follow'] });
  t.equal((await h.request('POST', `/api/v1/accounts/${gi.account.id}/block`, { token: blocker.token })).statusCode, 200);
  t.equal((await h.request('POST', `/api/v1/accounts/${gi.account.id}/mute`, { token: blocker.token })).statusCode, 403);
  t.equal((await h.request('POST', `/api/v1/accounts/${gi.account.id}/mute`, { token: muter.token })).statusCode, 200);
  t.equal((await h.request('POST', `/api/v1/accounts/${gi.account.id}/block`, { token: muter.token })).statusCode, 403);
  t.equal((await h.request('POST', `/api/v1/accounts/${gi.account.id}/mute`, { token: legacy.token })).statusCode, 200);
  t.equal((await h.request('GET', '/api/v1/blocks', { token: blocker.token })).statusCode, 200);
  t.equal((await h.request('GET', '/api/v1/mutes', { token: blocker.token })).statusCode, 403);
  t.equal((await h.request('GET', '/api/v1/blocks')).statusCode, 401);
});

t.test('blocks page through Link headers', async (t) => {
  const hu = await h.user('hu');
  const targets = [];
  for (const name of ['t1', 't2', 't3']) {
    const target = await h.user(name);
    await h.request('POST', `/api/v1/accounts/${target.account.id}/block`, { token: hu.token });
    targets.push(target.account.id);
  }
  const first = await h.request('GET', '/api/v1/blocks?limit=2', { token: hu.token });
  t.same(ids(first.json), [targets[2], targets[1]]);
  const next = links(first.headers)['next'] ?? '';
  t.match(next, /^https:\/\/rookery\.test\/api\/v1\/blocks\?limit=2&max_id=\d+$/);
  const second = await h.request('GET', next.replace('https://rookery.test', ''), { token: hu.token });
  t.same(ids(second.json), [targets[0]]);
});
