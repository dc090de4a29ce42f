// The plugin host: what a plugin can register (endpoints, publish hooks, event listeners, jobs)
// and that the core uses it — the seams media, polls, scheduled statuses and cards will use.

import t from 'tap';
import { json } from '../../../core/mastodon/endpoint/types.ts';
import { obj, strArray } from '../../../core/domain/params.ts';
import type { RookeryPlugin } from '../../../core/mastodon/host/types.ts';
import { harness } from '../../helpers/harness.ts';
import type { MediaAttachment } from '../../../core/domain/model.ts';
import { renderMedia } from '../../../core/mastodon/entities/media.ts';
import { mediaStorage } from '../../../plugins/media/storage/index.ts';

t.test('a publish hook takes over media_ids and attaches media atomically with the status', async (t) => {
  const media: RookeryPlugin = {
    name: 'test-media',
    register(host) {
      const repo = host.storage(mediaStorage);
      host.onPublish({
        params: ['media_ids'],
        async prepare(draft) {
          draft.mediaIds = strArray(draft.params, 'media_ids') ?? [];
          draft.writes.push(repo.attach(draft.account.id, draft.statusId, draft.mediaIds));
        },
      });
      host.decorateStatuses<Map<string, MediaAttachment>>({
        load: async (statuses) => new Map((await repo.getMany(statuses.flatMap((s) => s.mediaIds))).map((m) => [m.id, m])),
        render: (status, loaded, json) => void (json.media_attachments = status.mediaIds.flatMap((id) => (loaded.has(id) ? [renderMedia(loaded.get(id) as MediaAttachment)] : []))),
      });
    },
  };
  const h = await harness({ plugins: [media] });
  const alice = await h.user('alice');
  const id = h.core.ids.next();
  await h.core.storage.extend(mediaStorage).create({
    id, accountId: alice.account.id, statusId: null, type: 'image', url: 'https://rookery.test/m.png', previewUrl: 'https://rookery.test/s.png',
    remoteUrl: null, description: 'a cat', blurhash: null, original: { width: 4, height: 3 }, small: null, focus: null, extra: {}, processed: true, createdAt: Date.now(),
  });
  const res = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: '', media_ids: [id] } });
  t.equal(res.statusCode, 200, 'media make an empty status valid');
  t.same(res.json.media_attachments.map((m: { id: string; description: string }) => [m.id, m.description]), [[id, 'a cat']]);
  const again = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'x', media_ids: [id] } });
  t.equal(again.statusCode, 422, 'media already attached: the store refuses, nothing is written');
  t.same(again.json, { error: `Media ${id} not found or already attached to another post` });
  const poll = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'x', poll: { options: ['a', 'b'], expires_in: 600 } } });
  t.same(poll.json, { error: 'Validation failed: Polls are not supported by this server' }, 'parameters nobody took over are still refused');
  await h.close();
});

t.test('a publish hook can divert the request (a scheduled status)', async (t) => {
  const scheduler: RookeryPlugin = {
    name: 'test-scheduler',
    register(host) {
      host.onPublish({
        params: ['scheduled_at'],
        async prepare(draft) {
          return { divert: { id: 'scheduled', scheduled_at: draft.params['scheduled_at'], params: { text: draft.text } } };
        },
      });
    },
  };
  const h = await harness({ plugins: [scheduler] });
  const alice = await h.user('alice');
  const res = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'later', scheduled_at: '2099-01-01T00:00:00.000Z' } });
  t.same(res.json, { id: 'scheduled', scheduled_at: '2099-01-01T00:00:00.000Z', params: { text: 'later' } });
  t.equal((await h.request('GET', `/api/v1/accounts/${alice.account.id}`)).json.statuses_count, 0, 'nothing was published');
  await h.close();
});

t.test('endpoints: a plugin adds routes and replaces a core placeholder; params arrive nested', async (t) => {
  const echo: RookeryPlugin = {
    name: 'test-endpoints',
    register(host) {
      host.addEndpoint({
        method: 'POST',
        path: '/api/v1/echo/:id',
        auth: 'user',
        scopes: ['write'],
        handle: async (request) => json({ id: request.params['id'], query: request.query, body: request.body, poll: obj(request.body, 'poll') ?? null, caller: request.caller.account?.username }),
      });
      host.addEndpoint({ method: 'GET', path: '/api/v1/scheduled_statuses', auth: 'user', scopes: ['read'], handle: async () => json([{ from: 'plugin' }]) });
    },
  };
  const h = await harness({ plugins: [echo] });
  const alice = await h.user('alice');
  const form = await h.request('POST', '/api/v1/echo/42?a[]=1&a[]=2&x[y]=z', {
    token: alice.token,
    payload: 'status=hi&media_ids[]=1&media_ids[]=2&poll[options][]=a&poll[options][]=b&poll[expires_in]=300',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  t.equal(form.statusCode, 200);
  t.same(form.json, {
    id: '42',
    query: { a: ['1', '2'], x: { y: 'z' } },
    body: { status: 'hi', media_ids: ['1', '2'], poll: { options: ['a', 'b'], expires_in: '300' } },
    poll: { options: ['a', 'b'], expires_in: '300' },
    caller: 'alice',
  }, 'Rack-style keys nest in the query and in form bodies');
  const multipart = await h.request('POST', '/api/v1/echo/7', {
    token: alice.token,
    payload: '--B\r\nContent-Disposition: form-data; name="poll[options][]"\r\n\r\nx\r\n--B\r\nContent-Disposition: form-data; name="poll[options][]"\r\n\r\ny\r\n--B--\r\n',
    headers: { 'content-type': 'multipart/form-data; boundary=B' },
  });
  t.same(multipart.json.body, { poll: { options: ['x', 'y'] } }, 'and in multipart bodies');
  const many = Array.from({ length: 30 }, (_, i) => `n[]=${i}`).join('&');
  t.equal((await h.request('POST', `/api/v1/echo/1?${many}`, { token: alice.token })).json.query.n.length, 30, 'more than qs\'s default 20 items stay an array');
  t.equal((await h.request('POST', '/api/v1/echo/1')).statusCode, 401, 'the plugin endpoint gets the core guard');
  t.same((await h.request('GET', '/api/v1/scheduled_statuses', { token: alice.token })).json, [{ from: 'plugin' }], 'plugin endpoints win over core placeholders');
  await h.close();
});

t.test('event listeners run after the write committed; their failures do not fail the request', async (t) => {
  const seen: string[] = [];
  const listener: RookeryPlugin = {
    name: 'test-listener',
    register(host) {
      host.on('status.created', async (event) => {
        const stored = await host.system.statuses.get(event.status.id);
        seen.push(stored === null ? 'not committed' : `committed ${stored.text}`);
      });
      host.on('status.created', async () => {
        throw new Error('a broken plugin');
      });
    },
  };
  const h = await harness({ plugins: [listener] });
  const alice = await h.user('alice');
  const res = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'card me https://example.com' } });
  t.equal(res.statusCode, 200);
  t.same(seen, ['committed card me https://example.com']);
  await h.close();
});

t.test("a listener's `when` keeps the events it answers false for from queuing its job", async (t) => {
  const seen: string[] = [];
  const picky: RookeryPlugin = {
    name: 'test-picky',
    register(host) {
      host.on('status.created', async (event) => void seen.push(`picked ${event.status.text}`), { when: (event) => event.status.text.startsWith('pick') });
      host.on('status.created', async (event) => void seen.push(`asked anyway ${event.status.text}`), {
        when: () => {
          throw new Error('a broken test');
        },
      });
    },
  };
  const h = await harness({ plugins: [picky] });
  const alice = await h.user('alice');
  for (const status of ['pick me', 'leave me']) {
    const res = await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status } });
    t.equal(res.statusCode, 200, `${status}: published`);
  }
  t.same(seen.sort(), ['asked anyway leave me', 'asked anyway pick me', 'picked pick me'], 'the picky listener ran for its event only; a `when` that throws counts as yes');
  await h.close();
});

t.test('jobs run on their interval until stopped, and close stops them', async (t) => {
  // A plugin whose 5 ms job counts its runs and wakes whoever waits for a given count.
  const counter = () => {
    let runs = 0;
    let waiting: { count: number; done: () => void } | null = null;
    const plugin: RookeryPlugin = {
      name: 'test-job',
      register: (host) =>
        host.addJob({
          name: 'tick',
          intervalMs: 5,
          run: async () => {
            runs += 1;
            if (waiting !== null && runs >= waiting.count) waiting.done();
          },
        }),
    };
    const reach = (count: number) => new Promise<void>((done) => (waiting = { count, done }));
    return { plugin, reach, runs: () => runs };
  };
  const ticker = counter();
  const h = await harness({ plugins: [ticker.plugin] });
  const stop = h.rookery.startJobs();
  await ticker.reach(3);
  stop();
  const after = ticker.runs();
  t.ok(after >= 3, `ran ${after} times`);
  // A witness on the same interval: once it ran three times, a ticker still running would have too.
  const witness = counter();
  const w = await harness({ plugins: [witness.plugin] });
  w.rookery.startJobs();
  await witness.reach(3);
  t.equal(ticker.runs(), after, 'stopped');
  h.rookery.startJobs();
  await h.close();
  const closed = ticker.runs();
  await witness.reach(witness.runs() + 3);
  t.equal(ticker.runs(), closed, 'close stops running jobs');
  await w.close();
});

t.test('a mute made with notifications: false still lets notifications through', async (t) => {
  const h = await harness();
  const alice = await h.user('alice');
  const bob = await h.user('bob');
  const carol = await h.user('carol');
  const s = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'hi' } })).json;
  await h.request('POST', `/api/v1/accounts/${bob.account.id}/mute`, { token: alice.token, payload: { notifications: false } });
  await h.request('POST', `/api/v1/accounts/${carol.account.id}/mute`, { token: alice.token });
  await h.request('POST', `/api/v1/statuses/${s.id}/favourite`, { token: bob.token });
  await h.request('POST', `/api/v1/statuses/${s.id}/favourite`, { token: carol.token });
  const notes = await h.request('GET', '/api/v1/notifications', { token: alice.token });
  t.same(notes.json.map((n: { account: { username: string } }) => n.account.username), ['bob'], 'only the fully muted account is silenced');
  await h.close();
});
