// The federation plugin's storage contract on a real MongoDB server (a replica set) at
// MONGODB_URI, as test/contract/mongodb.test.ts runs the others: a fresh database per test,
// dropped afterwards. Without MONGODB_URI this file says so on one line and every contract
// test is reported as skipped.

import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import t from 'tap';
import { openMongoStorage } from '../../../adapters/mongodb/index.ts';
import type { ContractTest, OpenStore } from '../../../adapters/testing/index.ts';
import type { Storage } from '../../../core/ports/storage.ts';
import { federationStorageContract } from '../../../plugins/federation/storage/contract.ts';

export const SKIP_LINE = 'mongodb federation contract: skipped (MONGODB_URI not set)';

const uri = process.env['MONGODB_URI'];

if (uri === undefined || uri === '') {
  console.error(SKIP_LINE);
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
  federationStorageContract(skipping, 'mongodb', never);
} else {
  const admin = new MongoClient(uri);
  t.teardown(() => admin.close());
  let databases = 0;
  const freshDatabase = () => `rookery_federation_${process.pid}_${(databases += 1)}_${randomBytes(3).toString('hex')}`;
  const openStore: OpenStore = async () => {
    const database = freshDatabase();
    const open: Storage[] = [];
    const openOne = async (): Promise<Storage> => {
      const s = await openMongoStorage({ url: uri, database });
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
        await admin.connect();
        await admin.db(database).dropDatabase();
      },
    };
    return handle;
  };
  federationStorageContract(t, 'mongodb', openStore);
}
