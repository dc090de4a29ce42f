// The storage contract, the job queue contract and the plugins' storage contracts on
// MongoDB: the same suites memory and SQLite pass, from the same definitions. Each test gets a
// fresh database on MONGODB_URI (a replica set: the adapter refuses a standalone server), which
// it drops afterwards. `connect` is a second client (a second process), `reopen` closes the
// client and opens the database again.
//
// No MongoDB server can run on the development machines or in this CI. Without MONGODB_URI the
// suites are not run: this file says so on one line, and every contract test is reported as
// skipped, so the closing summary ("N passed, M failed, K skipped") counts them.

import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import t from 'tap';
import { openMongoStorage } from '../../adapters/mongodb/index.ts';
import { queueContract, storageContract, type ContractTest, type OpenStore, type OpenQueue } from '../../adapters/testing/index.ts';
import type { Storage } from '../../core/domain/ports/storage.ts';
import { cardStorageContract } from '../../plugins/cards/storage/contract.ts';
import { emojiStorageContract } from '../../plugins/emoji/storage/contract.ts';
import { federationStorageContract } from '../../plugins/federation/storage/contract.ts';
import { mediaStorageContract } from '../../plugins/media/storage/contract.ts';
import { pollStorageContract } from '../../plugins/polls/storage/contract.ts';
import { scheduledStorageContract } from '../../plugins/scheduled/storage/contract.ts';

export const SKIP_LINE = 'mongodb contract: skipped (MONGODB_URI not set)';

function everySuite(root: ContractTest, openStore: OpenStore, openQueue: OpenQueue): void {
  storageContract(root, 'mongodb', openStore);
  queueContract(root, 'mongodb', openQueue);
  mediaStorageContract(root, 'mongodb', openStore);
  pollStorageContract(root, 'mongodb', openStore);
  scheduledStorageContract(root, 'mongodb', openStore);
  cardStorageContract(root, 'mongodb', openStore);
  emojiStorageContract(root, 'mongodb', openStore);
  federationStorageContract(root, 'mongodb', openStore);
}

const uri = process.env['MONGODB_URI'];

if (uri === undefined || uri === '') {
  console.error(SKIP_LINE);
  // The suites declare their tests through this root: each becomes a skipped tap test.
  const skipping: ContractTest = {
    test: (name) => t.test(name, { skip: 'MONGODB_URI not set' }, async () => {}),
    equal: (found, wanted, ...message) => t.equal(found, wanted, ...message),
    strictSame: (found, wanted, ...message) => t.strictSame(found, wanted, ...message),
    pass: (message) => t.pass(message),
    fail: (message) => t.fail(message),
  };
  const never = async (): Promise<never> => {
    throw new Error('a skipped contract test opened a store');
  };
  everySuite(skipping, never, never);
} else {
  const admin = new MongoClient(uri);
  t.teardown(() => admin.close());
  let databases = 0;
  const freshDatabase = () => `rookery_contract_${process.pid}_${(databases += 1)}_${randomBytes(3).toString('hex')}`;

  const openOn = (database: string) => openMongoStorage({ url: uri, database });
  const drop = async (database: string) => {
    await admin.connect();
    await admin.db(database).dropDatabase();
  };

  const openStore: OpenStore = async () => {
    const database = freshDatabase();
    const open: Storage[] = [];
    const openOne = async (): Promise<Storage> => {
      const s = await openOn(database);
      open.push(s);
      return s;
    };
    const handle = {
      storage: await openOne(),
      async reopen() {
        await handle.storage.close();
        handle.storage = await openOne();
        return handle.storage;
      },
      connect: openOne,
      async cleanup() {
        for (const s of open) await s.close();
        await drop(database);
      },
    };
    return handle;
  };

  const openQueue: OpenQueue = async () => {
    const database = freshDatabase();
    const open: Storage[] = [];
    const openOne = async (): Promise<Storage> => {
      const s = await openOn(database);
      open.push(s);
      return s;
    };
    const first = await openOne();
    return {
      queue: first.jobs,
      connect: async () => (await openOne()).jobs,
      async reopen() {
        await first.close();
        return (await openOne()).jobs;
      },
      async cleanup() {
        for (const s of open) await s.close();
        await drop(database);
      },
    };
  };

  everySuite(t, openStore, openQueue);
}
