// The preview cards fetcher: private, loopback and link-local addresses refused (literal, by DNS
// name, and after a redirect), in every spelling a URL can give them, with 127.0.0.1 playing a
// public server; a local page fetched when a test allows it, and made a card.

import { createServer } from 'node:http';
import t from 'tap';
import { FetchRefused, nodeFetcher } from '../../plugins/cards/index.ts';
import { cardFromPage } from '../../plugins/cards/parse.ts';

const requests: string[] = [];
const server = createServer((req, res) => {
  requests.push(req.url ?? '');
  if (req.url === '/redirect') {
    res.writeHead(302, { location: `http://127.0.0.2:${port}/page` }).end();
    return;
  }
  if (req.url?.startsWith('/to?')) {
    res.writeHead(302, { location: new URL(req.url, 'http://x').searchParams.get('url') ?? '/' }).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<html lang="en"><head><title>Fallback</title><meta property="og:title" content="A &amp; B"><meta property="og:description" content="About it"><meta property="og:image" content="/i.png"></head></html>');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as { port: number }).port;
t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));

t.test('refusals: loopback literal, a name resolving to loopback, private ranges, a redirect to loopback', async (t) => {
  const fetcher = nodeFetcher();
  for (const url of [`http://127.0.0.1:${port}/page`, `http://localhost:${port}/page`, 'http://10.0.0.1/', 'http://169.254.169.254/latest', 'http://[::1]/', 'http://192.168.1.1/']) {
    await t.rejects(fetcher.fetch(url, 'text/html'), FetchRefused, url);
  }
  const onlyFirst = nodeFetcher({ allowPrivateAddresses: (address) => address === '127.0.0.1' });
  await t.rejects(onlyFirst.fetch(`http://127.0.0.1:${port}/redirect`, 'text/html'), { message: 'refused: 127.0.0.2 is not a public address (loopback)' }, 'the redirect target is checked too');
});

/** The private addresses a hostile link or redirect may carry, as URL parsing writes them. */
const PRIVATE_FORMS: readonly (readonly [string, string])[] = [
  [`http://[::ffff:7f00:1]:${port}/page`, 'refused: ::ffff:7f00:1 is not a public address (loopback)'],
  [`http://[::ffff:127.0.0.1]:${port}/page`, 'refused: ::ffff:7f00:1 is not a public address (loopback)'],
  [`http://[::ffff:a9fe:a9fe]:${port}/latest/meta-data/`, 'refused: ::ffff:a9fe:a9fe is not a public address (link-local)'],
  [`http://[::ffff:a00:1]:${port}/page`, 'refused: ::ffff:a00:1 is not a public address (private)'],
  [`http://[::127.0.0.1]:${port}/page`, 'refused: ::7f00:1 is not a public address (IPv4-compatible)'],
  [`http://[::a9fe:a9fe]:${port}/page`, 'refused: ::a9fe:a9fe is not a public address (IPv4-compatible)'],
  [`http://[64:ff9b::7f00:1]:${port}/page`, 'refused: 64:ff9b::7f00:1 is not a public address (NAT64 of loopback)'],
  [`http://[64:ff9b:1::a9fe:a9fe]:${port}/page`, 'refused: 64:ff9b:1::a9fe:a9fe is not a public address (local-use NAT64, which may embed any IPv4 address)'],
  [`http://[::1]:${port}/page`, 'refused: ::1 is not a public address (loopback)'],
  [`http://169.254.169.254:${port}/latest/meta-data/`, 'refused: 169.254.169.254 is not a public address (link-local)'],
  [`http://100.64.0.1:${port}/page`, 'refused: 100.64.0.1 is not a public address (carrier-grade NAT)'],
  [`http://0.0.0.0:${port}/page`, 'refused: 0.0.0.0 is not a public address ("this network")'],
];

t.test('every spelling of a private address is refused: as the card URL, and after a redirect from a public page', async (t) => {
  const fetcher = nodeFetcher({ allowPrivateAddresses: (address) => address === '127.0.0.1' });
  requests.length = 0;
  for (const [url, message] of PRIVATE_FORMS) {
    await t.rejects(fetcher.fetch(url, 'text/html'), { name: 'FetchRefused', message }, url);
    await t.rejects(fetcher.fetch(`http://127.0.0.1:${port}/to?url=${encodeURIComponent(url)}`, 'text/html'), { name: 'FetchRefused', message }, `a redirect to ${url}`);
  }
  t.ok(requests.every((path) => path.startsWith('/to?')), 'only the public pages were reached');
  t.equal(requests.length, PRIVATE_FORMS.length);
});

t.test('a local page, allowed for the test, becomes a card', async (t) => {
  const fetcher = nodeFetcher({ allowPrivateAddresses: true });
  const card = await cardFromPage(fetcher, `http://127.0.0.1:${port}/page`, 1000, () => '42');
  t.same([card?.title, card?.description, card?.image, card?.type, card?.language], ['A & B', 'About it', `http://127.0.0.1:${port}/i.png`, 'link', 'en']);
});
