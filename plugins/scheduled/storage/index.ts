// The scheduled statuses plugin's storage extension: one repository per engine.

import type { StorageExtension } from 'rookery/plugin-kit';
import { mongoScheduledRepository } from './mongodb.ts';
import type { ScheduledStatusRepository } from './port.ts';
import { postgresScheduledRepository } from './postgres.ts';
import { sqliteScheduledRepository } from './sqlite.ts';

export type { ScheduledStatusRepository } from './port.ts';

export const scheduledStorage: StorageExtension<ScheduledStatusRepository> = {
  name: 'scheduled',
  engines: { sqlite: sqliteScheduledRepository, mongodb: mongoScheduledRepository, postgres: postgresScheduledRepository },
};
