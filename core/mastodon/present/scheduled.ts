import type { ScheduledStatus } from '../../domain/model.ts';
import type { MediaJson } from '../entities/media.ts';
import { iso } from '../entities/time.ts';

/** ScheduledStatus: params echo what was submitted, unset ones null;
 * application_id is an integer (application ids are kept below 2^53 for this). */
export function renderScheduledStatus(scheduled: ScheduledStatus, media: MediaJson[]) {
  const p = scheduled.params;
  return {
    id: scheduled.id,
    scheduled_at: iso(scheduled.scheduledAt),
    params: {
      text: p.text,
      media_ids: p.mediaIds,
      sensitive: p.sensitive,
      spoiler_text: p.spoilerText,
      visibility: p.visibility,
      scheduled_at: null,
      poll:
        p.poll === null
          ? null
          : { options: p.poll.options, expires_in: p.poll.expiresIn, multiple: p.poll.multiple, hide_totals: p.poll.hideTotals },
      idempotency: p.idempotency,
      in_reply_to_id: p.inReplyToId,
      language: p.language,
      application_id: p.applicationId === null ? null : Number(p.applicationId),
      with_rate_limit: false,
    },
    media_attachments: media,
  };
}
