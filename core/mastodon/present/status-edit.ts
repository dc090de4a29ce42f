import type { RookeryConfig } from '../../domain/config.ts';
import type { Account, StatusEdit } from '../../domain/model.ts';
import { renderAccount, type LoadedAccountDecorator } from './account.ts';
import type { StatusEditJson } from '../entities/status-json.ts';
import { iso } from '../entities/time.ts';

/** One entry of GET /api/v1/statuses/:id/history; plugins fill media_attachments and emojis
 * (decorators' renderEdits); `accountDecorators`: the author's (loadAccountDecorators). */
export function renderStatusEdit(config: RookeryConfig, edit: StatusEdit, author: Account, accountDecorators?: readonly LoadedAccountDecorator[]): StatusEditJson {
  return {
    content: edit.content,
    spoiler_text: edit.spoilerText,
    sensitive: edit.sensitive,
    created_at: iso(edit.createdAt),
    account: renderAccount(config, author, accountDecorators),
    poll: edit.pollOptions === null ? null : { options: edit.pollOptions.map((title) => ({ title })) },
    media_attachments: [],
    emojis: [],
  };
}
