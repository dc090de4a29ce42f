// The push plugin's storage extension: one repository per engine.

import type { StorageExtension } from 'rookery/plugin-kit';
import type { PushRepository } from './port.ts';
import { postgresPushRepository } from './postgres.ts';
import { sqlitePushRepository } from './sqlite.ts';

export type { PushPolicy, PushRepository, PushSubscription, VapidKeys } from './port.ts';

export const pushStorage: StorageExtension<PushRepository> = {
  name: 'push',
  engines: { sqlite: sqlitePushRepository, postgres: postgresPushRepository },
};
