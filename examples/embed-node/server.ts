// A plain node:http app that mounts Rookery beside its own route.
import { createServer } from 'node:http';
import { createNodeHandler, createNodeRookery } from 'rookery/node';
import { openSqliteStorage } from 'rookery/sqlite';

const port = Number(process.env['PORT'] ?? 3000);
const rookery = await createNodeRookery({
  config: { domain: `localhost:${port}`, baseUrl: `http://localhost:${port}` },
  storage: openSqliteStorage({ path: process.env['DB'] ?? 'rookery.sqlite3' }),
});
const mastodonApi = createNodeHandler(rookery);

const server = createServer((req, res) => {
  if (req.url === '/') return void res.end('My app, now with a Mastodon API');
  // Everything Rookery does not serve comes back here, through next().
  mastodonApi(req, res, () => res.writeHead(404).end('Not in my app either'));
});
server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
