// A plain node:http app with Rookery mounted and an app-made plugin (./plugin.ts) beside the
// stock ones: the whole Mastodon API, plus GET /api/v1/digest.
import { createServer } from 'node:http';
import { createNodeHandler, createNodeRookery } from 'rookery/node';
import { pollsPlugin } from 'rookery/plugins/polls';
import { openSqliteStorage } from 'rookery/sqlite';
import { digestPlugin } from './plugin.ts';

const port = Number(process.env['PORT'] ?? 3000);
const rookery = await createNodeRookery({
  config: { domain: `localhost:${port}`, baseUrl: `http://localhost:${port}` },
  storage: openSqliteStorage({ path: process.env['DB'] ?? 'rookery.sqlite3' }),
  plugins: [pollsPlugin(), digestPlugin({ keep: 50, onRecorded: (status) => console.log(`digest: recorded ${status.id}`) })],
});
const mastodonApi = createNodeHandler(rookery);

const server = createServer((req, res) => {
  if (req.url === '/') return void res.end('My app, now with a Mastodon API and a digest');
  mastodonApi(req, res, () => res.writeHead(404).end('Not here'));
});
server.listen(port, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`));
