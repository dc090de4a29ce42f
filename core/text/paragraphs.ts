// Paragraphs of `content`: Rails' simple_format as Mastodon calls it (no sanitising, then
// every remaining "\n" deleted). Runs on already-escaped HTML.

// One or more blank lines: newline, any whitespace (Ruby's ASCII \s, newlines included),
// newline. Being greedy, it also swallows whitespace-only lines, so no paragraph between
// two separators is ever whitespace-only.
const BLANK_LINES = /\n[ \t\n\v\f]*\n/;

export function toParagraphs(html: string): string {
  return html
    .split(BLANK_LINES)
    .map((paragraph) => `<p>${paragraph.replaceAll('\n', '<br />')}</p>`)
    .join('');
}
