import type { RookeryConfig } from '../config.ts';
import type { Account, Id, MediaAttachment, StatusEdit } from '../model.ts';
import { renderAccount } from './account.ts';
import { renderMedia } from './media.ts';
import { iso } from './time.ts';

/** One entry of GET /api/v1/statuses/:id/history. */
export function renderStatusEdit(config: RookeryConfig, edit: StatusEdit, author: Account, media: Map<Id, MediaAttachment>) {
  return {
    content: edit.content,
    spoiler_text: edit.spoilerText,
    sensitive: edit.sensitive,
    created_at: iso(edit.createdAt),
    account: renderAccount(config, author),
    poll: edit.pollOptions === null ? null : { options: edit.pollOptions.map((title) => ({ title })) },
    media_attachments: edit.mediaIds.flatMap((id) => {
      const item = media.get(id);
      return item ? [renderMedia(item)] : [];
    }),
    emojis: [],
  };
}
