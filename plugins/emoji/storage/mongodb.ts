import type { IndexDefinition, MongoDoc, MongoExtensionContext } from 'rookery/mongodb';
import type { Id } from 'rookery/plugin-kit';
import type { EmojiRepository, LocalEmoji } from './port.ts';

export const EMOJIS = 'custom_emojis';

export const EMOJI_INDEXES: readonly IndexDefinition[] = [{ collection: EMOJIS, name: 'custom_emojis_shortcode', key: { shortcode: 1 }, unique: true, rule: 'shortcode' }];

const fromDoc = (d: MongoDoc): LocalEmoji => ({
  id: d['_id'] as Id,
  shortcode: d['shortcode'] as string,
  url: d['url'] as string,
  staticUrl: d['staticUrl'] as string,
  category: (d['category'] as string | null) ?? null,
  visibleInPicker: d['visibleInPicker'] === true,
  createdAt: d['createdAt'] as number,
});

const byShortcode = (a: LocalEmoji, b: LocalEmoji) => (a.shortcode < b.shortcode ? -1 : a.shortcode > b.shortcode ? 1 : 0);

export function mongoEmojiRepository(context: MongoExtensionContext): EmojiRepository {
  const emojis = context.collection(EMOJIS);
  const ready = context.setup({ indexes: EMOJI_INDEXES });
  return {
    async save(e) {
      await ready;
      return context.transaction(async (tx) => {
        const old = await emojis.findOneAndDelete({ shortcode: e.shortcode }, { session: tx.session });
        await emojis.insertOne(
          { _id: e.id, shortcode: e.shortcode, url: e.url, staticUrl: e.staticUrl, category: e.category, visibleInPicker: e.visibleInPicker, createdAt: e.createdAt },
          { session: tx.session },
        );
        return old ? fromDoc(old) : null;
      }, [`${EMOJIS}.custom_emojis_shortcode`]);
    },
    async remove(shortcode) {
      await ready;
      const old = await emojis.findOneAndDelete({ shortcode });
      return old ? fromDoc(old) : null;
    },
    async list() {
      await ready;
      // Sorted here: the same order as the SQL engines' binary collation.
      return (await emojis.find({}).toArray()).map(fromDoc).sort(byShortcode);
    },
    async byShortcodes(shortcodes) {
      await ready;
      if (shortcodes.length === 0) return [];
      return (await emojis.find({ shortcode: { $in: [...shortcodes] } }).toArray()).map(fromDoc).sort(byShortcode);
    },
  };
}
