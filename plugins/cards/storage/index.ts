// The preview cards plugin's storage extension: one repository per engine.

import type { StorageExtension } from '../../../core/ports/storage.ts';
import { memoryCardRepository } from './memory.ts';
import { mongoCardRepository } from './mongodb.ts';
import type { CardRepository } from './port.ts';
import { sqliteCardRepository } from './sqlite.ts';
import { postgresCardRepository } from './postgres.ts';

export type { CardRepository } from './port.ts';

export const cardStorage: StorageExtension<CardRepository> = {
  name: 'cards',
  engines: { memory: memoryCardRepository, sqlite: sqliteCardRepository, mongodb: mongoCardRepository, postgres: postgresCardRepository },
};
