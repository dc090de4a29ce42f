// The standalone instance as operators run it: the CLI creates an account and a token, the
// server starts on the embedded SQLite store, takes writes, stops cleanly on SIGTERM, and
// everything acknowledged is there after a restart (an avatar on disk included); a scheduled
// status is published once across a restart past its time.

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import t from 'tap';
import { childEnv, freePort } from '../helpers/processes.ts';
import { runCli, runServer, spawnInstance, startInstance, stopInstance } from '../helpers/standalone.ts';

// About a minute alone; twice that beside the heavier files on a loaded machine, past tap's
// default of 120 s.
t.setTimeout(240_000);

const dataDir = mkdtempSync(join(tmpdir(), 'rookery-standalone-'));
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));

t.test('CLI, start, write, SIGTERM, restart', async (t) => {
  const port = await freePort();
  const streamingPort = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), BIND: '127.0.0.1', STREAMING_PORT: String(streamingPort), INSTANCE_RULES: 'Be kind\n\nNo spam ' });
  const created = runCli(env, 'accounts', 'create', 'opal', '--email', 'opal@example.com', '--password', 'a long password');
  t.equal(created.status, 0, created.stderr);
  t.match(created.stdout, /^Created @opal \(id \d+\)\./);
  const duplicate = runCli(env, 'accounts', 'create', 'opal', '--email', 'other@example.com', '--password', 'a long password');
  t.equal(duplicate.status, 1);
  t.match(duplicate.stderr, /Validation failed: Username is already taken/);
  const usage = runCli(env, 'frobnicate');
  t.equal(usage.status, 2);
  t.match(usage.stderr, /Usage: npm run rookery/);
  const issued = runCli(env, 'tokens', 'issue', 'opal', '--scopes', 'read write');
  t.equal(issued.status, 0, issued.stderr);
  const token = issued.stdout.trim();
  t.match(token, /^[A-Za-z0-9_-]{43}$/);

  const base = `http://127.0.0.1:${port}`;
  let server = await startInstance(env);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const posted = await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers, body: JSON.stringify({ status: 'kept across restarts' }) });
  t.equal(posted.status, 200);
  const status = (await posted.json()) as { id: string; uri: string };
  t.equal(status.uri, `http://localhost:${port}/users/opal/statuses/${status.id}`, 'names itself after where it listens');
  const favourited = await fetch(`${base}/api/v1/statuses/${status.id}/favourite`, { method: 'POST', headers });
  t.equal(favourited.status, 200);
  const instance = (await (await fetch(`${base}/api/v2/instance`)).json()) as { configuration?: { urls?: { streaming?: string }; vapid?: { public_key?: string } } };
  const vapidKey = instance.configuration?.vapid?.public_key ?? '';
  t.match(vapidKey, /^B[\w-]{86}$/, 'Web Push is on: the VAPID public key');
  t.equal(statSync(join(dataDir, 'push-token.key')).mode & 0o777, 0o600, 'the push token key is a file only its owner reads');
    const front = await fetch(`${base}/`);
  t.equal(front.status, 200, 'the front page');
  const frontHtml = await front.text();
  t.match(frontHtml, '<ol id="rules">\n<li>Be kind</li>\n<li>No spam</li>\n</ol>', 'INSTANCE_RULES, one per line');
  t.match(frontHtml, '<a href="/auth/sign_up">Create an account</a>');
    t.equal(instance.configuration?.urls?.streaming, `ws://localhost:${streamingPort}`, 'STREAMING_PORT (its default, 4000: standalone-streaming.test.ts)');

  // A profile edit with an avatar, through the node handler, into the instance's media directory.
  const form = new FormData();
  form.append('display_name', 'Opal');
  form.append('avatar', new Blob([await sharp({ create: { width: 64, height: 48, channels: 3, background: '#963' } }).png().toBuffer()], { type: 'image/png' }), 'me.png');
  const edited = await fetch(`${base}/api/v1/accounts/update_credentials`, { method: 'PATCH', headers: { authorization: `Bearer ${token}` }, body: form });
  t.equal(edited.status, 200);
  const profile = (await edited.json()) as { display_name: string; avatar: string };
  t.equal(profile.display_name, 'Opal');
  t.match(profile.avatar, new RegExp(`^http://localhost:${port}/system/media/\\d+-avatar-\\d+\\.png$`));

  t.equal(await stopInstance(server), 0, 'SIGTERM: a clean exit');
  server = await startInstance(env);
  const avatar = await fetch(`${base}${new URL(profile.avatar).pathname}`);
  const avatarSize = await sharp(Buffer.from(await avatar.arrayBuffer())).metadata();
  t.same([avatar.status, avatar.headers.get('content-type'), avatarSize.width, avatarSize.height], [200, 'image/png', 400, 400], 'the avatar is on disk and served after the restart');
  const after = await fetch(`${base}/api/v1/statuses/${status.id}`, { headers });
  t.equal(after.status, 200, 'the status survived');
  const body = (await after.json()) as { favourites_count: number; favourited: boolean; content: string };
  t.equal(body.content, '<p>kept across restarts</p>');
  t.equal(body.favourites_count, 1, 'and its favourite');
  t.equal(body.favourited, true);
  const again = (await (await fetch(`${base}/api/v2/instance`)).json()) as { configuration?: { vapid?: { public_key?: string } } };
  t.equal(again.configuration?.vapid?.public_key, vapidKey, 'the same VAPID key after the restart');
  t.equal(await stopInstance(server), 0);
});

t.test('LIMITED_FEDERATION_MODE and closed registrations come from the environment', async (t) => {
  const port = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), STREAMING_PORT: String(await freePort()), LIMITED_FEDERATION_MODE: 'true', REGISTRATIONS: 'closed' });
  const server = await startInstance(env);
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/timelines/public`);
  t.equal(res.status, 401);
  t.same(await res.json(), { error: 'This API requires an authenticated user' });
  t.match(await (await fetch(`http://127.0.0.1:${port}/`)).text(), 'Sign-ups are closed on this server.', 'the front page says so');
  t.equal((await fetch(`http://127.0.0.1:${port}/auth/sign_up`)).status, 403);
  t.equal(await stopInstance(server), 0);
});

t.test('a bad setting fails loudly before listening', async (t) => {
  const result = runServer(childEnv({ DATA_DIR: dataDir, PORT: 'eighty' }));
  t.not(result.status, 0);
  t.match(result.stderr, /PORT must be a port number, got "eighty"/);
});

t.test('a busy port: a clear message naming PORT, no stack', async (t) => {
  const { createServer } = await import('node:net');
  const blocker = createServer();
  const port = await freePort();
  await new Promise<void>((listening) => blocker.listen(port, '127.0.0.1', () => listening()));
  const result = runServer(childEnv({ DATA_DIR: dataDir, PORT: String(port), STREAMING_PORT: String(await freePort()), BIND: '127.0.0.1', LOG_LEVEL: 'silent' }));
  await new Promise<void>((closed) => blocker.close(() => closed()));
  t.equal(result.status, 1);
  t.equal(result.stderr.trim(), `Port ${port} is already in use on 127.0.0.1. Set PORT to a free port (or stop what listens on 127.0.0.1:${port}).`);
  t.notMatch(result.stderr, /\n\s+at /, 'no stack trace');
});

t.test('a scheduled status is published once, after a SIGTERM and a restart past its time', async (t) => {
  const port = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), STREAMING_PORT: String(await freePort()), BIND: '127.0.0.1', LOG_LEVEL: 'info' });
  t.equal(runCli(env, 'accounts', 'create', 'sched', '--email', 'sched@example.com', '--password', 'a long password').status, 0);
  const token = runCli(env, 'tokens', 'issue', 'sched', '--scopes', 'read write').stdout.trim();
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const statusesOf = async () => {
    const me = (await (await fetch(`${base}/api/v1/accounts/verify_credentials`, { headers })).json()) as { id: string };
    return (await (await fetch(`${base}/api/v1/accounts/${me.id}/statuses`, { headers })).json()) as { id: string; content: string; visibility: string }[];
  };

  // Scheduled six minutes ahead of the real time (Mastodon wants at least five).
  const first = spawnInstance(env);
  await first.until('Rookery is up');
  const scheduledAt = new Date(Date.now() + 6 * 60_000).toISOString();
  const res = await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers, body: JSON.stringify({ status: 'from the past, for the future', visibility: 'unlisted', scheduled_at: scheduledAt }) });
  t.equal(res.status, 200);
  const scheduled = (await res.json()) as { id: string; scheduled_at: string };
  t.equal(scheduled.scheduled_at, scheduledAt, 'a ScheduledStatus');
  t.same(await statusesOf(), [], 'nothing published yet');
  t.equal(await stopInstance(first), 0, 'SIGTERM before its time');

  // The same data, with the instance's clock seven minutes ahead: its job is due at start.
  const second = spawnInstance({ ...env, ROOKERY_TEST_CLOCK_OFFSET_MS: String(7 * 60_000) });
  t.match(await second.until('ROOKERY_TEST_CLOCK_OFFSET_MS is set'), /for tests only/, 'the shifted clock is announced');
  const published = JSON.parse(await second.until('scheduled status published')) as { scheduled: string; status: string };
  t.equal(published.scheduled, scheduled.id, 'the scheduled row was published');
  await second.until('Rookery is up');
  const after = await statusesOf();
  t.same(after.map((s) => [s.id, s.content, s.visibility]), [[published.status, '<p>from the past, for the future</p>', 'unlisted']], 'exactly one status, as scheduled');
  const left = await fetch(`${base}/api/v1/scheduled_statuses`, { headers });
  t.same(await left.json(), [], 'no scheduled status left');
  t.equal(await stopInstance(second), 0);

  // Once more, later still: nothing is published again.
  const third = spawnInstance({ ...env, ROOKERY_TEST_CLOCK_OFFSET_MS: String(60 * 60_000) });
  await third.until('Rookery is up');
  t.same((await statusesOf()).map((s) => s.id), [published.status], 'still exactly one');
  t.equal(await stopInstance(third), 0);
});

t.test('ROOKERY_TEST_CLOCK_OFFSET_MS must be a whole number of milliseconds', async (t) => {
  const result = runServer(childEnv({ DATA_DIR: dataDir, ROOKERY_TEST_CLOCK_OFFSET_MS: '7 minutes' }));
  t.not(result.status, 0);
  t.match(result.stderr, /ROOKERY_TEST_CLOCK_OFFSET_MS must be a whole number of milliseconds \(0 or more\), got "7 minutes"/);
});
