// An app that runs as several processes: storage on MongoDB (a replica set), live events
// between processes over Redis. Jobs stay in MongoDB: each write records its own, atomically.
import { createServer } from 'node:http';
import { openMongoStorage } from 'rookery/mongodb';
import { createNodeHandler, createNodeRookery } from 'rookery/node';
import { createRedisBus } from 'rookery/redis';

const port = Number(process.env['PORT'] ?? 3000);
const rookery = await createNodeRookery({
  config: { domain: 'social.example' },
  storage: await openMongoStorage({ url: process.env['MONGODB_URI'] ?? 'mongodb://127.0.0.1:27017/rookery?replicaSet=rs0' }),
  bus: await createRedisBus({ url: process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379', prefix: 'rookery:' }),
});
const mastodonApi = createNodeHandler(rookery);
createServer((req, res) => mastodonApi(req, res, () => res.writeHead(404).end())).listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
