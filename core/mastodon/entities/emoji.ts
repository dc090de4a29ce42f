// A custom emoji as Mastodon's REST API shows it (its CustomEmoji entity). Rookery has none of
// its own: plugins list the ones a remote status or account uses, so that clients draw the
// picture in place of `:shortcode:`.

export interface CustomEmojiJson {
  shortcode: string;
  url: string;
  static_url: string;
  visible_in_picker: boolean;
  category: string | null;
}
