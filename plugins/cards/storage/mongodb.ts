import type { IndexDefinition, MongoDoc, MongoExtensionContext } from 'rookery/mongodb';
import type { Id, PreviewCard } from 'rookery/plugin-kit';
import type { CardRepository } from './port.ts';

export const CARDS = 'preview_cards';
/** Which card a status shows: `_id` the status id. */
export const STATUS_CARDS = 'status_cards';

export const CARD_INDEXES: readonly IndexDefinition[] = [{ collection: CARDS, name: 'preview_cards_url', key: { url: 1 }, unique: true, rule: 'url' }];

/** Every field but the id and the url: what an upsert of the same url replaces. */
export function cardFields(c: PreviewCard): MongoDoc {
  return {
    title: c.title,
    description: c.description,
    type: c.type,
    authorName: c.authorName,
    authorUrl: c.authorUrl,
    providerName: c.providerName,
    providerUrl: c.providerUrl,
    html: c.html,
    width: c.width,
    height: c.height,
    image: c.image,
    imageDescription: c.imageDescription,
    embedUrl: c.embedUrl,
    blurhash: c.blurhash,
    language: c.language,
    publishedAt: c.publishedAt,
    fetchedAt: c.fetchedAt,
  };
}

export function cardFromDoc(d: MongoDoc): PreviewCard {
  return {
    id: d['_id'] as Id,
    url: d['url'] as string,
    title: d['title'] as string,
    description: d['description'] as string,
    type: d['type'] as PreviewCard['type'],
    authorName: d['authorName'] as string,
    authorUrl: d['authorUrl'] as string,
    providerName: d['providerName'] as string,
    providerUrl: d['providerUrl'] as string,
    html: d['html'] as string,
    width: d['width'] as number,
    height: d['height'] as number,
    image: d['image'] as string | null,
    imageDescription: d['imageDescription'] as string,
    embedUrl: d['embedUrl'] as string,
    blurhash: d['blurhash'] as string | null,
    language: d['language'] as string | null,
    publishedAt: d['publishedAt'] as number | null,
    fetchedAt: d['fetchedAt'] as number,
  };
}

/** One card per url: the fields replaced, the id kept (set only when the upsert inserts). */
export function cardUpsert(c: PreviewCard, num: (id: Id) => unknown): { filter: MongoDoc; update: MongoDoc } {
  return { filter: { url: c.url }, update: { $set: cardFields(c), $setOnInsert: { _id: c.id, num: num(c.id) } } };
}

export function mongoCardRepository(context: MongoExtensionContext): CardRepository {
  const { values: v } = context;
  const cards = context.collection(CARDS);
  const links = context.collection(STATUS_CARDS);
  const ready = context.setup({ indexes: CARD_INDEXES, carriesJobs: [STATUS_CARDS] });
  return {
    async upsert(c) {
      await ready;
      const { filter, update } = cardUpsert(c, v.num);
      for (let attempt = 0; ; attempt += 1) {
        try {
          const d = await cards.findOneAndUpdate(filter, v.bump(update), { upsert: true, returnDocument: 'after' });
          if (d === null) throw new Error('cards.upsert: the upsert returned no document');
          return cardFromDoc(d);
        } catch (error) {
          const translated = context.translate(error);
          // Two first fetches of one url at once: the loser updates the winner's card.
          if (attempt < 3 && translated instanceof Error && (translated as { rule?: string }).rule === 'url') continue;
          throw translated;
        }
      }
    },
    async findByUrl(url) {
      await ready;
      const d = await cards.findOne({ url });
      return d ? cardFromDoc(d) : null;
    },
    async attach(statusId, cardId, outbox) {
      await ready;
      await context.updateWithJobs(STATUS_CARDS, { _id: statusId }, { $set: { cardId } }, outbox === undefined ? [] : outbox(undefined), { upsert: true });
    },
    async forStatuses(statusIds) {
      await ready;
      const out = new Map<Id, PreviewCard>();
      const wanted = v.validIds(statusIds);
      if (wanted.length === 0) return out;
      const linked = await links.find({ _id: { $in: wanted } }, { projection: { cardId: 1 } }).toArray();
      if (linked.length === 0) return out;
      const byId = new Map((await cards.find({ _id: { $in: [...new Set(linked.map((l) => l['cardId'] as Id))] } }).toArray()).map((d) => [d['_id'] as Id, cardFromDoc(d)]));
      for (const l of linked) {
        const card = byId.get(l['cardId'] as Id);
        if (card) out.set(l['_id'] as Id, card);
      }
      return out;
    },
  };
}
