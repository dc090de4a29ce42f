// What the federation plugin serves, through the core's front (hapi here): WebFinger,
// host-meta with CORS, the actor with both keys, a status as a Note at its uri, content
// negotiation for browsers, collections, and inbox refusals in Mastodon's error shape.

import t from 'tap';
import { federationPlugin, pollsPlugin } from '../../../plugins/index.ts';
import { harness } from '../../helpers/harness.ts';

const AP = 'application/activity+json';

t.test('discovery, actors, notes and refusals', async (t) => {
  const h = await harness({ plugins: [federationPlugin()] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const base = h.core.config.baseUrl;

  let res = await h.request('GET', '/.well-known/webfinger?resource=acct:alice@rookery.test');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /application\/jrd\+json/);
  t.equal(res.json.subject, 'acct:alice@rookery.test');
  t.ok(res.json.links.some((link: { rel: string; href: string; type?: string }) => link.rel === 'self' && link.href === `${base}/users/alice` && link.type === AP));
  res = await h.request('GET', '/.well-known/webfinger?resource=acct:nobody@rookery.test');
  t.equal(res.statusCode, 404);
  t.same(res.json, { error: 'Record not found' });

  res = await h.request('GET', '/.well-known/host-meta', { headers: {} });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /application\/xrd\+xml/);
  t.equal(res.headers['access-control-allow-origin'], '*');
  t.match(res.body, `template="${base}/.well-known/webfinger?resource={uri}"`);
  res = await h.request('GET', '/.well-known/host-meta', { headers: { origin: 'https://phanpy.social' } });
  t.equal(res.headers['access-control-allow-origin'], 'https://phanpy.social');

  res = await h.request('GET', '/users/alice', { headers: { accept: AP } });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /application\/activity\+json/);
  t.equal(res.json.type, 'Person');
  t.equal(res.json.id, `${base}/users/alice`);
  t.equal(res.json.preferredUsername, 'alice');
  t.equal(res.json.inbox, `${base}/users/alice/inbox`);
  t.equal(res.json.endpoints.sharedInbox, `${base}/inbox`);
  t.match(res.json.publicKey.publicKeyPem, /^-----BEGIN PUBLIC KEY-----/);
  t.equal(res.json.assertionMethod.length, 2);
  const firstKey = res.json.publicKey.publicKeyPem;
  // The keys are made once and kept.
  res = await h.request('GET', '/users/alice', { headers: { accept: AP } });
  t.equal(res.json.publicKey.publicKeyPem, firstKey);

  res = await h.request('GET', '/users/alice', { headers: { accept: 'text/html' } });
  t.equal(res.statusCode, 302);
  t.equal(res.headers['location'], `${base}/@alice`);
  res = await h.request('GET', '/users/nobody', { headers: { accept: AP } });
  t.equal(res.statusCode, 404);
  t.same(res.json, { error: 'Record not found' });

  const posted = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Hello #fediverse', visibility: 'public' } });
  const hidden = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Only followers', visibility: 'private' } });
  res = await h.request('GET', `/users/alice/statuses/${posted.json.id}`, { headers: { accept: AP } });
  t.equal(res.statusCode, 200);
  t.equal(res.json.type, 'Note');
  t.equal(res.json.id, posted.json.uri);
  t.equal(res.json.content, posted.json.content);
  t.same(res.json.to, 'as:Public');
  t.equal(res.json.tag.type, 'Hashtag');
  res = await h.request('GET', `/users/alice/statuses/${posted.json.id}`, { headers: { accept: 'text/html' } });
  t.equal(res.statusCode, 302);
  t.equal(res.headers['location'], `${base}/@alice/${posted.json.id}`);
  res = await h.request('GET', `/users/alice/statuses/${hidden.json.id}`, { headers: { accept: AP } });
  t.equal(res.statusCode, 401);
  res = await h.request('GET', `/users/bob/statuses/${posted.json.id}`, { headers: { accept: AP } });
  t.equal(res.statusCode, 404);

  res = await h.request('GET', '/users/alice/outbox', { headers: { accept: AP } });
  t.equal(res.statusCode, 200);
  t.equal(res.json.totalItems, 2);
  res = await h.request('GET', '/users/alice/followers', { headers: { accept: AP } });
  t.equal(res.statusCode, 200);
  t.equal(res.json.totalItems, 0);
  res = await h.request('GET', '/users/alice/following', { headers: { accept: AP } });
  t.equal(res.statusCode, 200);
  t.equal(res.json.totalItems, 0);
  await h.request('POST', `/api/v1/statuses/${posted.json.id}/pin`, { token: alice.token });
  await h.request('POST', `/api/v1/statuses/${hidden.json.id}/pin`, { token: alice.token });
  res = await h.request('GET', '/users/alice/collections/featured', { headers: { accept: AP } });
  t.equal(res.statusCode, 200);
  const featured = [res.json.orderedItems ?? []].flat() as { id: string; type: string }[];
  t.same(featured.map((item) => [item.type, item.id]), [['Note', posted.json.uri]], 'the pinned public status, not the followers-only one');

  const activity = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', type: 'Follow', id: 'https://remote.example/1', actor: 'https://remote.example/users/bob', object: `${base}/users/alice` });
  res = await h.request('POST', '/inbox', { payload: activity, headers: { 'content-type': AP } });
  t.equal(res.statusCode, 401);
  t.type(res.json.error, 'string');
  res = await h.request('POST', '/users/alice/inbox', { payload: '{"broken', headers: { 'content-type': AP } });
  t.equal(res.statusCode, 400);
  t.type(res.json.error, 'string');
  res = await h.request('POST', '/inbox', { payload: 'x'.repeat(1024 * 1024 + 1), headers: { 'content-type': AP } });
  t.equal(res.statusCode, 413);
  t.same(res.json, { error: 'Payload content length greater than maximum allowed: 1048576' });
});

t.test('a poll as a Question, closed once it ended', async (t) => {
  const h = await harness({ plugins: [pollsPlugin(), federationPlugin()] });
  t.teardown(() => h.close());
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const posted = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'Tea or coffee?', poll: { options: ['tea', 'coffee'], expires_in: 600 } } });
  await h.request('POST', `/api/v1/polls/${posted.json.poll.id}/votes`, { token: bob.token, payload: { choices: ['1'] } });
  const path = `/users/alice/statuses/${posted.json.id}`;
  let res = await h.request('GET', path, { headers: { accept: AP } });
  t.equal(res.statusCode, 200);
  // The same instant: Temporal writes no trailing zeros of the milliseconds (…33.04Z for …33.040Z).
  t.equal(Date.parse(res.json.endTime), Date.parse(posted.json.poll.expires_at), 'it ends when the poll does');
  t.match(res.json, {
    type: 'Question',
    votersCount: 1,
    oneOf: [
      { type: 'Note', name: 'tea', replies: { type: 'Collection', totalItems: 0 } },
      { type: 'Note', name: 'coffee', replies: { type: 'Collection', totalItems: 1 } },
    ],
  });
  t.notOk('closed' in res.json, 'open while it runs');
  h.clock.advance(600_000);
  res = await h.request('GET', path, { headers: { accept: AP } });
  t.equal(res.json.closed, res.json.endTime, 'closed at its end once it ended (as Mastodon states it)');
});
