// The storage, queue and plugin contracts on the MongoDB adapter over a stand-in database
// (test/helpers/fake-mongo.ts): NOT a MongoDB server, but every repository's code runs, and the
// documents it sends are interpreted by mingo, an independent implementation of MongoDB's query
// language, with unique and partial indexes and transactions added. This is what runs here and in
// CI, where no server can; test/contract/mongodb.test.ts runs the same suites on a real server
// when MONGODB_URI is set. The stand-in cannot show concurrency (its transactions run one at a
// time), TTL deletion, or where the server differs from mingo.

import t from 'tap';
import type { Db, MongoClient } from 'mongodb';
import { jobDoc } from '../../adapters/mongodb/jobs.ts';
import { pendingJobs } from '../../adapters/mongodb/outbox.ts';
import { openMongoStorageOn } from '../../adapters/mongodb/storage.ts';
import { STANDALONE_REFUSED } from '../../adapters/mongodb/storage.ts';
import { queueContract, storageContract, type OpenQueue, type OpenStore } from '../../adapters/testing/index.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import { cardStorageContract } from '../../plugins/cards/storage/contract.ts';
import { emojiStorageContract } from '../../plugins/emoji/storage/contract.ts';
import { federationStorageContract } from '../../plugins/federation/storage/contract.ts';
import { federationStorage } from '../../plugins/federation/storage/index.ts';
import { mediaStorageContract } from '../../plugins/media/storage/contract.ts';
import { pollStorageContract } from '../../plugins/polls/storage/contract.ts';
import { pollStorage } from '../../plugins/polls/storage/index.ts';
import { scheduledStorageContract } from '../../plugins/scheduled/storage/contract.ts';
import { FakeMongo } from '../helpers/fake-mongo.ts';

const mongo = new FakeMongo();
let databases = 0;

const openOn = (database: string): Promise<Storage> => openMongoStorageOn(mongo.client() as unknown as MongoClient, mongo.db(database) as unknown as Db);

function opener(database: string) {
  const open: Storage[] = [];
  const openOne = async (): Promise<Storage> => {
    const s = await openOn(database);
    open.push(s);
    return s;
  };
  const cleanup = async () => {
    for (const s of open) await s.close();
    mongo.databases.delete(database);
  };
  return { openOne, cleanup };
}

const openStore: OpenStore = async () => {
  const { openOne, cleanup } = opener(`contract_${(databases += 1)}`);
  const handle = {
    storage: await openOne(),
    async reopen() {
      await handle.storage.close();
      handle.storage = await openOne();
      return handle.storage;
    },
    connect: openOne,
    cleanup,
  };
  return handle;
};

const openQueue: OpenQueue = async () => {
  const { openOne, cleanup } = opener(`queue_${(databases += 1)}`);
  const first = await openOne();
  return { queue: first.jobs, connect: async () => (await openOne()).jobs, reopen: async () => (await openOne()).jobs, cleanup };
};

storageContract(t, 'mongodb (stand-in)', openStore);
queueContract(t, 'mongodb (stand-in)', openQueue);
mediaStorageContract(t, 'mongodb (stand-in)', openStore);
pollStorageContract(t, 'mongodb (stand-in)', openStore);
scheduledStorageContract(t, 'mongodb (stand-in)', openStore);
cardStorageContract(t, 'mongodb (stand-in)', openStore);
emojiStorageContract(t, 'mongodb (stand-in)', openStore);
federationStorageContract(t, 'mongodb (stand-in)', openStore);

t.test('a standalone server (no replica set) is refused when the store opens', async (t) => {
  const standalone = new FakeMongo();
  standalone.replicaSet = null;
  await t.rejects(openMongoStorageOn(standalone.client() as unknown as MongoClient, standalone.db('x') as unknown as Db), { message: STANDALONE_REFUSED });
});

t.test('opening twice migrates once and creates every index once', async (t) => {
  const database = `reopen_${(databases += 1)}`;
  const a = await openOn(database);
  const b = await openOn(database);
  const db = mongo.db(database);
  t.strictSame(await db.collection('rookery_meta').findOne({ _id: 'schema' }, { projection: { _id: 0, version: 1 } }), { version: 10 });
  t.equal(((await db.collection('rookery_meta').findOne({ _id: 'schema' }))?.['applied'] as unknown[]).length, 10, 'each version recorded once');
  t.strictSame(db.collection('accounts').indexes.map((i) => i.name), ['accounts_acct', 'accounts_email', 'accounts_uri', 'accounts_pins', 'accounts_domain', 'accounts_pending_jobs']);
  t.strictSame(await db.collection('counters').findOne({ _id: 'jobs' }), { _id: 'jobs', seq: 0 }, 'the job sequence, made by migration 1');
  await a.close();
  await b.close();
  mongo.databases.delete(database);
});

t.test("a plugin's collections exist before a transaction writes to them", async (t) => {
  const database = `plugin_${(databases += 1)}`;
  const s = await openOn(database);
  const made = (c: string) => mongo.db(database).collections.get(c)?.created ?? false;
  t.strictSame([made('polls'), made('poll_votes')], [false, false], 'not before the plugin is used');
  t.equal(await s.extend(pollStorage).get('1'), null);
  t.strictSame([made('polls'), made('poll_votes')], [true, true], 'made by its setup, not by its first write');
  await s.close();
  mongo.databases.delete(database);
});

t.test("the federation plugin's collections and expiry index exist before its first write", async (t) => {
  const database = `federation_setup_${(databases += 1)}`;
  const s = await openOn(database);
  t.teardown(async () => {
    await s.close();
    mongo.databases.delete(database);
  });
  t.equal(await s.extend(federationStorage).isBlocked('example.com'), false);
  const db = mongo.db(database);
  t.strictSame([db.collections.get('federation_kv')?.created, db.collections.get('federation_domain_blocks')?.created], [true, true]);
  t.strictSame(db.collection('federation_kv').indexes.map((i) => i.name), ['federation_kv_expiry']);
});

t.test('a move a crash interrupted: the sweep finishes it, once', async (t) => {
  const database = `sweep_${(databases += 1)}`;
  const s = await openOn(database);
  const db = mongo.db(database);
  // What a crash leaves: an account document still carrying the jobs its last write recorded,
  // and a batch of jobs that came with no write; both recorded long ago (wall clock).
  const long = new Date(Date.now() - 3_600_000);
  const recent = new Date();
  await db.collection('accounts').insertOne({ _id: '900', _jobs: [...pendingJobs(50, [{ name: 'left-behind', payload: { n: 1 }, orderingKey: 'account:900' }], long), ...pendingJobs(52, [{ name: 'being-moved', payload: null }], recent)] });
  await db.collection('outbox').insertOne({ _id: 60, _jobs: pendingJobs(60, [{ name: 'batch-1', payload: 1 }, { name: 'batch-2', payload: 2 }], long) });
  await db.collection('jobs').insertOne({ ...jobDoc(61, { name: 'batch-2', payload: 2 }, 0) }); // that batch's move had begun
  const claimed = await s.jobs.claim(Number.MAX_SAFE_INTEGER / 2, 10, 1000);
  t.strictSame(claimed.map((j) => [j.id, j.name, j.payload]), [['50', 'left-behind', { n: 1 }], ['60', 'batch-1', 1], ['61', 'batch-2', 2]], 'moved, in their order, each once; the recent one is left to its writer');
  const left = (await db.collection('accounts').findOne({ _id: '900' }))?.['_jobs'] as { _id: number }[];
  t.strictSame(left.map((e) => e._id), [52], 'only the moved jobs left the document');
  t.equal(await db.collection('outbox').findOne({ _id: 60 }), null, 'the batch document is gone');
  await s.close();
  mongo.databases.delete(database);
});
