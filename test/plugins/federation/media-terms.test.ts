// Mastodon's attachment extras on what we send: a Create of a Note whose attachment has a
// blurhash and a focal point compacts to the plain keys Mastodon reads ("blurhash",
// "focalPoint": [x, y]) with their terms in the @context, and the Object Integrity Proof and
// the Linked Data signature made over that JSON verify (and fail once it is changed).

import t from 'tap';
import { generateCryptoKeyPair, signJsonLd, signObject, verifyJsonLd, verifyObject } from '@fedify/fedify';
import { Create, CryptographicKey, Multikey, Person } from '@fedify/fedify/vocab';
import { getDocumentLoader } from '@fedify/vocab-runtime';
import { CreateWithMedia, MediaDocument, NoteWithMedia } from '../../../plugins/federation/media-terms.ts';
import { remoteMediaOf } from '../../../plugins/federation/remote-media.ts';
import { harness } from '../../helpers/harness.ts';

const BLURHASH = 'LEHV6nWB2yk8pyo0adR*.7kCMdnj';

t.test('blurhash and focal point survive serialisation and signing', async (t) => {
  const ed = await generateCryptoKeyPair('Ed25519');
  const rsa = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
  const actorId = new URL('https://a.example/users/alice');
  const edKeyId = new URL('https://a.example/users/alice#ed25519-key');
  const rsaKeyId = new URL('https://a.example/users/alice#main-key');
  const multikey = new Multikey({ id: edKeyId, controller: actorId, publicKey: ed.publicKey });
  const cryptographicKey = new CryptographicKey({ id: rsaKeyId, owner: actorId, publicKey: rsa.publicKey });
  const person = new Person({ id: actorId, preferredUsername: 'alice', inbox: new URL(`${actorId.href}/inbox`), assertionMethods: [multikey], publicKey: cryptographicKey });
  // The actor and its keys as a.example would serve them; the JSON-LD contexts from Fedify's
  // preloaded copies (no network).
  const served: Record<string, unknown> = { [actorId.href]: await person.toJsonLd(), [edKeyId.href]: await multikey.toJsonLd(), [rsaKeyId.href]: await cryptographicKey.toJsonLd() };
  const preloaded = getDocumentLoader();
  const documentLoader = async (url: string) => (url in served ? { contextUrl: null, documentUrl: url, document: served[url] } : preloaded(url));
  const options = { documentLoader, contextLoader: documentLoader };

  const picture = MediaDocument.of({ url: new URL('https://a.example/media/1.png'), mediaType: 'image/png', name: 'a red square', width: 64, height: 48 }, { blurhash: BLURHASH, focus: [0.5, -0.25] });
  const plain = MediaDocument.of({ url: new URL('https://a.example/media/2.png'), mediaType: 'image/png' }, { blurhash: null, focus: null });
  const note = new NoteWithMedia({ id: new URL('https://a.example/users/alice/statuses/1'), attribution: actorId, content: '<p>hi</p>', attachments: [picture, plain] });
  const unsigned = new CreateWithMedia({ id: new URL('https://a.example/users/alice/statuses/1/activity'), actor: actorId, object: note });
  const create = await signObject(unsigned, ed.privateKey, edKeyId, { contextLoader: documentLoader });
  t.type(create, CreateWithMedia, 'signing keeps the class');
  const json = (await create.toJsonLd({ format: 'compact', contextLoader: documentLoader })) as { '@context': unknown[]; object: { attachment: Record<string, unknown>[] } };

  t.same(json.object.attachment[0], { type: 'Document', mediaType: 'image/png', name: 'a red square', url: 'https://a.example/media/1.png', width: 64, height: 48, blurhash: BLURHASH, focalPoint: [0.5, -0.25] }, "Mastodon's keys");
  t.same(json.object.attachment[1], { type: 'Document', mediaType: 'image/png', url: 'https://a.example/media/2.png' }, 'none when there is none');
  t.same(json['@context'].at(-1), { toot: 'http://joinmastodon.org/ns#', blurhash: 'toot:blurhash', focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' } }, 'the terms are defined');

  t.not(await verifyObject(Create, json, options), null, 'the Object Integrity Proof verifies');
  const ldSigned = await signJsonLd(json, rsa.privateKey, rsaKeyId, { contextLoader: documentLoader });
  t.equal(await verifyJsonLd(ldSigned, options), true, 'the Linked Data signature verifies');
  const changed = structuredClone(json);
  (changed.object.attachment[0] as { blurhash: string }).blurhash = 'LKO2?U%2Tw=w]~RBVZRi};RPxuwH';
  t.equal(await verifyObject(Create, changed, options), null, 'and the proof covers the blurhash');

  // What a receiving Rookery reads of it: the Note embedded in the Create.
  const h = await harness();
  t.teardown(() => h.close());
  const received = await Create.fromJsonLd(json, { documentLoader, contextLoader: documentLoader });
  const object = await received.getObject({ documentLoader, contextLoader: documentLoader });
  t.ok(object !== null);
  const media = await remoteMediaOf(() => h.core.ids.next(), object as NonNullable<typeof object>, json);
  t.match(media, [
    { url: 'https://a.example/media/1.png', description: 'a red square', width: 64, height: 48, blurhash: BLURHASH, focus: { x: 0.5, y: -0.25 } },
    { url: 'https://a.example/media/2.png', blurhash: null, focus: null },
  ]);
  const alone = await remoteMediaOf(() => h.core.ids.next(), object as NonNullable<typeof object>);
  t.match(alone[0], { url: 'https://a.example/media/1.png', blurhash: null, focus: null }, 'the embedded object alone has lost them: the JSON as received is read');
});
