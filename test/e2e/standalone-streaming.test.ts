// The standalone instance's streaming, as operators run it: `npm start`'s server listens for
// streams on STREAMING_PORT beside the HTTP port, advertises where (or STREAMING_API_BASE_URL,
// for a reverse proxy), ends its streams on SIGTERM, and refuses to start without streaming.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readSettings } from '../../examples/standalone/env.ts';
import { childEnv, freePort } from '../helpers/processes.ts';
import { runCli, runServer, startInstance, stopInstance } from '../helpers/standalone.ts';
import { SseReader, WsReader } from '../helpers/uws.ts';


function tempDir(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'rookery-streaming-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function instanceUrls(base: string): Promise<{ v2: unknown; v1: unknown }> {
  const v2 = (await (await fetch(`${base}/api/v2/instance`)).json()) as { configuration: { urls: { streaming: unknown } } };
  const v1 = (await (await fetch(`${base}/api/v1/instance`)).json()) as { urls: { streaming_api: unknown } };
  return { v2: v2.configuration.urls.streaming, v1: v1.urls.streaming_api };
}

t.test('settings: STREAMING_PORT (default 4000) and STREAMING_API_BASE_URL', async (t) => {
  const defaults = readSettings({});
  t.equal(defaults.streamingPort, 4000);
  t.equal(defaults.config.streamingUrl, 'ws://localhost:4000');
  t.equal(readSettings({ STREAMING_PORT: '4100' }).config.streamingUrl, 'ws://localhost:4100');
  t.equal(readSettings({ LOCAL_DOMAIN: 'social.example' }).config.streamingUrl, 'wss://social.example:4000', 'https instance: wss on the streaming port');
  const proxied = readSettings({ LOCAL_DOMAIN: 'social.example', STREAMING_API_BASE_URL: 'wss://social.example', STREAMING_PORT: '4100' });
  t.equal(proxied.config.streamingUrl, 'wss://social.example', 'behind a reverse proxy: the public URL as given');
  t.equal(proxied.streamingPort, 4100, 'while it still listens on STREAMING_PORT');
  t.throws(() => readSettings({ STREAMING_PORT: 'four' }), { message: 'STREAMING_PORT must be a port number, got "four"' });
});

t.test('npm start streams on STREAMING_PORT, advertises it, and ends the streams on SIGTERM', async (t) => {
  const port = await freePort();
  const streamingPort = await freePort();
  const env = childEnv({ DATA_DIR: tempDir(t), PORT: String(port), STREAMING_PORT: String(streamingPort), BIND: '127.0.0.1' });
  t.equal(runCli(env, 'accounts', 'create', 'opal', '--email', 'opal@example.com', '--password', 'a long password').status, 0);
  const token = runCli(env, 'tokens', 'issue', 'opal', '--scopes', 'read write').stdout.trim();
  const child = await startInstance(env);
  const base = `http://127.0.0.1:${port}`;
  const streaming = `http://127.0.0.1:${streamingPort}`;

  const health = await fetch(`${streaming}/api/v1/streaming/health`);
  t.equal(health.status, 200);
  t.equal(await health.text(), 'OK');
  const advertised = `ws://localhost:${streamingPort}`;
  t.strictSame(await instanceUrls(base), { v2: advertised, v1: advertised }, 'v2 configuration.urls.streaming and v1 urls.streaming_api');

  const ws = await WsReader.open(`${advertised}/api/v1/streaming?stream=public`, token);
  const sse = await SseReader.open(`${streaming}/api/v1/streaming/public?access_token=${token}`);
  await Promise.all([ws.sync(), sse.opened()]);
  const posted = await fetch(`${base}/api/v1/statuses`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'live from the standalone' }) });
  const status = (await posted.json()) as { id: string };
  await Promise.all([ws.messageCount(1), sse.eventCount(1)]);
  t.strictSame(ws.names(), [`update ${status.id}`], 'over WebSocket');
  t.strictSame(sse.names(), [`update ${status.id}`], 'over SSE');

  t.equal(await stopInstance(child), 0, 'SIGTERM: a clean exit');
  t.equal((await ws.whenClosed()).code, 1001, 'the WebSocket was told the server is going away');
  await sse.end();
  t.pass('the SSE response ended');
});

t.test('STREAMING_API_BASE_URL: the instance advertises the public URL of a reverse proxy', async (t) => {
  const port = await freePort();
  const streamingPort = await freePort();
  const env = childEnv({ DATA_DIR: tempDir(t), PORT: String(port), STREAMING_PORT: String(streamingPort), STREAMING_API_BASE_URL: 'wss://streaming.social.example' });
  const child = await startInstance(env);
  t.strictSame(await instanceUrls(`http://127.0.0.1:${port}`), { v2: 'wss://streaming.social.example', v1: 'wss://streaming.social.example' });
  t.equal((await fetch(`http://127.0.0.1:${streamingPort}/api/v1/streaming/health`)).status, 200, 'and streams on STREAMING_PORT behind it');
  t.equal(await stopInstance(child), 0);
});

t.test('a streaming port already taken: the instance does not start, and says why', async (t) => {
  const holder = createServer();
  await new Promise<void>((resolveListen) => holder.listen(0, '127.0.0.1', resolveListen));
  t.teardown(() => new Promise<void>((resolveClose) => holder.close(() => resolveClose())));
  const address = holder.address();
  const taken = typeof address === 'object' && address !== null ? address.port : 0;
  const port = await freePort();
  const result = runServer(childEnv({ DATA_DIR: tempDir(t), PORT: String(port), STREAMING_PORT: String(taken), BIND: '127.0.0.1' }));
  t.equal(result.status, 1);
  t.match(result.stderr, `Rookery cannot start: The streaming server could not listen on 127.0.0.1:${taken} (is the port in use?)`);
  t.notMatch(result.stdout, /Rookery is up/, 'the HTTP side never came up');
});
