// Rack-style nesting as Rails does it, its bounds, and the keys it never writes.

import t from 'tap';
import { RookeryError } from '../../../../core/domain/errors.ts';
import { nestParams, parseUrlEncoded } from '../../../../core/mastodon/http/rack.ts';

const parse = (text: string) => parseUrlEncoded(text, 'the query string');

function refusal(run: () => unknown): { status: number; message: string } {
  try {
    run();
  } catch (err) {
    if (err instanceof RookeryError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error('accepted');
}

t.test('nesting as Rails does it', async (t) => {
  const cases: [string, unknown][] = [
    ['', {}],
    ['a=1&b=2', { a: '1', b: '2' }],
    ['a=1&a=2', { a: '2' }],
    ['a[]=1&a[]=2', { a: ['1', '2'] }],
    ['a[]=1&a=2', { a: '2' }],
    ['poll[options][]=x&poll[options][]=y&poll[expires_in]=300', { poll: { options: ['x', 'y'], expires_in: '300' } }],
    ['a[b][c]=d', { a: { b: { c: 'd' } } }],
    ['fields_attributes[0][name]=x&fields_attributes[0][value]=y&fields_attributes[1][name]=z', { fields_attributes: { '0': { name: 'x', value: 'y' }, '1': { name: 'z' } } }],
    ['x[][y]=1&x[][z]=2', { x: [{ y: '1', z: '2' }] }],
    ['x[][y]=1&x[][y]=2', { x: [{ y: '1' }, { y: '2' }] }],
    ['x[][y][z]=1&x[][y][w]=2', { x: [{ y: { z: '1', w: '2' } }] }],
    ['a[][]=1', { a: [['1']] }],
    ['a[b=1', { a: { '[b': '1' } }],
    ['a[=1', { 'a[': '1' }],
    ['a[b]c=1', { a: { b: { c: '1' } } }],
    ['flag&empty=', { flag: '', empty: '' }],
    ['&&a=1&&', { a: '1' }],
    ['=1&[]=2', { '[]': '2' }],
    ['text=a+b%20c%2B&caf%C3%A9=%E2%9C%93', { text: 'a b c+', 'café': '✓' }],
    ['n=1&t=true', { n: '1', t: 'true' }],
  ];
  for (const [text, expected] of cases) t.strictSame(parse(text), expected, text === '' ? 'empty' : text);
});

t.test('keys that reach a prototype are dropped; inherited names are ordinary keys', async (t) => {
  t.strictSame(parse('__proto__[polluted]=1&constructor[prototype][polluted]=1&a[__proto__][b]=1&a[prototype]=2&ok=1'), { a: {}, ok: '1' });
  t.equal(({} as Record<string, unknown>)['polluted'], undefined, 'Object.prototype untouched');
  t.strictSame(parse('toString[]=1&hasOwnProperty[x]=2&valueOf=3'), { toString: ['1'], hasOwnProperty: { x: '2' }, valueOf: '3' });
});

t.test('conflicting shapes are a 400, as in Rails', async (t) => {
  t.same(refusal(() => parse('a=1&a[]=2')), { status: 400, message: 'Invalid parameters: expected Array (got String) for param "a"' });
  t.same(refusal(() => parse('a[]=1&a[b]=2')), { status: 400, message: 'Invalid parameters: expected Hash (got Array) for param "a"' });
  t.same(refusal(() => parse('a[b]=1&a[]=2')), { status: 400, message: 'Invalid parameters: expected Array (got Hash) for param "a"' });
  t.same(refusal(() => parse('a[b]=1&a[b][c]=2')), { status: 400, message: 'Invalid parameters: expected Hash (got String) for param "b"' });
  t.same(refusal(() => parse(`${'k'.repeat(300)}=1&${'k'.repeat(300)}[]=2`)).message, `Invalid parameters: expected Array (got String) for param "${'k'.repeat(100)}"`, 'a long key is cut short');
});

t.test('bounded: 1000 parameters, 5 levels', async (t) => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => `p${i}=${i}`).join('&');
  t.equal(Object.keys(parse(many(1000))).length, 1000);
  t.same(refusal(() => parse(many(1001))), { status: 400, message: 'Too many parameters (at most 1000)' });
  t.equal((parse(Array.from({ length: 1000 }, () => 'a[]=x').join('&'))['a'] as string[]).length, 1000, 'a long list is still a list');
  t.strictSame(parse(`${'&'.repeat(5000)}a=1`), { a: '1' }, 'empty pieces do not count');
  t.strictSame(parse('a[1][2][3][4][5]=x'), { a: { '1': { '2': { '3': { '4': { '5': 'x' } } } } } });
  t.same(refusal(() => parse('a[1][2][3][4][5][6]=x')), { status: 400, message: 'Parameters nested too deeply (at most 5 levels)' });
  t.same(refusal(() => parse('a[][b][][c][][d][][e][][f][][g]=x')), { status: 400, message: 'Parameters nested too deeply (at most 5 levels)' });
});

t.test('bad percent-encoding is a 400, never a throw of another kind', async (t) => {
  for (const text of ['a=%E0%A4%A', '%ZZ=1', 'a=%', 'a=%FF']) {
    t.same(refusal(() => parse(text)), { status: 400, message: 'Invalid %-encoding in the query string' }, text);
  }
  t.same(refusal(() => parseUrlEncoded('a=%', 'the request body')).message, 'Invalid %-encoding in the request body');
});

t.test('files are values, never hashes', async (t) => {
  class File {
    filename = 'a.png';
    contentType = 'image/png';
    size = 1;
    path = null;
    async read() {
      return new Uint8Array([1]);
    }
    async bytes() {
      return new Uint8Array([1]);
    }
  }
  const one = new File();
  const two = new File();
  const params = nestParams([['media[]', one], ['media[]', two], ['file', one], ['meta[file]', two], ['meta[name]', 'n']]);
  t.equal((params['media'] as unknown[])[0], one);
  t.equal((params['media'] as unknown[])[1], two);
  t.equal(params['file'], one);
  t.same(params['meta'], { file: two, name: 'n' });
  t.same(refusal(() => nestParams([['f', one], ['f[x]', 'y']])), { status: 400, message: 'Invalid parameters: expected Hash (got String) for param "f"' });
});
