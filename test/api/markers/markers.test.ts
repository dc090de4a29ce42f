// GET and POST /api/v1/markers.

import t from 'tap';
import { harness } from '../../helpers/harness.ts';

const h = await harness();
t.teardown(() => h.close());
const me = await h.user('me');
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

t.test('nothing asked, nothing saved', async (t) => {
  const none = await h.request('GET', '/api/v1/markers', { token: me.token });
  t.equal(none.statusCode, 200);
  t.same(none.json, {});
  t.same((await h.request('GET', '/api/v1/markers?timeline[]=home&timeline[]=notifications', { token: me.token })).json, {});
});

t.test('save, read back, version counts up', async (t) => {
  const first = await h.request('POST', '/api/v1/markers', { token: me.token, payload: 'home[last_read_id]=103&notifications[last_read_id]=7', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(first.statusCode, 200);
  t.same(Object.keys(first.json).sort(), ['home', 'notifications']);
  t.match(first.json.home, { last_read_id: '103', version: 0, updated_at: TIMESTAMP });
  t.match(first.json.notifications, { last_read_id: '7', version: 0 });
  const second = await h.request('POST', '/api/v1/markers', { token: me.token, payload: { home: { last_read_id: '110' } } });
  t.same(Object.keys(second.json), ['home'], 'only what was saved');
  t.match(second.json.home, { last_read_id: '110', version: 1 });
  const third = await h.request('POST', '/api/v1/markers', { token: me.token, payload: { home: { last_read_id: '120' } } });
  t.equal(third.json.home.version, 2);
  const read = await h.request('GET', '/api/v1/markers?timeline[]=home&timeline[]=notifications', { token: me.token });
  t.same(read.json, { home: third.json.home, notifications: first.json.notifications });
  const onlyHome = await h.request('GET', '/api/v1/markers?timeline[]=home&timeline[]=elsewhere', { token: me.token });
  t.same(Object.keys(onlyHome.json), ['home']);
  const lone = await h.request('GET', '/api/v1/markers?timeline=notifications', { token: me.token });
  t.same(Object.keys(lone.json), ['notifications']);
  const other = await h.user('other');
  t.same((await h.request('GET', '/api/v1/markers?timeline[]=home', { token: other.token })).json, {}, 'markers are per user');
});

t.test('a timeline without last_read_id is 422; unknown timelines are ignored', async (t) => {
  const blank = await h.request('POST', '/api/v1/markers', { token: me.token, payload: { home: { last_read_id: '' } } });
  t.equal(blank.statusCode, 422);
  t.same(blank.json, { error: "Validation failed: Last read can't be blank" });
  const unknown = await h.request('POST', '/api/v1/markers', { token: me.token, payload: { public: { last_read_id: '5' } } });
  t.equal(unknown.statusCode, 200);
  t.same(unknown.json, {});
});

t.test('scopes: read:statuses to read, write:statuses to save', async (t) => {
  t.equal((await h.request('GET', '/api/v1/markers')).statusCode, 401);
  const reader = await h.user('mreader', { scopes: ['read:statuses'] });
  t.equal((await h.request('GET', '/api/v1/markers', { token: reader.token })).statusCode, 200);
  const refused = await h.request('POST', '/api/v1/markers', { token: reader.token, payload: { home: { last_read_id: '1' } } });
  t.equal(refused.statusCode, 403);
  const writer = await h.user('mwriter', { scopes: ['write:statuses'] });
  t.equal((await h.request('POST', '/api/v1/markers', { token: writer.token, payload: { home: { last_read_id: '1' } } })).statusCode, 200);
});
