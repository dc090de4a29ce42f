// Local custom emoji: pictures the operator adds under a :shortcode: (the CLI's `emoji add` and
// `emoji import`), listed by GET /api/v1/custom_emojis, shown in the `emojis` of the local
// statuses (text, content warning, poll options), edits and accounts (name, bio, profile fields)
// that use them, and so sent by the federation plugin as Emoji tags of the Notes and actors it
// renders from those. The pictures are kept by the media plugin (imagesService).

import {
  imagesService,
  json,
  pollsService,
  type Account,
  type CustomEmojiJson,
  type Id,
  type PluginHost,
  type RookeryPlugin,
  type Status,
} from 'rookery/plugin-kit';
import { shortcodesIn } from './shortcodes.ts';
import { emojiStorage, type EmojiRepository, type LocalEmoji } from './storage/index.ts';

export { emojiStorage, type EmojiRepository, type LocalEmoji } from './storage/index.ts';
export { addEmoji, removeEmoji, EMOJI_BYTES, type AddedEmoji, type EmojiOptions, type EmojiTools } from './manage.ts';
export { importEmojiArchive, type ImportOptions, type ImportResult } from './archive.ts';

export const renderEmoji = (emoji: LocalEmoji): CustomEmojiJson => ({
  shortcode: emoji.shortcode,
  url: emoji.url,
  static_url: emoji.staticUrl,
  visible_in_picker: emoji.visibleInPicker,
  category: emoji.category,
});

/** The emoji among `known` that `texts` use, in the order Mastodon lists them (by shortcode). */
const used = (known: ReadonlyMap<string, LocalEmoji>, texts: readonly string[]): CustomEmojiJson[] =>
  [...shortcodesIn(texts)].flatMap((code) => (known.has(code) ? [known.get(code) as LocalEmoji] : [])).sort((a, b) => (a.shortcode < b.shortcode ? -1 : 1)).map(renderEmoji);

const accountTexts = (account: Account) => [account.displayName, account.note, ...account.fields.flatMap((field) => [field.name, field.value])];

async function known(repo: EmojiRepository, texts: readonly string[]): Promise<Map<string, LocalEmoji>> {
  const codes = shortcodesIn(texts);
  if (codes.size === 0) return new Map();
  return new Map((await repo.byShortcodes([...codes])).map((emoji) => [emoji.shortcode, emoji]));
}

/** The texts of local statuses an emoji may be used in, poll options included. */
async function statusTexts(host: PluginHost, statuses: readonly Status[]): Promise<Map<Id, string[]>> {
  const local = statuses.filter((status) => status.local);
  const pollIds = local.flatMap((status) => (status.pollId === null ? [] : [status.pollId]));
  const polls = pollIds.length === 0 ? [] : ((await host.service(pollsService)?.getMany(pollIds)) ?? []);
  const options = new Map(polls.map((poll) => [poll.id, poll.options]));
  return new Map(local.map((status) => [status.id, [status.text, status.spoilerText, ...(status.pollId === null ? [] : (options.get(status.pollId) ?? []))]]));
}

export function emojiPlugin(): RookeryPlugin {
  return {
    name: 'emoji',
    register(host) {
      const repo = host.storage(emojiStorage);

      host.addEndpoint({
        method: 'GET',
        path: '/api/v1/custom_emojis',
        auth: 'public',
        scopes: [],
        handle: async () => json((await repo.list()).map(renderEmoji)),
      });

      host.decorateStatuses<{ texts: Map<Id, string[]>; known: Map<string, LocalEmoji> }>({
        async load(statuses) {
          const texts = await statusTexts(host, statuses);
          return { texts, known: await known(repo, [...texts.values()].flat()) };
        },
        render(status, loaded, out) {
          const texts = loaded.texts.get(status.id);
          if (texts !== undefined && loaded.known.size > 0) out.emojis = used(loaded.known, texts);
        },
        async renderEdits(edits, out) {
          // Only a local status's: a remote one's emoji are the federation plugin's to show.
          const first = edits[0];
          if (first === undefined || (await host.system.statuses.get(first.statusId))?.local !== true) return;
          const texts = edits.map((edit) => [edit.content, edit.spoilerText, ...(edit.pollOptions ?? [])]);
          const emojis = await known(repo, texts.flat());
          if (emojis.size === 0) return;
          edits.forEach((_, i) => {
            const entry = out[i];
            if (entry !== undefined) entry.emojis = used(emojis, texts[i] ?? []);
          });
        },
      });

      host.decorateAccounts<Map<string, LocalEmoji>>({
        covers: (account) => account.domain === null && accountTexts(account).some((text) => text.includes(':')),
        load: (accounts) => known(repo, accounts.filter((account) => account.domain === null).flatMap(accountTexts)),
        render(account, loaded, out) {
          if (account.domain === null && loaded.size > 0) out.emojis = used(loaded, accountTexts(account));
        },
      });

      host.onReady(() => {
        if (host.service(imagesService) === null) host.logger.warn({}, 'the emoji plugin keeps its pictures through the media plugin, which is not installed: emoji cannot be added');
      });
    },
  };
}
