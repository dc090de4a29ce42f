// The preview cards plugin's storage extension: one repository per engine.

import type { StorageExtension } from 'rookery/plugin-kit';
import { mongoCardRepository } from './mongodb.ts';
import type { CardRepository } from './port.ts';
import { postgresCardRepository } from './postgres.ts';
import { sqliteCardRepository } from './sqlite.ts';

export type { CardRepository } from './port.ts';

export const cardStorage: StorageExtension<CardRepository> = {
  name: 'cards',
  engines: { sqlite: sqliteCardRepository, mongodb: mongoCardRepository, postgres: postgresCardRepository },
};
