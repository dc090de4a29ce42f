// Preview cards end to end: a status linking to a page served here (127.0.0.1, allowed by the
// plugin's test-only option) gets its card through the queue; the Status, operation 17 and a
// `status.update` on the live stream then carry it. Without the option the same link stays
// card-less along the whole path, and so does a page that is not HTML; with 127.0.0.1 alone
// playing a public server, no other spelling of loopback or link-local gets through. The page's
// picture is fetched once and kept by the media plugin: readers load it from this instance.

import { createServer } from 'node:http';
import sharp from 'sharp';
import t from 'tap';
import { cardsPlugin } from '../../plugins/cards/index.ts';
import { mediaPlugin } from '../../plugins/media/index.ts';
import { harness, type Harness, type TestUser } from '../helpers/harness.ts';
import { openStream } from '../helpers/streams.ts';

const rook = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#334' } }).png().toBuffer();
const page = (picture: string) =>
  '<html lang="en"><head><title>Fallback title</title>' +
  '<meta property="og:title" content="Rooks &amp; crows">' +
  '<meta property="og:description" content="Corvids, explained">' +
  '<meta property="og:site_name" content="Bird Notes">' +
  `<meta property="og:image" content="${picture}"></head><body>page</body></html>`;
const requests: string[] = [];
const userAgents: string[] = [];
const server = createServer((req, res) => {
  requests.push(req.url ?? '');
  userAgents.push(req.headers['user-agent'] ?? '');
  if (req.url?.startsWith('/to?')) {
    res.writeHead(302, { location: new URL(req.url, 'http://x').searchParams.get('url') ?? '/' }).end();
    return;
  }
  if (req.url === '/plain') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('just text');
    return;
  }
  if (req.url === '/rook.png') {
    res.writeHead(200, { 'content-type': 'image/png' }).end(rook);
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  const picture = { '/page': '/rook.png', '/not-a-picture': '/plain', '/far-picture': `http://[::ffff:7f00:1]:${port}/rook.png` }[req.url ?? ''];
  res.end(page(picture ?? '/rook.png'));
});
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
const port = (server.address() as { port: number }).port;
const pageUrl = `http://127.0.0.1:${port}/page`;
t.teardown(() => new Promise<void>((closed) => server.close(() => closed())));

let h: Harness;
let alice: TestUser;
let bob: TestUser;
const open = async (allow: boolean | ((address: string) => boolean), media = true) => {
  const cards = cardsPlugin(allow === false ? {} : { fetch: { allowPrivateAddresses: allow } });
  h = await harness({ plugins: media ? [mediaPlugin(), cards] : [cards] });
  alice = await h.user('alice');
  bob = await h.user('bob');
};
t.beforeEach(() => {
  requests.length = 0;
  userAgents.length = 0;
});
t.afterEach(() => h.close());

const publish = async (text: string) => (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: text } })).json;

t.test('a link to a local page, allowed for tests: the card arrives through the queue', async (t) => {
  await open(true);
  const { sink } = await openStream(h, bob, 'public');
  const posted = await publish(`Read this: ${pageUrl} #birds`);
  t.equal(posted.card, null, 'the publish response does not wait for the card');
  t.same(requests, ['/page', '/rook.png'], 'the page and its picture fetched once, by the job');
  t.same(userAgents, [`Rookery/0.1.0 (+${h.core.config.baseUrl})`, `Rookery/0.1.0 (+${h.core.config.baseUrl})`], 'saying who fetches them');

  const expected = {
    url: pageUrl,
    title: 'Rooks & crows',
    description: 'Corvids, explained',
    type: 'link',
    provider_name: 'Bird Notes',
    image: new RegExp(`^${h.core.config.baseUrl}/system/media/card-\\d+-\\d+\\.jpg$`),
    width: 64,
    height: 48,
    blurhash: /^[0-9A-Za-z#$%*+,-.:;=?@[\]^_{|}~]{28}$/,
  };
  const viewed = await h.request('GET', `/api/v1/statuses/${posted.id}`);
  t.equal(viewed.statusCode, 200);
  t.match(viewed.json.card, expected, 'GET /api/v1/statuses/:id shows the card, its picture served here');
  const picture = await h.request('GET', new URL(viewed.json.card.image).pathname);
  t.same([picture.statusCode, picture.headers['content-type']], [200, 'image/jpeg'], 'the picture, from this instance');
  const shape = await sharp(picture.raw).metadata();
  t.same([shape.format, shape.width, shape.height], ['jpeg', 64, 48]);
  const card = await h.request('GET', `/api/v1/statuses/${posted.id}/card`);
  t.equal(card.statusCode, 200);
  t.same(card.json, viewed.json.card, 'operation 17 answers the same card');

  t.same(sink.events(), [`update ${posted.id}`, `status.update ${posted.id}`], 'the status, then a status.update when its card arrived');
  const [first, second] = sink.received;
  t.equal(first?.payload.card, null);
  t.match(second?.payload.card, expected, 'the status.update carries the card');

  const boost = (await h.request('POST', `/api/v1/statuses/${posted.id}/reblog`, { token: bob.token })).json;
  t.match(boost.reblog.card, expected, 'a boost shows the original\'s card');
  t.same((await h.request('GET', `/api/v1/statuses/${boost.id}/card`)).json, card.json, 'and operation 17 on the boost answers it');

  const again = await publish(`Same page again ${pageUrl}`);
  t.same(requests, ['/page', '/rook.png'], 'a second status with the same link reuses the card, no second fetch');
  t.match((await h.request('GET', `/api/v1/statuses/${again.id}`)).json.card, expected);

  // Past 14 days the page is read again: its picture under a new name, the old one gone.
  h.clock.advance(15 * 86_400_000);
  const later = await publish(`Much later ${pageUrl}`);
  t.same(requests, ['/page', '/rook.png', '/page', '/rook.png'], 'fetched again');
  const refreshed = (await h.request('GET', `/api/v1/statuses/${later.id}`)).json.card;
  t.match(refreshed, expected);
  t.not(refreshed.image, viewed.json.card.image, 'a new name: the files are served as immutable');
  t.equal((await h.request('GET', new URL(refreshed.image).pathname)).statusCode, 200);
  t.equal((await h.request('GET', new URL(viewed.json.card.image).pathname)).statusCode, 404, 'the old picture is removed');
  t.same(await h.core.queue.deadLetters(10), [], 'no job died');
});

const viewCard = async (id: string) => (await h.request('GET', `/api/v1/statuses/${id}`)).json.card;
// The spec types a card's image as a string: none is ''.
const pictureless = { title: 'Rooks & crows', image: '', width: 0, height: 0, blurhash: null };

t.test('a picture that cannot be kept: the card comes without one, never with the third party\'s URL', async (t) => {
  await open((address) => address === '127.0.0.1');
  const far = await publish(`Far http://127.0.0.1:${port}/far-picture`);
  const notPicture = await publish(`Not one http://127.0.0.1:${port}/not-a-picture`);
  t.match(await viewCard(far.id), pictureless, 'a picture at a refused address');
  t.match(await viewCard(notPicture.id), pictureless, 'a picture that is not an image');
  t.same(requests, ['/far-picture', '/not-a-picture', '/plain'], 'the refused address was never dialled');
  t.same(await h.core.queue.deadLetters(10), [], 'no job died');
});

t.test('without the media plugin, no picture is fetched and the card has none', async (t) => {
  await open(true, false);
  const posted = await publish(`No media plugin ${pageUrl}`);
  t.match(await viewCard(posted.id), pictureless);
  t.same(requests, ['/page']);
});

t.test('a page that is not HTML: no card, nothing on the stream', async (t) => {
  await open(true);
  const { sink } = await openStream(h, bob, 'public');
  const posted = await publish(`Plain http://127.0.0.1:${port}/plain`);
  t.same(requests, ['/plain'], 'fetched');
  t.equal((await h.request('GET', `/api/v1/statuses/${posted.id}`)).json.card, null);
  t.same((await h.request('GET', `/api/v1/statuses/${posted.id}/card`)).json, {});
  t.same(sink.events(), [`update ${posted.id}`]);
});

t.test('without the option, a link to 127.0.0.1 stays card-less along the whole path', async (t) => {
  await open(false);
  const { sink } = await openStream(h, bob, 'public');
  const posted = await publish(`Read this: ${pageUrl}`);
  t.same(requests, [], 'nothing was fetched: the address was refused before connecting');
  const viewed = await h.request('GET', `/api/v1/statuses/${posted.id}`);
  t.equal(viewed.json.card, null, 'no card on the Status');
  const card = await h.request('GET', `/api/v1/statuses/${posted.id}/card`);
  t.same([card.statusCode, card.json], [200, {}], 'operation 17: {}');
  t.same(sink.events(), [`update ${posted.id}`], 'no status.update');
  t.equal(await h.core.queue.size(), 0, 'no job left to retry');
  t.same(await h.core.queue.deadLetters(10), [], 'and none died: a refusal is final, not a failure');
  const localhost = await publish(`And by name http://localhost:${port}/page`);
  t.equal((await h.request('GET', `/api/v1/statuses/${localhost.id}`)).json.card, null, 'a name resolving to loopback is refused too');
  t.same(requests, []);
});

t.test('with 127.0.0.1 playing a public server, links and redirects to its other spellings get no card', async (t) => {
  await open((address) => address === '127.0.0.1');
  const forms = [`http://[::ffff:7f00:1]:${port}/page`, `http://[::ffff:127.0.0.1]:${port}/page`, `http://[::127.0.0.1]:${port}/page`, `http://[::ffff:a9fe:a9fe]:${port}/page`, `http://[64:ff9b::7f00:1]:${port}/page`];
  for (const url of forms) {
    const direct = await publish(`Look ${url}`);
    t.equal((await h.request('GET', `/api/v1/statuses/${direct.id}`)).json.card, null, url);
    const redirected = await publish(`Look http://127.0.0.1:${port}/to?url=${encodeURIComponent(url)}`);
    t.equal((await h.request('GET', `/api/v1/statuses/${redirected.id}`)).json.card, null, `a redirect to ${url}`);
  }
  t.same(requests, forms.map((url) => `/to?url=${encodeURIComponent(url)}`), 'only the public pages were fetched, never a target');
  t.same(await h.core.queue.deadLetters(10), [], 'refusals are final, not failures');
});

t.test('operation 17: 404 for a missing or invisible status', async (t) => {
  await open(true);
  for (const id of ['999999999', 'nope']) t.same((await h.request('GET', `/api/v1/statuses/${id}/card`)).json, { error: 'Record not found' });
  const secret = (await h.request('POST', '/api/v1/statuses', { token: alice.token, payload: { status: `private ${pageUrl}`, visibility: 'private' } })).json;
  const hidden = await h.request('GET', `/api/v1/statuses/${secret.id}/card`);
  t.same([hidden.statusCode, hidden.json], [404, { error: 'Record not found' }], 'anonymous reader of a private status');
  t.match((await h.request('GET', `/api/v1/statuses/${secret.id}/card`, { token: alice.token })).json, { title: 'Rooks & crows' }, 'its author sees the card');
});
