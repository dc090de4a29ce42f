// Each feature plugin's storage contract, on every engine it brings an implementation for.

import t from 'tap';
import { cardStorageContract } from '../../plugins/cards/storage/contract.ts';
import { emojiStorageContract } from '../../plugins/emoji/storage/contract.ts';
import { mediaStorageContract } from '../../plugins/media/storage/contract.ts';
import { pollStorageContract } from '../../plugins/polls/storage/contract.ts';
import { pushStorageContract } from '../../plugins/push/storage/contract.ts';
import { scheduledStorageContract } from '../../plugins/scheduled/storage/contract.ts';
import { openSqliteMemory, sqliteFiles } from '../helpers/stores.ts';

const file = sqliteFiles((fn) => t.teardown(fn));
for (const [name, open] of [['sqlite file', file], ['sqlite :memory:', openSqliteMemory]] as const) {
  mediaStorageContract(t, name, open);
  pollStorageContract(t, name, open);
  scheduledStorageContract(t, name, open);
  cardStorageContract(t, name, open);
  emojiStorageContract(t, name, open);
  pushStorageContract(t, name, open);
}
