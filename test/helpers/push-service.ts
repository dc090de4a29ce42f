// A Web Push service for tests: an HTTP server on 127.0.0.1 that keeps what it is sent and
// answers with a status the test chooses, and a user agent's keys with which a test decrypts
// a message (RFC 8291 / RFC 8188, aes128gcm) and checks its VAPID signature (RFC 8292) using
// node:crypto alone, independently of the library that made them.

import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface PushService {
  /** http://127.0.0.1:<port> */
  origin: string;
  received: Received[];
  /** The status the next requests get (default 201). */
  answer: number;
  close(): Promise<void>;
}

export async function startPushService(): Promise<PushService> {
  const received: Received[] = [];
  let server: Server | null = null;
  const service: PushService = {
    origin: '',
    received,
    answer: 201,
    close: () => new Promise((done) => (server ? server.close(() => done()) : done())),
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(service.answer).end();
    });
  });
  await new Promise<void>((listening) => server?.listen(0, '127.0.0.1', () => listening()));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  service.origin = `http://127.0.0.1:${address.port}`;
  return service;
}

export interface UserAgentKeys {
  ecdh: ECDH;
  /** base64url, as a browser hands them to the client app */
  p256dh: string;
  auth: string;
}

export function userAgentKeys(): UserAgentKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

/** RFC 8291 decryption of an aes128gcm body (one record). */
export function decryptPush(body: Buffer, keys: UserAgentKeys): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20] ?? 0;
  const serverPublic = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const shared = keys.ecdh.computeSecret(serverPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), keys.ecdh.getPublicKey(), serverPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, Buffer.from(keys.auth, 'base64url'), keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('not the last record of an aes128gcm message');
  return padded.subarray(0, end).toString('utf8');
}

/** The claims of a VAPID Authorization header (`vapid t=<JWT>, k=<key>`) after checking its
 * ES256 signature against `serverKey`; throws when it does not verify. */
export function verifyVapid(authorization: string, serverKey: string): { aud: string; exp: number; sub: string } {
  const match = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(authorization);
  if (!match) throw new Error(`not a VAPID header: ${authorization}`);
  const [, header, claims, signature, key] = match as unknown as [string, string, string, string, string];
  if (key !== serverKey) throw new Error('signed with another key');
  const point = Buffer.from(serverKey, 'base64url');
  const publicKey = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const signed = verify('sha256', Buffer.from(`${header}.${claims}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!signed) throw new Error('the VAPID signature does not verify');
  const parsedHeader = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg: string };
  if (parsedHeader.alg !== 'ES256') throw new Error(`alg ${parsedHeader.alg}`);
  return JSON.parse(Buffer.from(claims, 'base64url').toString('utf8'));
}
