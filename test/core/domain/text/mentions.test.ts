import t from 'tap';
import { extractEntities } from '../../../../core/domain/text/entities.ts';

const mentions = (text: string) => extractEntities(text).filter((e) => e.kind === 'mention');

t.test('a local mention', async (t) => {
  t.strictSame(extractEntities('@bob'), [{ kind: 'mention', username: 'bob', domain: null, start: 0, end: 4 }]);
  t.strictSame(mentions('hi @bob.'), [{ kind: 'mention', username: 'bob', domain: null, start: 3, end: 7 }]);
});

t.test('a remote mention covers @user@domain, both as typed', async (t) => {
  t.strictSame(mentions('cc @Bob@Remote.Example!'), [
    { kind: 'mention', username: 'Bob', domain: 'Remote.Example', start: 3, end: 22 },
  ]);
  t.strictSame(mentions('@bob@remote.example.'), [
    { kind: 'mention', username: 'bob', domain: 'remote.example', start: 0, end: 19 },
  ], 'a trailing dot ends the domain');
  t.strictSame(mentions('@ana@mañana.es')[0]?.domain, 'mañana.es', 'domains may be internationalised');
});

t.test('a remote domain may carry a port (two instances on one machine)', async (t) => {
  t.strictSame(mentions('hi @dave@localhost:4000!'), [{ kind: 'mention', username: 'dave', domain: 'localhost:4000', start: 3, end: 23 }]);
  t.strictSame(mentions('@a@b.example:80x')[0]?.domain, 'b.example', 'digits followed by a letter are no port');
  t.strictSame(mentions('@a@b.example:123456')[0]?.domain, 'b.example', 'six digits are no port');
  t.strictSame(mentions('@a@b.example: hi')[0]?.domain, 'b.example', 'a colon alone is punctuation');
});

t.test('usernames: letters, digits, _ and inner dots and dashes', async (t) => {
  t.equal(mentions('@Bob_1.x-y')[0]?.username, 'Bob_1.x-y');
  t.equal(mentions('@bob-')[0]?.username, 'bob', 'a trailing dash is not part of it');
  t.strictSame(mentions('@-bob'), []);
});

t.test('preceded by start or punctuation', async (t) => {
  t.equal(mentions('(@bob)').length, 1);
  t.equal(mentions('.@bob').length, 1);
  t.equal(mentions('"@bob"').length, 1);
  t.strictSame(mentions('@@bob'), [{ kind: 'mention', username: 'bob', domain: null, start: 1, end: 5 }]);
});

t.test('not inside e-mail addresses, paths or query strings', async (t) => {
  t.strictSame(mentions('write to foo@bar.com'), []);
  t.strictSame(mentions('a@b.com'), []);
  t.strictSame(mentions('日本@bob'), [], 'a Unicode letter counts as a word character here');
  t.strictSame(mentions('path/@bob'), []);
  t.strictSame(mentions('x=@bob'), []);
});

t.test('no mention when the match runs into @, an accented letter or ://', async (t) => {
  t.strictSame(mentions('@bob@'), []);
  t.strictSame(mentions('@josé'), []);
  t.strictSame(mentions('@bob://x'), []);
});
