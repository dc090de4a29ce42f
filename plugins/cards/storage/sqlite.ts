import type { Id, PreviewCard } from 'rookery/plugin-kit';
import type { SqliteExtensionContext, SqliteParam, SqliteRow } from 'rookery/sqlite';
import type { CardRepository } from './port.ts';

/** The plugin's own migrations; 1 is the shape core migration 1 created them with. */
export const CARD_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS preview_cards (
    id INTEGER PRIMARY KEY,
    url TEXT NOT NULL UNIQUE,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    type TEXT NOT NULL,
    author_name TEXT NOT NULL,
    author_url TEXT NOT NULL,
    provider_name TEXT NOT NULL,
    provider_url TEXT NOT NULL,
    html TEXT NOT NULL,
    width REAL NOT NULL,
    height REAL NOT NULL,
    image TEXT,
    image_description TEXT NOT NULL,
    embed_url TEXT NOT NULL,
    blurhash TEXT,
    language TEXT,
    published_at INTEGER,
    fetched_at INTEGER NOT NULL
  ) STRICT;
  CREATE TABLE IF NOT EXISTS status_cards (
    status_id INTEGER PRIMARY KEY,
    card_id INTEGER NOT NULL
  ) STRICT;
  `,
];

const CARD_COLUMNS = `id, url, title, description, type, author_name, author_url, provider_name, provider_url, html, width, height, image,
  image_description, embed_url, blurhash, language, published_at, fetched_at`;
/** The same columns of preview_cards joined as `pc` (made once: a status's card is read per render). */
const JOINED_CARD_COLUMNS = CARD_COLUMNS.split(',').map((c) => `pc.${c.trim()}`).join(', ');

export function sqliteCardRepository(context: SqliteExtensionContext): CardRepository {
  const { db, values: v } = context;
  const byStatus = context.cache<Id, PreviewCard | null>(['status_cards', 'preview_cards'], 20_000, (card) => (card === null ? null : { ...card }));
  const { amongIds, id, int, intOrNull, key, num, text, textOrNull } = v;
  context.migrate(CARD_MIGRATIONS);
  const cardFromRow = (r: SqliteRow): PreviewCard => ({
    id: id(r.id),
    url: text(r.url),
    title: text(r.title),
    description: text(r.description),
    type: text(r.type) as PreviewCard['type'],
    authorName: text(r.author_name),
    authorUrl: text(r.author_url),
    providerName: text(r.provider_name),
    providerUrl: text(r.provider_url),
    html: text(r.html),
    width: num(r.width),
    height: num(r.height),
    image: textOrNull(r.image),
    imageDescription: text(r.image_description),
    embedUrl: text(r.embed_url),
    blurhash: textOrNull(r.blurhash),
    language: textOrNull(r.language),
    publishedAt: intOrNull(r.published_at),
    fetchedAt: int(r.fetched_at),
  });

  /** Every column but id and url, in CARD_COLUMNS order. */
  const cardValues = (c: PreviewCard): SqliteParam[] => [
    c.title, c.description, c.type, c.authorName, c.authorUrl, c.providerName, c.providerUrl, c.html, c.width, c.height, c.image,
    c.imageDescription, c.embedUrl, c.blurhash, c.language, c.publishedAt, c.fetchedAt,
  ];
  const byId = (k: bigint): PreviewCard => {
    const r = db.get(`SELECT ${CARD_COLUMNS} FROM preview_cards WHERE id = ?`, k);
    if (!r) throw new Error(`card ${k} vanished inside its own transaction`);
    return cardFromRow(r);
  };
  return {
    async upsert(c) {
      return db.write(() => {
        const existing = db.get('SELECT id FROM preview_cards WHERE url = ?', c.url);
        if (existing) {
          const k = existing.id as bigint;
          db.run(
            `UPDATE preview_cards SET title = ?, description = ?, type = ?, author_name = ?, author_url = ?, provider_name = ?, provider_url = ?,
               html = ?, width = ?, height = ?, image = ?, image_description = ?, embed_url = ?, blurhash = ?, language = ?, published_at = ?,
               fetched_at = ? WHERE id = ?`,
            ...cardValues(c), k,
          );
          return byId(k);
        }
        db.run(`INSERT INTO preview_cards (${CARD_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, key(c.id), c.url, ...cardValues(c));
        return byId(key(c.id));
      });
    },
    async findByUrl(url) {
      const r = db.get(`SELECT ${CARD_COLUMNS} FROM preview_cards WHERE url = ?`, url);
      return r ? cardFromRow(r) : null;
    },
    async attach(statusId, cardId, outbox) {
      await context.writeWithOutbox(outbox, () => {
        db.run(
          'INSERT INTO status_cards (status_id, card_id) VALUES (?, ?) ON CONFLICT (status_id) DO UPDATE SET card_id = excluded.card_id',
          key(statusId), key(cardId),
        );
      });
    },
    async forStatuses(statusIds) {
      const out = new Map<Id, PreviewCard>();
      const missing: Id[] = [];
      for (const statusId of new Set(statusIds)) {
        const hit = byStatus.get(statusId);
        if (hit === undefined) missing.push(statusId);
        else if (hit !== null) out.set(statusId, hit);
      }
      if (missing.length === 0) return out;
      const among = amongIds('sc.status_id', missing);
      const rows = db.all(
        `SELECT sc.status_id AS status_id, ${JOINED_CARD_COLUMNS}
         FROM status_cards sc JOIN preview_cards pc ON pc.id = sc.card_id WHERE ${among.sql}`,
        among.param,
      );
      for (const r of rows) out.set(id(r.status_id), cardFromRow(r));
      // Most statuses have no card: that answer is cached too.
      for (const statusId of missing) byStatus.set(statusId, out.get(statusId) ?? null);
      return out;
    },
  };
}
