// HTML escaping with the five replacements (& < > " ') Mastodon's templates make, which it
// applies to every piece of text and every attribute value it writes into `content`.

const REPLACEMENTS: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => REPLACEMENTS[c] ?? c);
}
