// The yardstick: a bare node:http server that answers every request with the same bytes Rookery
// answered (read from stdin at start), so the benchmark can report Rookery's cost as a ratio
// to the least any node:http server could spend on that response.

import { createServer } from 'node:http';

const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const body = Buffer.concat(chunks);
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.byteLength) };
const server = createServer((req, res) => {
  // Drain a request body, as any server must.
  req.resume();
  req.once('end', () => {
    res.writeHead(200, headers);
    res.end(body);
  });
});
server.listen(Number(process.argv[2]), '127.0.0.1', () => console.log('bare server up'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
