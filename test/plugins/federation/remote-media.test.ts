// What is kept of a remote Note's attachments: at most four, http(s) URLs only, descriptions
// cut, sizes sane, and Mastodon's blurhash and focal point read from the document as received
// (bad ones dropped); then shown on the status like local media.

import t from 'tap';
import { Note } from '@fedify/fedify/vocab';
import { MemoryKvStore } from '@fedify/fedify';
import { keepRemoteMedia, remoteMediaDecorator, remoteMediaOf } from '../../../plugins/federation/remote-media.ts';
import { harness } from '../../helpers/harness.ts';
import { account, status } from '../../helpers/fixtures.ts';
import type { StatusJson } from '../../../core/mastodon/entities/status-json.ts';

const CONTEXT = ['https://www.w3.org/ns/activitystreams', { toot: 'http://joinmastodon.org/ns#', blurhash: 'toot:blurhash', focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' } }];

t.test('remote attachments, bounded and checked', async (t) => {
  const h = await harness();
  t.teardown(() => h.close());
  const note = await Note.fromJsonLd({
    '@context': CONTEXT,
    type: 'Note',
    id: 'https://remote.example/notes/1',
    attachment: [
      { type: 'Document', url: 'https://remote.example/a.png', mediaType: 'image/png', name: 'x'.repeat(2000), blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj', focalPoint: [0.5, -0.25], width: 640, height: 480 },
      { type: 'Document', url: 'javascript:alert(1)', mediaType: 'image/png' },
      { type: 'Document', url: 'https://remote.example/b.mp4', mediaType: 'video/mp4', blurhash: '<script>', focalPoint: [3, 0], width: -5 },
      { type: 'Document', url: 'https://remote.example/c.png', mediaType: 'image/png' },
      { type: 'Document', url: 'https://remote.example/d.png', mediaType: 'image/png' },
      { type: 'Document', url: 'https://remote.example/e.png', mediaType: 'image/png' },
    ],
  });
  const media = await remoteMediaOf(() => h.core.ids.next(), note);
  t.equal(media.length, 4, 'at most four');
  t.same(media.map((m) => m.url), ['https://remote.example/a.png', 'https://remote.example/b.mp4', 'https://remote.example/c.png', 'https://remote.example/d.png'], 'no javascript: URL');
  t.match(media[0], { type: 'image', width: 640, height: 480, blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj', focus: { x: 0.5, y: -0.25 } });
  t.equal(media[0]?.description?.length, 1500, 'descriptions are cut');
  t.match(media[1], { type: 'video', width: null, blurhash: null, focus: null }, 'bad sizes, blurhashes and focal points are dropped');

  const kv = new MemoryKvStore();
  const author = account({ domain: 'remote.example', uri: 'https://remote.example/users/eve' });
  const remote = status(author, { uri: 'https://remote.example/notes/1', local: false });
  await keepRemoteMedia(kv, remote.uri ?? '', media);
  const decorator = remoteMediaDecorator(kv);
  const loaded = await decorator.load([remote], null);
  const json = { media_attachments: [] } as unknown as StatusJson;
  decorator.render(remote, loaded, json, { now: Date.now(), signedIn: false });
  t.equal(json.media_attachments.length, 4);
  t.match(json.media_attachments[0], { type: 'image', url: 'https://remote.example/a.png', remote_url: 'https://remote.example/a.png', blurhash: 'LEHV6nWB2yk8pyo0adR*.7kCMdnj', meta: { original: { width: 640, height: 480 }, focus: { x: 0.5, y: -0.25 } } });
  await keepRemoteMedia(kv, remote.uri ?? '', []);
  const none = { media_attachments: [] } as unknown as StatusJson;
  decorator.render(remote, await decorator.load([remote], null), none, { now: Date.now(), signedIn: false });
  t.same(none.media_attachments, [], 'an edit without media clears them');
});
