// The push plugin's storage extension: one repository per engine.

import type { StorageExtension } from '../../../core/ports/storage.ts';
import { memoryPushRepository } from './memory.ts';
import type { PushRepository } from './port.ts';
import { sqlitePushRepository } from './sqlite.ts';
import { postgresPushRepository } from './postgres.ts';

export type { PushPolicy, PushRepository, PushSubscription, VapidKeys } from './port.ts';

export const pushStorage: StorageExtension<PushRepository> = {
  name: 'push',
  engines: { memory: memoryPushRepository, sqlite: sqlitePushRepository, postgres: postgresPushRepository },
};
