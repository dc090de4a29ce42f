// Paragraphs of `content` (docs/behaviour.md, "Text"): blank lines split paragraphs, single newlines
// become <br /> (no sanitising, then every remaining "\n" deleted). Runs on already-escaped HTML.

// One or more blank lines: newline, any whitespace (ASCII whitespace, newlines included),
// newline. Being greedy, it also swallows whitespace-only lines, so no paragraph between
// two separators is ever whitespace-only.
const BLANK_LINES = /\n[ \t\n\v\f]*\n/;

export function toParagraphs(html: string): string {
  return html
    .split(BLANK_LINES)
    .map((paragraph) => `<p>${paragraph.replaceAll('\n', '<br />')}</p>`)
    .join('');
}
