// Options are checked in one place: the core's configuration, every adapter and every plugin
// refuse an unknown key, a wrong type and a value out of range with a ConfigError that names
// the owner and the option, before anything is opened or started.

import t from 'tap';
import { checkOptions, ConfigError, option } from '../../../core/domain/options.ts';
import { openSqliteStorage } from '../../../adapters/sqlite/index.ts';
import { openMongoStorage } from '../../../adapters/mongodb/index.ts';
import { createRedisCounters, createRedisQueue, reserveIdNode } from '../../../adapters/redis/index.ts';
import { createNodeHandler, createNodeRookery } from '../../../adapters/node/index.ts';
import { createNodeSecrets } from '../../../adapters/node/secrets.ts';
import { createMemoryStorage } from '../../../adapters/memory/index.ts';
import { cardsPlugin, federationPlugin, frontPlugin, mediaPlugin, pollsPlugin, pushPlugin, scheduledPlugin } from '../../../plugins/index.ts';
import { harness } from '../../helpers/harness.ts';

async function refusal(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  return 'accepted';
}

t.test('the checker', async (t) => {
  const spec = {
    name: option.required(option.nonEmptyString()),
    size: option.integer(1, 10),
    mode: option.oneOf(['a', 'b']),
    nested: option.object('thing', { on: option.boolean() }),
    either: option.either(option.boolean(), option.function()),
  };
  const check = (input: unknown) => refusal(() => checkOptions('thing', input, spec));
  t.equal(await check({ name: 'x', size: 3, mode: 'a', nested: { on: true }, either: () => 1 }), 'accepted');
  t.equal(await check({ name: 'x', size: undefined }), 'accepted', 'undefined counts as absent');
  t.equal(await check('x'), 'Invalid config: thing: options must be an object, got "x"');
  t.equal(await check({}), 'Invalid config: thing: "name" is required');
  t.equal(await check({ name: '' }), 'Invalid config: thing: "name" must be a non-empty string, got ""');
  t.equal(await check({ name: 'x', sise: 3 }), 'Invalid config: thing: unknown option "sise"');
  t.equal(await check({ name: 'x', size: 11 }), 'Invalid config: thing: "size" must be a whole number from 1 to 10, got 11');
  t.equal(await check({ name: 'x', size: 2.5 }), 'Invalid config: thing: "size" must be a whole number from 1 to 10, got 2.5');
  t.equal(await check({ name: 'x', mode: 'c' }), 'Invalid config: thing: "mode" must be one of "a", "b", got "c"');
  t.equal(await check({ name: 'x', nested: { of: true } }), 'Invalid config: thing: unknown option "nested.of"');
  t.equal(await check({ name: 'x', nested: { on: 1 } }), 'Invalid config: thing: "nested.on" must be a boolean, got 1');
  t.equal(await check({ name: 'x', nested: [] }), 'Invalid config: thing: "nested" must be an object, got an array');
  t.equal(await check({ name: 'x', either: 'yes' }), 'Invalid config: thing: "either" must be a boolean or a function, got "yes"');
});

t.test('every plugin checks its options', async (t) => {
  const cases: [string, () => unknown, string][] = [
    ['media', () => mediaPlugin({ directroy: '/tmp' } as never), 'mediaPlugin: unknown option "directroy"'],
    ['media store', () => mediaPlugin({ store: {} } as never), 'mediaPlugin: "store" must be a MediaStore (put, get, delete), got object'],
    ['polls', () => pollsPlugin({ max: 3 } as never), 'pollsPlugin: unknown option "max"'],
    ['scheduled', () => scheduledPlugin({ every: 1 } as never), 'scheduledPlugin: unknown option "every"'],
    ['cards', () => cardsPlugin({ fetch: { timeoutMs: 0 } }), 'cardsPlugin: "fetch.timeoutMs" must be a whole number from 1 to 600000, got 0'],
    ['cards nested', () => cardsPlugin({ fetch: { allowPrivate: true } } as never), 'cardsPlugin: unknown option "fetch.allowPrivate"'],
    ['push', () => pushPlugin({ tokenKey: 'short' }), 'pushPlugin: "tokenKey" must be 32 bytes in base64url, got another string'],
    ['push subject', () => pushPlugin({ subject: 'me' }), 'pushPlugin: "subject" must be a mailto: or https: URL, got "me"'],
    ['front', () => frontPlugin({ signInUrl: '' }), 'frontPlugin: "signInUrl" must be a URL or a path, got ""'],
    ['federation', () => federationPlugin({ allowPrivateAddress: 'yes' } as never), 'federationPlugin: "allowPrivateAddress" must be a boolean or a function, got "yes"'],
  ];
  for (const [label, run, message] of cases) t.equal(await refusal(run), `Invalid config: ${message}`, label);
});

t.test('every adapter checks its options', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const cases: [string, () => unknown, string][] = [
    ['sqlite path', () => openSqliteStorage({} as never), 'openSqliteStorage: "path" is required'],
    ['sqlite synchronous', () => openSqliteStorage({ path: ':memory:', synchronous: 'off' } as never), 'openSqliteStorage: "synchronous" must be one of "full", "normal", got "off"'],
    ['mongodb url', () => openMongoStorage({ url: 'http://db' }), 'openMongoStorage: "url" must be a mongodb:// or mongodb+srv:// URL, got another string'],
    ['redis queue', () => createRedisQueue({ prefix: 3 } as never), 'createRedisQueue: "prefix" must be a string, got 3'],
    ['redis counters', () => createRedisCounters({ timeoutMs: 0 }), 'createRedisCounters: "timeoutMs" must be a whole number from 1 to 60000, got 0'],
    ['id nodes', () => reserveIdNode({ ttlSeconds: 1 }), 'reserveIdNode: "ttlSeconds" must be a whole number from 10 to 86400, got 1'],
    ['secrets', () => createNodeSecrets({ scryptN: 1000 }), 'createNodeSecrets: "scryptN" must be a power of two from 1024 to 1048576, got 1000'],
    ['node handler', () => createNodeHandler(h.rookery, { streaming: { heartbeat: 5 } } as never), 'createNodeHandler: unknown option "streaming.heartbeat"'],
    ['node rookery', () => createNodeRookery({ config: { domain: 'a.example' }, storage: createMemoryStorage(), plugin: [] } as never), 'createNodeRookery: unknown option "plugin"'],
    ['node rookery storage', () => createNodeRookery({ config: { domain: 'a.example' }, storage: {} as never }), 'createNodeRookery: "storage" must be a Storage (rookery/sqlite, rookery/postgres, rookery/mongodb …), got object'],
    ['node rookery worker', () => createNodeRookery({ config: { domain: 'a.example' }, storage: createMemoryStorage(), worker: { batch: 0 } }), 'createNodeRookery: "worker.batch" must be a whole number from 1 to 10000, got 0'],
    ['node rookery id node', () => createNodeRookery({ config: { domain: 'a.example' }, storage: createMemoryStorage(), idNode: 64 }), 'createNodeRookery: "idNode" must be a whole number from 0 to 63, got 64'],
  ];
  for (const [label, run, message] of cases) t.equal(await refusal(run), `Invalid config: ${message}`, label);
});
