// The polls plugin's storage extension: one repository per engine.

import type { StorageExtension } from '../../../core/ports/storage.ts';
import { memoryPollRepository } from './memory.ts';
import { mongoPollRepository } from './mongodb.ts';
import type { PollRepository } from './port.ts';
import { sqlitePollRepository } from './sqlite.ts';
import { postgresPollRepository } from './postgres.ts';

export type { PollRepository } from './port.ts';

export const pollStorage: StorageExtension<PollRepository> = {
  name: 'polls',
  engines: { memory: memoryPollRepository, sqlite: sqlitePollRepository, mongodb: mongoPollRepository, postgres: postgresPollRepository },
};
