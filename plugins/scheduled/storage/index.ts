// The scheduled statuses plugin's storage extension: one repository per engine.

import type { StorageExtension } from '../../../core/ports/storage.ts';
import { memoryScheduledRepository } from './memory.ts';
import { mongoScheduledRepository } from './mongodb.ts';
import type { ScheduledStatusRepository } from './port.ts';
import { sqliteScheduledRepository } from './sqlite.ts';
import { postgresScheduledRepository } from './postgres.ts';

export type { ScheduledStatusRepository } from './port.ts';

export const scheduledStorage: StorageExtension<ScheduledStatusRepository> = {
  name: 'scheduled',
  engines: { memory: memoryScheduledRepository, sqlite: sqliteScheduledRepository, mongodb: mongoScheduledRepository, postgres: postgresScheduledRepository },
};
