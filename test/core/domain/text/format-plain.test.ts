import t from 'tap';
import { formatPlain } from '../../../../core/domain/text/format.ts';

const example =
  '<span class="invisible">https://</span><span class="">example.com</span><span class="invisible"></span></a>';

t.test('links URLs with rel="nofollow noopener"', async (t) => {
  t.equal(
    formatPlain('see https://example.com'),
    `<p>see <a href="https://example.com" target="_blank" rel="nofollow noopener" translate="no">${example}</p>`,
  );
});

t.test('relMe adds me to rel', async (t) => {
  t.equal(
    formatPlain('https://example.com', { relMe: true }),
    `<p><a href="https://example.com" target="_blank" rel="nofollow noopener me" translate="no">${example}</p>`,
  );
});

t.test('mentions and hashtags are not linked', async (t) => {
  t.equal(formatPlain('@bob #tag @bob@remote.example'), '<p>@bob #tag @bob@remote.example</p>');
});

t.test('escaping and paragraphs as in formatText', async (t) => {
  t.equal(formatPlain(' a & b\nc\r\n\r\n<d> '), '<p>a &amp; b<br />c</p><p>&lt;d&gt;</p>');
  t.equal(formatPlain('   '), '');
});

t.test('multiline: false gives no paragraphs, as Mastodon formats profile fields', async (t) => {
  t.equal(
    formatPlain(' https://example.com ', { relMe: true, multiline: false }),
    `<a href="https://example.com" target="_blank" rel="nofollow noopener me" translate="no">${example}`,
  );
  t.equal(formatPlain('Tom & Jerry', { multiline: false }), 'Tom &amp; Jerry');
});
