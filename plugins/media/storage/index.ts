// The media plugin's storage extension: one repository per engine.

import type { StorageExtension } from '../../../core/ports/storage.ts';
import { memoryMediaRepository } from './memory.ts';
import { mongoMediaRepository } from './mongodb.ts';
import type { MediaRepository } from './port.ts';
import { sqliteMediaRepository } from './sqlite.ts';
import { postgresMediaRepository } from './postgres.ts';

export type { MediaPatch, MediaRepository } from './port.ts';

export const mediaStorage: StorageExtension<MediaRepository> = {
  name: 'media',
  engines: { memory: memoryMediaRepository, sqlite: sqliteMediaRepository, mongodb: mongoMediaRepository, postgres: postgresMediaRepository },
};
