import type { SqliteExtensionContext, SqliteRow } from 'rookery/sqlite';
import type { EmojiRepository, LocalEmoji } from './port.ts';

/** The plugin's own migrations; never edit a released one. */
export const EMOJI_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS custom_emojis (
    id INTEGER PRIMARY KEY,
    shortcode TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL,
    static_url TEXT NOT NULL,
    category TEXT,
    visible_in_picker INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT;
  `,
];

const COLUMNS = 'id, shortcode, url, static_url, category, visible_in_picker, created_at';

export function sqliteEmojiRepository(context: SqliteExtensionContext): EmojiRepository {
  const { db, values: v } = context;
  context.migrate(EMOJI_MIGRATIONS);
  const fromRow = (r: SqliteRow): LocalEmoji => ({
    id: v.id(r.id),
    shortcode: v.text(r.shortcode),
    url: v.text(r.url),
    staticUrl: v.text(r.static_url),
    category: v.textOrNull(r.category),
    visibleInPicker: v.bool(r.visible_in_picker),
    createdAt: v.int(r.created_at),
  });
  return {
    async save(e) {
      return db.write(() => {
        const old = db.get(`SELECT ${COLUMNS} FROM custom_emojis WHERE shortcode = ?`, e.shortcode);
        if (old) db.run('DELETE FROM custom_emojis WHERE shortcode = ?', e.shortcode);
        db.run(`INSERT INTO custom_emojis (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`, v.key(e.id), e.shortcode, e.url, e.staticUrl, e.category, v.flag(e.visibleInPicker), e.createdAt);
        return old ? fromRow(old) : null;
      });
    },
    async remove(shortcode) {
      return db.write(() => {
        const old = db.get(`SELECT ${COLUMNS} FROM custom_emojis WHERE shortcode = ?`, shortcode);
        if (!old) return null;
        db.run('DELETE FROM custom_emojis WHERE shortcode = ?', shortcode);
        return fromRow(old);
      });
    },
    async list() {
      return db.all(`SELECT ${COLUMNS} FROM custom_emojis ORDER BY shortcode`).map(fromRow);
    },
    async byShortcodes(shortcodes) {
      if (shortcodes.length === 0) return [];
      return db.all(`SELECT ${COLUMNS} FROM custom_emojis WHERE shortcode IN (SELECT value FROM json_each(?)) ORDER BY shortcode`, JSON.stringify(shortcodes)).map(fromRow);
    },
  };
}
