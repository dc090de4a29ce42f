import t from 'tap';
import { escapeHtml } from '../../../../core/domain/text/escape.ts';

t.test('escapes each of the five special characters', async (t) => {
  t.equal(escapeHtml('&'), '&amp;');
  t.equal(escapeHtml('<'), '&lt;');
  t.equal(escapeHtml('>'), '&gt;');
  t.equal(escapeHtml('"'), '&quot;');
  t.equal(escapeHtml("'"), '&#39;');
});

t.test('escapes every occurrence and leaves the rest alone', async (t) => {
  t.equal(escapeHtml('<a href="x">Tom & Jerry\'s</a>'), '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;');
  t.equal(escapeHtml('&amp;'), '&amp;amp;', 'already-escaped text is escaped again');
  t.equal(escapeHtml('plain text, 日本語 🎉\n'), 'plain text, 日本語 🎉\n');
  t.equal(escapeHtml(''), '');
});
