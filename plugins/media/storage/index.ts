// The media plugin's storage extension: one repository per engine.

import type { StorageExtension } from 'rookery/plugin-kit';
import { mongoMediaRepository } from './mongodb.ts';
import type { MediaRepository } from './port.ts';
import { postgresMediaRepository } from './postgres.ts';
import { sqliteMediaRepository } from './sqlite.ts';

export type { MediaPatch, MediaRepository } from './port.ts';

export const mediaStorage: StorageExtension<MediaRepository> = {
  name: 'media',
  engines: { sqlite: sqliteMediaRepository, mongodb: mongoMediaRepository, postgres: postgresMediaRepository },
};
