// This instance's custom emoji over federation: A has :rook:, alice on A uses it in her name and
// in a post; bob on B follows her. The Note and the actor A serves carry it as an Emoji tag
// (named :rook:, its picture as icon, as Mastodon sends them), and B shows it in the `emojis` of
// the status and of the account, pointing at A's picture.

import sharp from 'sharp';
import t from 'tap';
import { imagesService } from '../../../core/mastodon/host/kit.ts';
import { addEmoji, emojiPlugin, emojiStorage } from '../../../plugins/emoji/index.ts';
import { mediaPlugin } from '../../../plugins/media/index.ts';
import { post } from '../../helpers/api.ts';
import { eventually } from '../../helpers/eventually.ts';
import { drainAll, federatingInstances, followAcross } from '../../helpers/federation.ts';
import type { Harness } from '../../helpers/harness.ts';

t.test('a local emoji travels as an Emoji tag and shows on the other server', async (t) => {
  const [a, b] = (await federatingInstances(t, 2, () => [mediaPlugin(), emojiPlugin()])) as [Harness, Harness];
  const picture = await sharp({ create: { width: 32, height: 32, channels: 4, background: '#224' } }).png().toBuffer();
  const { emoji } = await addEmoji({ repo: a.core.storage.extend(emojiStorage), images: a.rookery.service(imagesService), newId: () => a.core.ids.next(), now: a.clock.now() }, 'rook', picture);
  const alice = await a.user('alice');
  const bob = await b.user('bob');
  await a.request('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, payload: { display_name: 'Alice :rook:' } });
  const remoteAlice = await followAcross(b, [bob], a, 'alice');

  const posted = await post(a, alice, 'A rook :rook: here');
  const served = await fetch(posted.uri, { headers: { accept: 'application/activity+json' } });
  // One tag compacts to an object, several to an array.
  const note = (await served.json()) as { tag: unknown };
  const noteTags = [note.tag].flat() as { type: string; name: string; icon?: { url: string; mediaType?: string } }[];
  t.same(noteTags.filter((tag) => tag.type === 'Emoji').map((tag) => [tag.name, tag.icon?.url, tag.icon?.mediaType]), [[':rook:', emoji.url, 'image/png']], 'the Note names it');
  const actor = (await (await fetch(`${a.core.config.baseUrl}/users/alice`, { headers: { accept: 'application/activity+json' } })).json()) as { tag?: unknown };
  t.same(([actor.tag ?? []].flat() as { type: string; name: string }[]).map((tag) => [tag.type, tag.name]), [['Emoji', ':rook:']], 'and so does the actor');

  const shown = { shortcode: 'rook', url: emoji.url, static_url: emoji.url, visible_in_picker: false, category: null };
  const home = await eventually(
    async () => {
      await drainAll([a, b]);
      return (await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as { uri: string; emojis: unknown[] }[];
    },
    (list) => list.some((status) => status.uri === posted.uri),
    'the post reaches bob',
  );
  t.same(home.find((status) => status.uri === posted.uri)?.emojis, [shown], 'B shows the emoji, A\'s picture');
  const account = await eventually(
    async () => {
      await drainAll([a, b]);
      return (await b.request('GET', `/api/v1/accounts/${remoteAlice}`, { token: bob.token })).json as { display_name: string; emojis: unknown[] };
    },
    (json) => json.emojis.length > 0,
    'alice\'s emoji on B',
  );
  t.same([account.display_name, account.emojis], ['Alice :rook:', [shown]]);
});
