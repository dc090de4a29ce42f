import type { Id, PreviewCard } from 'rookery/plugin-kit';
import type { PostgresExtensionContext, PostgresRow } from 'rookery/postgres';
import type { CardRepository } from './port.ts';

/** The plugin's own migrations on PostgreSQL; never edit a released one. */
export const CARD_POSTGRES_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE preview_cards (
    id bigint PRIMARY KEY,
    url text NOT NULL,
    title text NOT NULL,
    description text NOT NULL,
    type text NOT NULL,
    author_name text NOT NULL,
    author_url text NOT NULL,
    provider_name text NOT NULL,
    provider_url text NOT NULL,
    html text NOT NULL,
    width double precision NOT NULL,
    height double precision NOT NULL,
    image text,
    image_description text NOT NULL,
    embed_url text NOT NULL,
    blurhash text,
    language text,
    published_at bigint,
    fetched_at bigint NOT NULL,
    CONSTRAINT preview_cards_url UNIQUE (url)
  );
  CREATE TABLE status_cards (
    status_id bigint PRIMARY KEY,
    card_id bigint NOT NULL
  );
  `,
];

const CARD_COLUMN_NAMES = [
  'id', 'url', 'title', 'description', 'type', 'author_name', 'author_url', 'provider_name', 'provider_url', 'html', 'width', 'height', 'image',
  'image_description', 'embed_url', 'blurhash', 'language', 'published_at', 'fetched_at',
];
const CARD_COLUMNS = CARD_COLUMN_NAMES.join(', ');

export function postgresCardRepository(context: PostgresExtensionContext): CardRepository {
  const { sql, values: v } = context;
  const ready = context.migrate(CARD_POSTGRES_MIGRATIONS);
  const fromRow = (r: PostgresRow): PreviewCard => ({
    id: v.id(r['id']),
    url: v.text(r['url']),
    title: v.text(r['title']),
    description: v.text(r['description']),
    type: v.text(r['type']) as PreviewCard['type'],
    authorName: v.text(r['author_name']),
    authorUrl: v.text(r['author_url']),
    providerName: v.text(r['provider_name']),
    providerUrl: v.text(r['provider_url']),
    html: v.text(r['html']),
    width: v.int(r['width']),
    height: v.int(r['height']),
    image: v.textOrNull(r['image']),
    imageDescription: v.text(r['image_description']),
    embedUrl: v.text(r['embed_url']),
    blurhash: v.textOrNull(r['blurhash']),
    language: v.textOrNull(r['language']),
    publishedAt: v.intOrNull(r['published_at']),
    fetchedAt: v.int(r['fetched_at']),
  });
  const updates = CARD_COLUMN_NAMES.filter((c) => c !== 'id' && c !== 'url').map((c) => `${c} = excluded.${c}`).join(', ');
  return {
    async upsert(c) {
      await ready;
      // One statement: the card of this url keeps its id and takes the new fields.
      const r = await sql.row(
        `INSERT INTO preview_cards (${CARD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
         ON CONFLICT (url) DO UPDATE SET ${updates}
         RETURNING ${CARD_COLUMNS}`,
        [
          v.key(c.id), c.url, c.title, c.description, c.type, c.authorName, c.authorUrl, c.providerName, c.providerUrl, c.html, c.width, c.height, c.image,
          c.imageDescription, c.embedUrl, c.blurhash, c.language, c.publishedAt, c.fetchedAt,
        ],
      );
      return fromRow(r as PostgresRow);
    },
    async findByUrl(url) {
      await ready;
      if (!v.storable(url)) return null;
      const r = await sql.row(`SELECT ${CARD_COLUMNS} FROM preview_cards WHERE url = $1`, [url]);
      return r ? fromRow(r) : null;
    },
    async attach(statusId, cardId, outbox) {
      await ready;
      const link = (on: typeof sql) =>
        on.run('INSERT INTO status_cards (status_id, card_id) VALUES ($1, $2) ON CONFLICT (status_id) DO UPDATE SET card_id = excluded.card_id', [v.key(statusId), v.key(cardId)]);
      if (outbox === undefined) await link(sql);
      else await context.writeWithOutbox(outbox, async (tx) => void (await link(tx)));
    },
    async forStatuses(statusIds) {
      await ready;
      const out = new Map<Id, PreviewCard>();
      const wanted = v.keys(statusIds);
      if (wanted.length === 0) return out;
      const rows = await sql.rows(
        `SELECT sc.status_id AS status_id, ${CARD_COLUMN_NAMES.map((c) => `pc.${c}`).join(', ')}
         FROM status_cards sc JOIN preview_cards pc ON pc.id = sc.card_id WHERE sc.status_id = ANY($1::bigint[])`,
        [wanted],
      );
      for (const r of rows) out.set(v.id(r['status_id']), fromRow(r));
      return out;
    },
  };
}
