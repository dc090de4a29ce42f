import type { PostgresExtensionContext, PostgresRow } from 'rookery/postgres';
import type { EmojiRepository, LocalEmoji } from './port.ts';

/** The plugin's own migrations on PostgreSQL; never edit a released one. */
export const EMOJI_POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE custom_emojis (
    id bigint PRIMARY KEY,
    shortcode text NOT NULL,
    url text NOT NULL,
    static_url text NOT NULL,
    category text,
    visible_in_picker boolean NOT NULL,
    created_at bigint NOT NULL,
    CONSTRAINT custom_emojis_shortcode UNIQUE (shortcode)
  );
  `,
];

const COLUMNS = 'id, shortcode, url, static_url, category, visible_in_picker, created_at';

export function postgresEmojiRepository(context: PostgresExtensionContext): EmojiRepository {
  const { sql, values: v } = context;
  const ready = context.migrate(EMOJI_POSTGRES_MIGRATIONS);
  const fromRow = (r: PostgresRow): LocalEmoji => ({
    id: v.id(r['id']),
    shortcode: v.text(r['shortcode']),
    url: v.text(r['url']),
    staticUrl: v.text(r['static_url']),
    category: v.textOrNull(r['category']),
    visibleInPicker: v.bool(r['visible_in_picker']),
    createdAt: v.int(r['created_at']),
  });
  return {
    async save(e) {
      await ready;
      return context.transaction(async (tx) => {
        const old = await tx.row(`DELETE FROM custom_emojis WHERE shortcode = $1 RETURNING ${COLUMNS}`, [e.shortcode]);
        await tx.run(`INSERT INTO custom_emojis (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [v.key(e.id), e.shortcode, e.url, e.staticUrl, e.category, e.visibleInPicker, e.createdAt]);
        return old ? fromRow(old) : null;
      });
    },
    async remove(shortcode) {
      await ready;
      if (!v.storable(shortcode)) return null;
      const old = await sql.row(`DELETE FROM custom_emojis WHERE shortcode = $1 RETURNING ${COLUMNS}`, [shortcode]);
      return old ? fromRow(old) : null;
    },
    async list() {
      await ready;
      return (await sql.rows(`SELECT ${COLUMNS} FROM custom_emojis ORDER BY shortcode COLLATE "C"`)).map(fromRow);
    },
    async byShortcodes(shortcodes) {
      await ready;
      const wanted = shortcodes.filter(v.storable);
      if (wanted.length === 0) return [];
      return (await sql.rows(`SELECT ${COLUMNS} FROM custom_emojis WHERE shortcode = ANY($1::text[]) ORDER BY shortcode COLLATE "C"`, [wanted])).map(fromRow);
    },
  };
}
