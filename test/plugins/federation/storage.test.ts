// The federation plugin's storage contract on memory and SQLite (file and :memory:).

import t from 'tap';
import { federationStorageContract } from '../../../plugins/federation/storage/contract.ts';
import { openSqliteMemory, sqliteFiles } from '../../helpers/stores.ts';

const file = sqliteFiles((fn) => t.teardown(fn));
for (const [name, open] of [['sqlite file', file], ['sqlite :memory:', openSqliteMemory]] as const) {
  federationStorageContract(t, name, open);
}
