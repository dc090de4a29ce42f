// The fetcher every outgoing request goes through, over real sockets on loopback. A test hook
// lets 127.0.0.1 (and nothing else) play a public server; every other spelling of a private
// address, in the URL or in a redirect from that "public" page, is refused before anything is
// dialled; a name's DNS answers and the address actually connected to are judged; bodies stop
// at their limit, however they come; and every request says who sends it.

import { createServer, type ServerResponse } from 'node:http';
import { once } from 'node:events';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { createFetcher, FetchRefused, type Hop } from '../../../adapters/node/index.ts';

const USER_AGENT = 'Rookery/0.1.0 (+https://rookery.test)';
const hits = new Map<string, number>();
const streams: { res: ServerResponse; written: number; closed: Promise<unknown> }[] = [];
const silent: ServerResponse[] = [];
const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024));

function streamForever(res: ServerResponse, headers: Record<string, string | number>): void {
  res.writeHead(200, { 'content-type': 'text/html', ...headers });
  const stream = { res, written: 0, closed: once(res, 'close') };
  streams.push(stream);
  const chunk = Buffer.alloc(16 * 1024, 'a');
  const more = () => {
    while (!res.destroyed) {
      stream.written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
  };
  more();
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
  switch (url.pathname) {
    case '/page':
      return void res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok</title>');
    case '/redirect':
      return void res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
    case '/headers':
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers));
    case '/forever':
      return streamForever(res, {});
    case '/declared':
      return streamForever(res, { 'content-length': 10 * 1024 * 1024 });
    case '/bomb':
      return void res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': bomb.length }).end(bomb);
    case '/silent':
      return void silent.push(res);
    default: {
      const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
      if (chain) return void res.writeHead(301, { location: `/chain/${Number(chain[1]) + 1}` }).end();
      res.writeHead(404).end();
    }
  }
});
await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
const port = (server.address() as { port: number }).port;
const origin = `http://127.0.0.1:${port}`;
t.teardown(() => {
  for (const res of [...silent, ...streams.map((s) => s.res)]) res.destroy();
  server.closeAllConnections();
  return new Promise<void>((closed) => server.close(() => closed()));
});

/** 127.0.0.1, spelt so, is the public server of these tests; nothing else is. */
const fetcher = createFetcher({ userAgent: USER_AGENT, allowPrivateAddresses: (address) => address === '127.0.0.1' });

/** Private addresses in the spellings a URL can carry them (as URL parsing writes them), and
 * what the refusal names. */
const PRIVATE: readonly (readonly [string, string, string])[] = [
  [`http://[::ffff:7f00:1]:${port}/page`, '::ffff:7f00:1', 'loopback'],
  [`http://[::ffff:127.0.0.1]:${port}/page`, '::ffff:7f00:1', 'loopback'],
  [`http://[0:0:0:0:0:ffff:7f00:1]:${port}/page`, '::ffff:7f00:1', 'loopback'],
  [`http://[::127.0.0.1]:${port}/page`, '::7f00:1', 'IPv4-compatible'],
  [`http://[64:ff9b::127.0.0.1]:${port}/page`, '64:ff9b::7f00:1', 'NAT64 of loopback'],
  [`http://[64:ff9b:1::7f00:1]:${port}/page`, '64:ff9b:1::7f00:1', 'local-use NAT64, which may embed any IPv4 address'],
  [`http://[::1]:${port}/page`, '::1', 'loopback'],
  [`http://127.0.0.2:${port}/page`, '127.0.0.2', 'loopback'],
  [`http://2130706434:${port}/page`, '127.0.0.2', 'loopback'],
  [`http://0.0.0.0:${port}/page`, '0.0.0.0', '"this network"'],
  ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'link-local'],
  ['http://[::ffff:a9fe:a9fe]/latest/meta-data/', '::ffff:a9fe:a9fe', 'link-local'],
  ['http://[::ffff:169.254.169.254]/latest/meta-data/', '::ffff:a9fe:a9fe', 'link-local'],
  ['http://[64:ff9b::a9fe:a9fe]/latest/meta-data/', '64:ff9b::a9fe:a9fe', 'NAT64 of link-local'],
  ['http://[::a9fe:a9fe]/latest/meta-data/', '::a9fe:a9fe', 'IPv4-compatible'],
  ['http://10.0.0.1/', '10.0.0.1', 'private'],
  ['http://[::ffff:a00:1]/', '::ffff:a00:1', 'private'],
  ['http://172.16.0.1/', '172.16.0.1', 'private'],
  ['http://192.168.0.1/', '192.168.0.1', 'private'],
  ['http://[64:ff9b::c0a8:1]/', '64:ff9b::c0a8:1', 'NAT64 of private'],
  ['http://100.64.0.1/', '100.64.0.1', 'carrier-grade NAT'],
  ['http://[fe80::1]/', 'fe80::1', 'link-local'],
  ['http://[fd00::1]/', 'fd00::1', 'unique local'],
  ['http://[::]/', '::', 'unspecified'],
  ['http://224.0.0.1/', '224.0.0.1', 'multicast'],
  ['http://240.0.0.1/', '240.0.0.1', 'reserved'],
];

t.test('each private spelling in the URL is refused, before anything is dialled', async (t) => {
  for (const [url, literal, range] of PRIVATE) {
    await t.rejects(fetcher.fetch(url), { name: 'FetchRefused', message: `refused: ${literal} is not a public address (${range})` }, url);
  }
  t.equal(hits.get('/page') ?? 0, 0, 'the loopback server saw none of them');
  const page = await fetcher.fetch(`${origin}/page`);
  t.same([page.status, page.body.toString()], [200, '<title>ok</title>'], 'while the "public" server is reached');
});

t.test('a redirect from a public page to each private spelling is refused', async (t) => {
  hits.clear();
  for (const [url, literal, range] of PRIVATE) {
    await t.rejects(fetcher.fetch(`${origin}/redirect?to=${encodeURIComponent(url)}`), { name: 'FetchRefused', message: `refused: ${literal} is not a public address (${range})` }, url);
  }
  t.equal(hits.get('/redirect'), PRIVATE.length, 'each public page was fetched');
  t.equal(hits.get('/page') ?? 0, 0, 'no redirect reached its target');
});

t.test('a name is judged by its DNS answers, and the address connected to is judged too', async (t) => {
  const strict = createFetcher({ userAgent: USER_AGENT });
  await t.rejects(strict.fetch(`${origin}/page`), { name: 'FetchRefused', message: 'refused: 127.0.0.1 is not a public address (loopback)' });
  const refused = await strict.fetch(`http://localhost:${port}/page`).catch((error: unknown) => error);
  t.ok(refused instanceof FetchRefused);
  t.match((refused as Error).message, /^refused: localhost resolves to (127\.0\.0\.1|::1), which is not a public address \(loopback\)$/);
  // The hook is asked at the lookup (yes) and again once connected (no): the second judgement
  // is the one that stops the request.
  let asked = 0;
  const changing = createFetcher({ userAgent: USER_AGENT, allowPrivateAddresses: (address) => address === '127.0.0.1' && ++asked === 1 });
  await t.rejects(changing.fetch(`http://localhost:${port}/page`), { name: 'FetchRefused', message: 'refused: connected to 127.0.0.1, which is not a public address (loopback)' });
  t.equal(asked, 2);
});

t.test('a body that never ends is refused at the limit, without reading it whole', async (t) => {
  const started = streams.length;
  await t.rejects(fetcher.fetch(`${origin}/forever`, { maxBytes: 65_536, timeoutMs: 60_000 }), { name: 'FetchRefused', message: 'refused: the body is larger than 65536 bytes' });
  const stream = streams[started];
  await stream?.closed;
  t.ok(stream?.res.destroyed, 'the connection was closed on the server that still had more to send');
  await t.rejects(fetcher.fetch(`${origin}/declared`, { maxBytes: 65_536, timeoutMs: 60_000 }), { name: 'FetchRefused', message: 'refused: the body is larger than 65536 bytes' }, 'a declared length over the limit');
  await t.rejects(fetcher.fetch(`${origin}/bomb`, { maxBytes: 1_048_576 }), { name: 'FetchRefused', message: 'refused: the body is larger than 1048576 bytes' }, 'a small compressed body counts as what it decodes to');
  const cut = await fetcher.fetch(`${origin}/forever`, { maxBytes: 1000, truncate: true });
  t.equal(cut.body.length, 1000, 'or cut there, when asked');
});

t.test('time and redirects are bounded', async (t) => {
  await t.rejects(fetcher.fetch(`${origin}/silent`, { timeoutMs: 200 }), { name: 'FetchRefused', message: 'refused: no complete answer within 200 ms' });
  await t.rejects(fetcher.fetch(`${origin}/chain/0`, { maxRedirects: 2 }), { name: 'FetchRefused', message: 'refused: more than 2 redirects' });
  const hops: string[] = [];
  const sign = async (hop: Hop) => {
    hops.push(hop.url.pathname);
    return { ...hop.headers, signature: `for ${hop.url.pathname}` };
  };
  const followed = await fetcher.fetch(`${origin}/redirect?to=/headers`, { sign });
  t.same([followed.url, followed.status, JSON.parse(followed.body.toString()).signature], [`${origin}/headers`, 200, 'for /headers'], 'each hop signed for itself');
  t.same(hops, ['/redirect', '/headers']);
  const posted = await fetcher.fetch(`${origin}/redirect?to=/page`, { method: 'POST', body: 'x' });
  t.equal(posted.status, 302, 'a POST is not redirected');
  await t.rejects(fetcher.fetch(`${origin}/page`, { httpsOnly: true }), { name: 'FetchRefused', message: 'refused: http: is not https' });
  await t.rejects(fetcher.fetch(`http://user:secret@127.0.0.1:${port}/page`), { name: 'FetchRefused', message: 'refused: a URL with credentials' });
  await t.rejects(fetcher.fetch(`file:///etc/passwd`), { name: 'FetchRefused', message: 'refused: file: is not http(s)' });
});

t.test('judge: the same policy, for a request another library sends', async (t) => {
  await fetcher.judge(`${origin}/inbox`);
  await t.rejects(fetcher.judge(`http://[::ffff:7f00:1]:${port}/inbox`), { name: 'FetchRefused', message: 'refused: ::ffff:7f00:1 is not a public address (loopback)' });
  await t.rejects(fetcher.judge('http://[64:ff9b::a9fe:a9fe]/inbox'), { name: 'FetchRefused', message: 'refused: 64:ff9b::a9fe:a9fe is not a public address (NAT64 of link-local)' });
  const byName = await createFetcher({ userAgent: USER_AGENT }).judge(`http://localhost:${port}/inbox`).catch((error: unknown) => error);
  t.match((byName as Error).message, /^refused: localhost resolves to (127\.0\.0\.1|::1), which is not a public address \(loopback\)$/);
  await t.rejects(fetcher.judge('ftp://127.0.0.1/'), { name: 'FetchRefused', message: 'refused: ftp: is not http(s)' });
});

t.test('every request says who sends it', async (t) => {
  const answer = await fetcher.fetch(`${origin}/headers`, { headers: { accept: 'application/json' } });
  const headers = JSON.parse(answer.body.toString()) as Record<string, string>;
  t.equal(headers['user-agent'], USER_AGENT);
  t.equal(headers['accept'], 'application/json');
  t.throws(() => createFetcher({} as never), { name: 'ConfigError', message: 'Invalid config: createFetcher: "userAgent" is required' });
});
