// openMongoStorage's decisions that need no server (which database, which deployment), what it
// does when no server answers (with the real driver, on a loopback port nobody listens on), and
// the contract file's behaviour without MONGODB_URI: one visible line, every contract test
// reported as skipped, none passed.

import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { STANDALONE_REFUSED, databaseFromUrl, databaseName, openMongoStorage, supportsTransactions } from '../../../adapters/mongodb/storage.ts';
import { queueContract, storageContract, type ContractTest } from '../../../adapters/testing/index.ts';
import { cardStorageContract } from '../../../plugins/cards/storage/contract.ts';
import { emojiStorageContract } from '../../../plugins/emoji/storage/contract.ts';
import { federationStorageContract } from '../../../plugins/federation/storage/contract.ts';
import { mediaStorageContract } from '../../../plugins/media/storage/contract.ts';
import { pollStorageContract } from '../../../plugins/polls/storage/contract.ts';
import { scheduledStorageContract } from '../../../plugins/scheduled/storage/contract.ts';
import { childEnv, cleanCommand, freePort } from '../../helpers/processes.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

t.test('the database: named by the connection string, else "rookery"; an explicit one wins', async (t) => {
  t.equal(databaseFromUrl('mongodb://db1:27017,db2:27017/social?replicaSet=rs0'), 'social');
  t.equal(databaseFromUrl('mongodb+srv://user:p%40ss@cluster.example.net/rookery_prod?retryWrites=true'), 'rookery_prod');
  t.equal(databaseFromUrl('mongodb://localhost/my%20db'), 'my db', 'decoded');
  t.equal(databaseFromUrl('mongodb://localhost:27017/'), null, 'an empty path names none');
  t.equal(databaseFromUrl('mongodb://localhost:27017'), null);
  t.equal(databaseFromUrl('mongodb://localhost:27017/?replicaSet=rs0'), null);
  t.equal(databaseName('mongodb://localhost:27017/?replicaSet=rs0'), 'rookery');
  t.equal(databaseName('mongodb://localhost/social'), 'social');
  t.equal(databaseName('mongodb://localhost/social', 'other'), 'other');
});

t.test('the deployment: transactions need a replica set member or a mongos', async (t) => {
  t.equal(supportsTransactions({ isWritablePrimary: true, setName: 'rs0', hosts: ['a:27017'] }), true, 'a replica set (one node is enough)');
  t.equal(supportsTransactions({ isWritablePrimary: true, msg: 'isdbgrid' }), true, 'a sharded cluster');
  t.equal(supportsTransactions({ isWritablePrimary: true, maxWireVersion: 21 }), false, 'a standalone server');
  t.match(STANDALONE_REFUSED, /needs a replica set or a sharded cluster/);
  t.match(STANDALONE_REFUSED, /--replSet rs0 .* rs\.initiate\(\)/, 'and says how to get one');
});

t.test('no server answering: openMongoStorage rejects with the driver\'s error and leaves nothing open', async (t) => {
  const port = await freePort();
  const started = performance.now();
  await t.rejects(openMongoStorage({ url: `mongodb://127.0.0.1:${port}/rookery`, clientOptions: { serverSelectionTimeoutMS: 300 } }), { name: 'MongoServerSelectionError' });
  t.ok(performance.now() - started < 10_000, 'within the selection timeout, not hanging');
  // If the client were left open, its monitor would keep this process alive past the test.
});

/** Counts the tests a suite declares, without running them. */
function declared(suite: (root: ContractTest) => void): string[] {
  const names: string[] = [];
  const counting: ContractTest = {
    test: (name) => void names.push(name),
    equal: () => undefined,
    strictSame: () => undefined,
    pass: () => undefined,
    fail: () => undefined,
  };
  suite(counting);
  return names;
}

t.test('without MONGODB_URI: the line, and every contract test skipped (never a silent pass)', async (t) => {
  const never = async (): Promise<never> => {
    throw new Error('not opened');
  };
  const expected = [
    ...declared((r) => storageContract(r, 'mongodb', never)),
    ...declared((r) => queueContract(r, 'mongodb', never)),
    ...declared((r) => mediaStorageContract(r, 'mongodb', never)),
    ...declared((r) => pollStorageContract(r, 'mongodb', never)),
    ...declared((r) => scheduledStorageContract(r, 'mongodb', never)),
    ...declared((r) => cardStorageContract(r, 'mongodb', never)),
    ...declared((r) => emojiStorageContract(r, 'mongodb', never)),
    ...declared((r) => federationStorageContract(r, 'mongodb', never)),
  ];
  const env = childEnv();
  delete env['MONGODB_URI'];
  const run = spawnSync(...cleanCommand(process.execPath, [join(root, 'test/contract/mongodb.test.ts')]), { cwd: root, env, encoding: 'utf8' });
  t.equal(run.status, 0, `exit 0 ${run.stderr}`);
  t.equal(run.stderr, 'mongodb contract: skipped (MONGODB_URI not set)\n', 'exactly one line, on stderr');
  const skipped = run.stdout.split('\n').filter((l) => /^\s*ok \d+ - .* # SKIP MONGODB_URI not set$/.test(l)).map((l) => l.replace(/^\s*ok \d+ - /, '').replace(/ # SKIP MONGODB_URI not set$/, ''));
  t.strictSame(skipped, expected, `every declared contract test, skipped (${expected.length})`);
  t.equal(run.stdout.split('\n').filter((l) => /^\s*(not )?ok \d+/.test(l) && !l.includes('# SKIP')).length, 0, 'and nothing else: no test passed or failed');
});
