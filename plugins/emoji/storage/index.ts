// The custom emoji plugin's storage extension: one repository per engine.

import type { StorageExtension } from 'rookery/plugin-kit';
import { mongoEmojiRepository } from './mongodb.ts';
import type { EmojiRepository } from './port.ts';
import { postgresEmojiRepository } from './postgres.ts';
import { sqliteEmojiRepository } from './sqlite.ts';

export type { EmojiRepository, LocalEmoji } from './port.ts';

export const emojiStorage: StorageExtension<EmojiRepository> = {
  name: 'emoji',
  engines: { sqlite: sqliteEmojiRepository, mongodb: mongoEmojiRepository, postgres: postgresEmojiRepository },
};
