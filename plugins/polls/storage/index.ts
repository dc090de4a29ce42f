// The polls plugin's storage extension: one repository per engine.

import type { StorageExtension } from 'rookery/plugin-kit';
import { mongoPollRepository } from './mongodb.ts';
import type { PollRepository } from './port.ts';
import { postgresPollRepository } from './postgres.ts';
import { sqlitePollRepository } from './sqlite.ts';

export type { PollRepository } from './port.ts';

export const pollStorage: StorageExtension<PollRepository> = {
  name: 'polls',
  engines: { sqlite: sqlitePollRepository, mongodb: mongoPollRepository, postgres: postgresPollRepository },
};
