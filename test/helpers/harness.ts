// A Rookery mounted on a hapi server for tests: memory storage (or any given store), a clock
// the test can move, fast password hashing, and helpers to create signed-in users.

import { createServer, type Server as NodeServer } from 'node:http';
import Hapi from '@hapi/hapi';
import { rookeryHapi, type RookeryHapiOptions } from '../../adapters/hapi/index.ts';
import { createInProcessBus } from '../../core/domain/bus.ts';
import { createMemoryStorage } from '../../adapters/memory/index.ts';
import { createNodeHandler } from '../../adapters/node/handler.ts';
import { createNodeSecrets } from '../../adapters/node/secrets.ts';
import { createLocalAccount, type NewLocalAccount } from '../../core/domain/accounts/create.ts';
import { resolveConfig, type ConfigInput } from '../../core/domain/config.ts';
import type { AppCore } from '../../core/mastodon/context.ts';
import type { Account, Application } from '../../core/domain/model.ts';
import { registerApplication } from '../../core/mastodon/oauth/apps.ts';
import { issueToken } from '../../core/mastodon/oauth/tokens.ts';
import type { SignInPort } from '../../core/mastodon/oauth/sign-in-port.ts';
import type { RookeryPlugin } from '../../core/mastodon/host/types.ts';
import type { EventBus, StreamMessage } from '../../core/domain/ports/bus.ts';
import type { CounterStore } from '../../core/domain/ports/counters.ts';
import type { Mailer } from '../../core/domain/ports/mailer.ts';
import type { Clock } from '../../core/domain/ports/clock.ts';
import type { Logger } from '../../core/domain/ports/logger.ts';
import type { JobQueue } from '../../core/domain/ports/queue.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import { createRookery, type Rookery, type RookeryOptions } from '../../core/mastodon/rookery.ts';
import { freePort } from './processes.ts';

/** Real time plus an offset the test can move forward. */
export class TestClock implements Clock {
  offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

export interface HarnessOptions {
  config?: Partial<ConfigInput>;
  plugins?: RookeryPlugin[];
  storage?: Storage;
  bus?: EventBus;
  /** Where jobs wait (default: the store's own queue). */
  queue?: JobQueue;
  logger?: Logger;
  signIn?: SignInPort;
  /** Really listen (127.0.0.1, a free port picked first) with config.baseUrl set to that
   * address, for tests that drive a real browser or HTTP client. */
  listen?: boolean;
  /** false: no worker in this Rookery (queued jobs wait); requests then need drain: false.
   * Worker options (batch …) tune it. */
  worker?: RookeryOptions['worker'];
  /** Options of the transport's own streaming (SSE on the same port). */
  streaming?: RookeryHapiOptions['streaming'];
  /** What listens when `listen` is set: the hapi plugin (default), or the node:http handler
   * (rookery/node). Injected requests go through hapi either way. */
  transport?: 'hapi' | 'node';
  /** Where rate-limit counters live (default: in this process). */
  counters?: CounterStore;
  /** Sends the instance's mail (default: logged). */
  mailer?: Mailer;
  /** Where the transports keep the files of multipart bodies while their request lasts
   * (default: the system's temporary directory). */
  uploadDirectory?: string;
}

export interface TestUser {
  account: Account;
  token: string;
  application: Application;
}

export interface InjectOptions {
  token?: string | null;
  payload?: unknown;
  headers?: Record<string, string>;
  /** Wait for the jobs the request queued (notifications, streams …) before answering; default true. */
  drain?: boolean;
}

export interface Harness {
  server: Hapi.Server;
  rookery: Rookery;
  core: AppCore;
  clock: TestClock;
  bus: EventBus;
  /** A local user with a token for `scopes` (default: read write follow). */
  user(username: string, options?: Partial<NewLocalAccount> & { scopes?: string[] }): Promise<TestUser>;
  /** An application with a client_credentials token. */
  app(scopes?: string[]): Promise<{ application: Application; clientSecret: string; token: string }>;
  request(method: string, url: string, options?: InjectOptions): Promise<{ statusCode: number; json: any; body: string; raw: Buffer; headers: Record<string, unknown> }>;
  close(): Promise<void>;
}

export const TEST_DOMAIN = 'rookery.test';

export async function harness(options: HarnessOptions = {}): Promise<Harness> {
  const clock = new TestClock();
  const bus = options.bus ?? createInProcessBus();
  // The configuration is frozen once resolved: a listening harness picks its port first, so
  // that redirects and the cookie's Secure flag follow the real address.
  const port = options.listen ? await freePort() : 0;
  const listening = options.listen ? { baseUrl: `http://127.0.0.1:${port}` } : {};
  const deps: Parameters<typeof createRookery>[0] = {
    config: resolveConfig({ domain: TEST_DOMAIN, ...listening, ...options.config }),
    storage: options.storage ?? createMemoryStorage(),
    bus,
    clock,
    secrets: createNodeSecrets({ scryptN: 1024 }),
  };
  if (options.plugins) deps.plugins = options.plugins;
  if (options.queue) deps.queue = options.queue;
  if (options.logger) deps.logger = options.logger;
  if (options.worker !== undefined) deps.worker = options.worker;
  if (options.signIn) deps.signIn = options.signIn;
  if (options.counters) deps.counters = options.counters;
  if (options.mailer) deps.mailer = options.mailer;
  const rookery = await createRookery(deps);
  const server = Hapi.server({ port, host: '127.0.0.1' });
  const hapiOptions: RookeryHapiOptions = { rookery };
  if (options.streaming !== undefined) hapiOptions.streaming = options.streaming;
  if (options.uploadDirectory !== undefined) hapiOptions.uploadDirectory = options.uploadDirectory;
  await server.register({ plugin: rookeryHapi, options: hapiOptions });
  const core = rookery.core;
  let nodeServer: NodeServer | null = null;
  if (options.listen && options.transport === 'node') {
    await server.initialize();
    const handle = createNodeHandler(rookery, {
      ...(options.streaming === undefined ? {} : { streaming: options.streaming }),
      ...(options.uploadDirectory === undefined ? {} : { uploadDirectory: options.uploadDirectory }),
    });
    const listening = createServer((req, res) => handle(req, res));
    nodeServer = listening;
    await new Promise<void>((ready) => listening.listen(port, '127.0.0.1', () => ready()));
  } else if (options.listen) await server.start();
  else await server.initialize();

  const h: Harness = {
    server,
    rookery,
    core,
    clock,
    bus,
    async user(username, userOptions = {}) {
      const { scopes = ['read', 'write', 'follow'], ...input } = userOptions;
      const { account } = await createLocalAccount(core, { email: `${username}@example.com`, password: 'correct horse battery', ...input, username });
      const { application } = await registerApplication(core, { name: `${username}'s app`, redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write follow push' });
      const issued = await issueToken(core, application.id, account.id, scopes);
      return { account, token: issued.accessToken, application };
    },
    async app(scopes = ['read', 'write']) {
      const registered = await registerApplication(core, { name: 'An app', redirectUris: 'urn:ietf:wg:oauth:2.0:oob', scopes: scopes.join(' ') });
      const issued = await issueToken(core, registered.application.id, null, scopes);
      return { application: registered.application, clientSecret: registered.clientSecret, token: issued.accessToken };
    },
    async request(method, url, requestOptions = {}) {
      const headers: Record<string, string> = { ...requestOptions.headers };
      if (requestOptions.token) headers['authorization'] = `Bearer ${requestOptions.token}`;
      const injected: Hapi.ServerInjectOptions = { method, url, headers };
      if (requestOptions.payload !== undefined) injected.payload = requestOptions.payload as object;
      const res = await server.inject(injected);
      if (requestOptions.drain !== false) await rookery.drain();
      let parsed: unknown;
      try {
        parsed = JSON.parse(res.payload);
      } catch {
        parsed = undefined;
      }
      return { statusCode: res.statusCode, json: parsed, body: res.payload, raw: res.rawPayload, headers: res.headers as Record<string, unknown> };
    },
    async close() {
      await server.stop();
      // Streams end with the Rookery; then nothing keeps the node server open.
      const stopped = nodeServer === null ? null : new Promise((done) => nodeServer?.close(done));
      await rookery.close();
      nodeServer?.closeAllConnections();
      await stopped;
    },
  };
  return h;
}

/** Collects what the bus carries on some channels, for event routing tests. */
export async function record(bus: EventBus, channels: readonly string[]): Promise<{ messages: { channel: string; message: StreamMessage }[]; stop(): Promise<void> }> {
  const messages: { channel: string; message: StreamMessage }[] = [];
  const stops = await Promise.all(channels.map((channel) => bus.subscribe(channel, (message) => void messages.push({ channel, message }))));
  return {
    messages,
    async stop() {
      for (const stop of stops) await stop();
    },
  };
}

const DAY = 24 * 60 * 60_000;

/** A harness whose clock starts just after midnight (UTC), a start of every fixed window the
 * rate limits use, so that no window ends while a test counts toward a limit: on the real clock,
 * a test that ran across a window's end saw its count start again. */
export async function windowedHarness(options?: HarnessOptions): Promise<Harness> {
  const h = await harness(options);
  h.clock.advance(DAY - (h.clock.now() % DAY) + 1);
  return h;
}
