// Media across two instances on loopback (hapi and node:http): alice's picture on A, with its
// description, size, blurhash and focal point, reaches bob on B through a signed Create, and an
// edit of its focal point through the Update; A serves the Note with Mastodon's keys.

import sharp from 'sharp';
import t from 'tap';
import type { KvStore } from '@fedify/fedify';
import type { PluginHost } from '../../../core/mastodon/host/types.ts';
import { federationStores } from '../../../plugins/federation/index.ts';
import { mediaPlugin } from '../../../plugins/index.ts';
import { eventually } from '../../helpers/eventually.ts';
import { drainAll, federatingInstances, followAcross } from '../../helpers/federation.ts';
import type { Harness } from '../../helpers/harness.ts';
import { multipart } from '../../helpers/multipart.ts';

interface MediaJson {
  id: string;
  type: string;
  url: string;
  remote_url: string | null;
  description: string | null;
  blurhash: string | null;
  meta: { original?: { width: number; height: number }; focus?: { x: number; y: number } };
}
interface StatusJson {
  id: string;
  uri: string;
  media_attachments: MediaJson[];
}

t.test('a picture crosses servers with its blurhash and focal point', async (t) => {
  const onBStores: { kv?: KvStore } = {};
  const keepB = (host: PluginHost) => {
    const stores = federationStores(host);
    onBStores.kv = stores.kv;
    return stores;
  };
  const [a, b] = (await federatingInstances(t, 2, () => [mediaPlugin()], [{}, { stores: keepB }])) as [Harness, Harness];
  const drain = () => drainAll([a, b]);
  const alice = await a.user('alice');
  const bob = await b.user('bob');
  await followAcross(b, [bob], a, 'alice');

  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 60 } } }).png().toBuffer();
  const body = multipart([
    { name: 'file', value: { filename: 'a.png', contentType: 'image/png', data: png } },
    { name: 'description', value: 'a red rectangle' },
    { name: 'focus', value: '0.5,-0.25' },
  ]);
  const uploaded = await a.request('POST', '/api/v1/media', { token: alice.token, payload: body.payload, headers: body.headers });
  t.equal(uploaded.statusCode, 200);
  const media = uploaded.json as MediaJson;
  t.match(media.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{6,}$/, 'A made a blurhash');
  const posted = (await a.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: 'A picture', media_ids: [media.id] } })).json as StatusJson;

  const onB = async () => {
    await drain();
    return ((await b.request('GET', '/api/v1/timelines/home', { token: bob.token })).json as StatusJson[]).find((s) => s.uri === posted.uri);
  };
  const arrived = (await eventually(onB, (s) => s !== undefined, 'the picture reaches bob')) as StatusJson;
  t.equal(arrived.media_attachments.length, 1);
  t.match(arrived.media_attachments[0], {
    type: 'image',
    url: media.url,
    remote_url: media.url,
    description: 'a red rectangle',
    blurhash: media.blurhash,
    meta: { original: { width: 64, height: 48 }, focus: { x: 0.5, y: -0.25 } },
  });

  // The Note at its uri says the same, under Mastodon's keys.
  const note = await a.request('GET', new URL(posted.uri).pathname, { headers: { accept: 'application/activity+json' } });
  t.equal(note.statusCode, 200);
  t.same([note.json.attachment].flat(), [{ type: 'Document', mediaType: 'image/png', name: 'a red rectangle', url: media.url, width: 64, height: 48, blurhash: media.blurhash, focalPoint: [0.5, -0.25] }]);
  t.same(note.json['@context'].at(-1), { toot: 'http://joinmastodon.org/ns#', blurhash: 'toot:blurhash', focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' } });

  // A new focal point, and an edit that carries it.
  const moved = await a.request('PUT', `/api/v1/media/${media.id}`, { token: alice.token, payload: { focus: '-0.5,0.75' } });
  t.equal(moved.statusCode, 200);
  const edited = await a.request('PUT', `/api/v1/statuses/${posted.id}`, { token: alice.token, payload: { status: 'A picture, edited', media_ids: [media.id] } });
  t.equal(edited.statusCode, 200);
  const updated = (await eventually(onB, (s) => s?.media_attachments[0]?.meta.focus?.x === -0.5, 'the edit reaches bob')) as StatusJson;
  t.same(updated.media_attachments[0]?.meta.focus, { x: -0.5, y: 0.75 }, 'the Update carries the new focal point');
  t.equal(updated.media_attachments[0]?.blurhash, media.blurhash);

  // Deleted on A: gone on B, and so is what B kept of its media.
  const kept = ['rookery', 'remote-media', posted.uri] as const;
  t.ok(await onBStores.kv?.get(kept), 'B keeps the attachments beside the status');
  t.equal((await a.request('DELETE', `/api/v1/statuses/${posted.id}`, { token: alice.token })).statusCode, 200);
  await eventually(onB, (s) => s === undefined, 'the delete reaches bob');
  t.equal(await onBStores.kv?.get(kept), undefined, 'and no longer keeps them');
});
