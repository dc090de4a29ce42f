// The federation plugin's storage contract on the MongoDB adapter over the stand-in database
// (test/helpers/fake-mongo.ts), as test/contract/mongodb-fake.test.ts runs the other plugins'.

import t from 'tap';
import type { Db, MongoClient } from 'mongodb';
import { openMongoStorageOn } from '../../../adapters/mongodb/storage.ts';
import type { OpenStore } from '../../../adapters/testing/index.ts';
import type { Storage } from '../../../core/ports/storage.ts';
import { federationStorageContract } from '../../../plugins/federation/storage/contract.ts';
import { federationStorage } from '../../../plugins/federation/storage/index.ts';
import { FakeMongo } from '../../helpers/fake-mongo.ts';

const mongo = new FakeMongo();
let databases = 0;

const openOn = (database: string): Promise<Storage> => openMongoStorageOn(mongo.client() as unknown as MongoClient, mongo.db(database) as unknown as Db);

const openStore: OpenStore = async () => {
  const database = `federation_${(databases += 1)}`;
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
      mongo.databases.delete(database);
    },
  };
  return handle;
};

federationStorageContract(t, 'mongodb (stand-in)', openStore);

t.test('its collections and index exist before the first write', async (t) => {
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
