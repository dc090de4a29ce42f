// The preview cards fetcher: private, loopback and link-local addresses refused (literal, by DNS
// name, and after a redirect); a local page fetched when a test allows it, and made a card.

import { createServer } from 'node:http';
import t from 'tap';
import { FetchRefused, nodeFetcher } from '../../plugins/cards/index.ts';
import { cardFromPage } from '../../plugins/cards/parse.ts';

const server = createServer((req, res) => {
  if (req.url === '/redirect') {
    res.writeHead(302, { location: `http://127.0.0.2:${port}/page` }).end();
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
  await t.rejects(onlyFirst.fetch(`http://127.0.0.1:${port}/redirect`, 'text/html'), { message: 'refused: 127.0.0.2 is not a public address' }, 'the redirect target is checked too');
});

t.test('a local page, allowed for the test, becomes a card', async (t) => {
  const fetcher = nodeFetcher({ allowPrivateAddresses: true });
  const card = await cardFromPage(fetcher, `http://127.0.0.1:${port}/page`, 1000, () => '42');
  t.same([card?.title, card?.description, card?.image, card?.type, card?.language], ['A & B', 'About it', `http://127.0.0.1:${port}/i.png`, 'link', 'en']);
});
