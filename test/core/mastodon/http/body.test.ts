// Request bodies by content type: JSON, form and multipart (fields, files, every malformation
// and bound), and the types and encodings that are refused.

import t from 'tap';
import type { UploadedFile } from '../../../../core/mastodon/endpoint/types.ts';
import { RookeryError } from '../../../../core/domain/errors.ts';
import { parseBody } from '../../../../core/mastodon/http/body.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const MALFORMED = { status: 400, message: 'Invalid multipart payload format' };

function refusal(run: () => unknown): { status: number; message: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof RookeryError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('accepted');
}

const json = (text: string) => parseBody(bytes(text), 'application/json', undefined);
const multipart = (text: string, type = 'multipart/form-data; boundary=B') => parseBody(bytes(text), type, undefined);
const part = (name: string, value: string, extra = '') => `--B\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n\r\n${value}\r\n`;

t.test('no body is no parameters, whatever the type', async (t) => {
  t.strictSame(parseBody(null, 'application/json', undefined), {});
  t.strictSame(parseBody(new Uint8Array(0), 'application/json', undefined), {}, 'an empty JSON body');
  t.strictSame(parseBody(new Uint8Array(0), 'text/plain', undefined), {}, 'an empty body of any type');
  t.strictSame(parseBody(new Uint8Array(0), undefined, undefined), {});
});

t.test('JSON', async (t) => {
  t.strictSame(json('{"status":"hi","media_ids":["1"],"poll":{"options":["a"]},"n":3,"b":true}'), { status: 'hi', media_ids: ['1'], poll: { options: ['a'] }, n: 3, b: true });
  t.strictSame(parseBody(bytes('{"a":1}'), 'Application/JSON; charset=utf-8', undefined), { a: 1 }, 'type parameters and case');
  t.strictSame(json('[1,2]'), {}, 'an array names no parameters');
  t.strictSame(json('"text"'), {});
  t.strictSame(json('null'), {});
  t.strictSame(json('{"__proto__":{"polluted":1},"a":{"constructor":{"prototype":1},"b":2}}'), { a: { b: 2 } }, 'prototype keys dropped');
  t.equal(({} as Record<string, unknown>)['polluted'], undefined);
  for (const bad of ['{"status":', '{status:1}', '  ', '{"a":1}x']) t.same(refusal(() => json(bad)), { status: 400, message: 'Invalid request payload JSON format' }, bad);
  t.same(refusal(() => parseBody(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 'application/json', undefined)), { status: 400, message: 'Invalid request payload JSON format' }, 'not UTF-8');
  const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
  t.strictSame(json(`{"a":${nest(31)}}`), { a: JSON.parse(nest(31)) }, '32 levels');
  t.same(refusal(() => json(`{"a":${nest(32)}}`)), { status: 400, message: 'JSON payload nested too deeply (at most 32 levels)' });
  t.strictSame(json(`{"a":"${'['.repeat(100)}\\"${'{'.repeat(100)}"}`), { a: `${'['.repeat(100)}"${'{'.repeat(100)}` }, 'brackets inside strings do not count');
});

t.test('forms', async (t) => {
  const form = (text: string, type = 'application/x-www-form-urlencoded') => parseBody(bytes(text), type, undefined);
  t.strictSame(form('status=hi+there&media_ids[]=1&media_ids[]=2&poll[options][]=a'), { status: 'hi there', media_ids: ['1', '2'], poll: { options: ['a'] } });
  t.strictSame(form('a=%C3%A9', 'application/x-www-form-urlencoded; charset=UTF-8'), { a: 'é' });
  t.same(refusal(() => form('a=%E0')), { status: 400, message: 'Invalid %-encoding in the request body' });
});

t.test('other types and compressed bodies: 415', async (t) => {
  const unsupported = { status: 415, message: 'Unsupported Media Type' };
  t.same(refusal(() => parseBody(bytes('status=hi'), 'text/plain', undefined)), unsupported);
  t.same(refusal(() => parseBody(bytes('status=hi'), undefined, undefined)), unsupported, 'a body without a type');
  t.same(refusal(() => parseBody(bytes('{}'), 'application/jsonx', undefined)), unsupported);
  t.same(refusal(() => parseBody(bytes('{}'), 'application/json', 'gzip')), unsupported);
  t.strictSame(parseBody(bytes('{}'), 'application/json', 'identity'), {});
});

t.test('multipart: fields nest, files become UploadedFile', async (t) => {
  const body = `preamble\r\n${part('status', 'héllo')}${part('poll[options][]', 'a')}${part('poll[options][]', 'b')}` +
    `--B\r\nContent-Disposition: form-data; name="file"; filename="cat;1.png"\r\nContent-Type: image/png\r\n\r\n\x01\x02\r\n` +
    `--B\r\ncontent-disposition: form-data; name=raw; filename=data.bin\r\n\r\nxyz\r\n` +
    `--B\r\nContent-Disposition: form-data; name="euro"; filename="x"; filename*=UTF-8''%E2%82%AC.txt\r\n\r\n\r\n` +
    `${part('empty_file', '', '; filename=""')}--B--\r\nepilogue`;
  const params = multipart(body);
  t.equal(params['status'], 'héllo');
  t.strictSame(params['poll'], { options: ['a', 'b'] });
  t.equal(params['empty_file'], '', 'a file input left empty is a plain field');
  const file = params['file'] as UploadedFile;
  t.same({ filename: file.filename, contentType: file.contentType, size: file.size, path: file.path, data: [...(await file.bytes())] }, { filename: 'cat;1.png', contentType: 'image/png', size: 2, path: null, data: [1, 2] });
  t.same([...(await file.read(1, 5))], [2], 'read: from an offset, no further than the end');
  const raw = params['raw'] as UploadedFile;
  t.same({ filename: raw.filename, contentType: raw.contentType, data: new TextDecoder().decode(await raw.bytes()) }, { filename: 'data.bin', contentType: 'application/octet-stream', data: 'xyz' });
  t.equal((params['euro'] as UploadedFile).filename, '€.txt', 'filename* wins');
  t.equal((params['euro'] as UploadedFile).size, 0);
  t.strictSame(multipart(`${part('a', '1')}--B--`, 'multipart/form-data; boundary="B"'), { a: '1' }, 'a quoted boundary');
  t.strictSame(multipart('--B--'), {}, 'no parts');
});

t.test('multipart: every malformation is a 400 in the error shape', async (t) => {
  const cases: [string, string, string?][] = [
    ['no boundary parameter', part('a', '1') + '--B--', 'multipart/form-data'],
    ['an empty boundary', part('a', '1') + '--B--', 'multipart/form-data; boundary='],
    ['a boundary over 70 characters', part('a', '1') + '--B--', `multipart/form-data; boundary=${'b'.repeat(71)}`],
    ['no delimiter at all', 'just text'],
    ['no closing delimiter', part('a', '1')],
    ['a part cut short', '--B\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue without end'],
    ['headers never end', '--B\r\nContent-Disposition: form-data; name="a"\r\n'],
    ['no line break after the delimiter', '--Bx\r\n\r\n\r\n--B--'],
    ['the boundary inside a value (RFC 2046 forbids it)', `${part('a', 'x\r\n--Bmore')}--B--`],
    ['no Content-Disposition', '--B\r\nContent-Type: text/plain\r\n\r\n1\r\n--B--'],
    ['no headers at all', '--B\r\n\r\n1\r\n--B--'],
    ['not form-data', '--B\r\nContent-Disposition: attachment; name="a"\r\n\r\n1\r\n--B--'],
    ['no name', '--B\r\nContent-Disposition: form-data; filename="a"\r\n\r\n1\r\n--B--'],
    ['a header line without a colon', '--B\r\nContent-Disposition form-data\r\n\r\n1\r\n--B--'],
    ['part headers over 8 KiB', `--B\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ${'p'.repeat(8200)}\r\n\r\n1\r\n--B--`],
  ];
  for (const [label, body, type] of cases) t.same(refusal(() => multipart(body, type)), MALFORMED, label);
  const many = Array.from({ length: 1001 }, (_, i) => part(`p${i}`, 'x')).join('') + '--B--';
  t.same(refusal(() => multipart(many)), { status: 400, message: 'Too many parameters (at most 1000)' });
  t.equal(Object.keys(multipart(Array.from({ length: 1000 }, (_, i) => part(`p${i}`, 'x')).join('') + '--B--')).length, 1000);
});
