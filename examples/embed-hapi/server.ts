// An existing hapi app that mounts Rookery beside its own routes.
import Hapi from '@hapi/hapi';
import { rookeryHapi } from 'rookery/hapi';
import { createNodeRookery } from 'rookery/node';
import { openSqliteStorage } from 'rookery/sqlite';

const port = Number(process.env['PORT'] ?? 3000);
const server = Hapi.server({ port, host: '127.0.0.1' });
server.route({ method: 'GET', path: '/', handler: () => 'My app, now with a Mastodon API' });

const rookery = await createNodeRookery({
  config: { domain: `localhost:${port}`, baseUrl: `http://localhost:${port}` },
  storage: openSqliteStorage({ path: process.env['DB'] ?? 'rookery.sqlite3' }),
});
await server.register({ plugin: rookeryHapi, options: { rookery } });
await server.start();
console.log(`listening on ${server.info.uri}`);
