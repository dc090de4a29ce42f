import { StorageConflict, type MediaRepository, type PollRepository } from '../../core/ports/storage.ts';
import type { Id, MediaAttachment, Poll } from '../../core/model.ts';
import {
  bool,
  flag,
  id,
  idOrNull,
  inOrder,
  int,
  intOrNull,
  json,
  jsonOrNull,
  jsonText,
  key,
  keyList,
  keyOrNull,
  lookupKey,
  setClause,
  text,
  textOrNull,
  type Db,
  type Row,
} from './db.ts';

// ---- media ------------------------------------------------------------------------------------

const MEDIA = `SELECT id, account_id, status_id, type, url, preview_url, remote_url, description, blurhash, original, small, focus, extra,
  processed, created_at FROM media_attachments`;

function mediaFromRow(r: Row): MediaAttachment {
  return {
    id: id(r.id),
    accountId: id(r.account_id),
    statusId: idOrNull(r.status_id),
    type: text(r.type) as MediaAttachment['type'],
    url: textOrNull(r.url),
    previewUrl: textOrNull(r.preview_url),
    remoteUrl: textOrNull(r.remote_url),
    description: textOrNull(r.description),
    blurhash: textOrNull(r.blurhash),
    original: jsonOrNull(r.original),
    small: jsonOrNull(r.small),
    focus: jsonOrNull(r.focus),
    extra: json(r.extra),
    processed: bool(r.processed),
    createdAt: int(r.created_at),
  };
}

const jsonOrNullText = (v: unknown) => (v === null ? null : jsonText(v));
const asIs = (v: string | number | null) => v;

/** Each media must exist, belong to `accountId` and be unattached (or attached to `own`),
 * else StorageConflict 'media'. Runs inside the caller's write transaction. */
export function checkMedia(db: Db, accountId: Id, mediaIds: readonly Id[], own: Id | null): void {
  const unique = new Set(mediaIds);
  if (unique.size === 0) return;
  const r = db.get(
    `SELECT count(*) AS n FROM media_attachments WHERE id IN (SELECT value FROM json_each(?)) AND account_id = ?
       AND (status_id IS NULL OR status_id = ?)`,
    keyList(unique), key(accountId), keyOrNull(own),
  );
  if (int(r?.n) !== unique.size) throw new StorageConflict('media');
}

export function attachMedia(db: Db, statusId: Id, mediaIds: readonly Id[]): void {
  if (mediaIds.length === 0) return;
  db.run('UPDATE media_attachments SET status_id = ? WHERE id IN (SELECT value FROM json_each(?))', key(statusId), keyList(mediaIds));
}

export function mediaRepository(db: Db): MediaRepository {
  const getMedia = (k: bigint): MediaAttachment | null => {
    const r = db.get(`${MEDIA} WHERE id = ?`, k);
    return r ? mediaFromRow(r) : null;
  };
  return {
    async create(m) {
      await db.write(() => {
        db.run(
          `INSERT INTO media_attachments (id, account_id, status_id, type, url, preview_url, remote_url, description, blurhash, original, small,
             focus, extra, processed, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          key(m.id), key(m.accountId), keyOrNull(m.statusId), m.type, m.url, m.previewUrl, m.remoteUrl, m.description, m.blurhash,
          jsonOrNullText(m.original), jsonOrNullText(m.small), jsonOrNullText(m.focus), jsonText(m.extra), flag(m.processed), m.createdAt,
        );
      });
    },
    async get(mediaId) {
      const k = lookupKey(mediaId);
      return k === null ? null : getMedia(k);
    },
    async getMany(ids) {
      const rows = db.all(`${MEDIA} WHERE id IN (SELECT value FROM json_each(?))`, keyList(ids)).map(mediaFromRow);
      return inOrder(ids, rows, (m) => m.id);
    },
    async update(mediaId, patch) {
      const k = lookupKey(mediaId);
      if (k === null) return null;
      const set = setClause(patch, {
        description: ['description', asIs],
        focus: ['focus', jsonOrNullText],
        url: ['url', asIs],
        previewUrl: ['preview_url', asIs],
        blurhash: ['blurhash', asIs],
        original: ['original', jsonOrNullText],
        small: ['small', jsonOrNullText],
        extra: ['extra', jsonText],
        processed: ['processed', (v: boolean | null) => (v === null ? null : flag(v))],
        type: ['type', asIs],
      });
      return db.write(() => {
        if (set.sql !== '') db.run(`UPDATE media_attachments SET ${set.sql} WHERE id = ?`, ...set.params, k);
        return getMedia(k);
      });
    },
    async deleteUnattached(mediaId) {
      const k = lookupKey(mediaId);
      if (k === null) return false;
      return db.write(() => db.run('DELETE FROM media_attachments WHERE id = ? AND status_id IS NULL', k) > 0);
    },
  };
}

// ---- polls ------------------------------------------------------------------------------------

const POLL = `SELECT id, status_id, account_id, options, votes, multiple, hide_totals, expires_at, votes_count, voters_count, created_at FROM polls`;

function pollFromRow(r: Row): Poll {
  return {
    id: id(r.id),
    statusId: idOrNull(r.status_id),
    accountId: id(r.account_id),
    options: json(r.options),
    votes: json(r.votes),
    multiple: bool(r.multiple),
    hideTotals: bool(r.hide_totals),
    expiresAt: intOrNull(r.expires_at),
    votesCount: int(r.votes_count),
    votersCount: int(r.voters_count),
    createdAt: int(r.created_at),
  };
}

/** Inserts a poll; with `replace`, an existing poll of that id is overwritten instead, and its
 * recorded votes are dropped when the new poll says it has no voters (the core reset it). */
export function storePoll(db: Db, p: Poll, replace: boolean): void {
  const values = [
    keyOrNull(p.statusId), key(p.accountId), jsonText(p.options), jsonText(p.votes), flag(p.multiple), flag(p.hideTotals), p.expiresAt,
    p.votesCount, p.votersCount, p.createdAt,
  ];
  if (replace && db.get('SELECT 1 FROM polls WHERE id = ?', key(p.id))) {
    db.run(
      `UPDATE polls SET status_id = ?, account_id = ?, options = ?, votes = ?, multiple = ?, hide_totals = ?, expires_at = ?, votes_count = ?,
         voters_count = ?, created_at = ? WHERE id = ?`,
      ...values, key(p.id),
    );
    if (p.votersCount === 0) db.run('DELETE FROM poll_votes WHERE poll_id = ?', key(p.id));
    return;
  }
  db.run(
    `INSERT INTO polls (id, status_id, account_id, options, votes, multiple, hide_totals, expires_at, votes_count, voters_count, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    key(p.id), ...values,
  );
}

export function pollRepository(db: Db): PollRepository {
  return {
    async get(pollId) {
      const k = lookupKey(pollId);
      const r = k === null ? undefined : db.get(`${POLL} WHERE id = ?`, k);
      return r ? pollFromRow(r) : null;
    },
    async getMany(ids) {
      return db.all(`${POLL} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id DESC`, keyList(ids)).map(pollFromRow);
    },
    async vote(pollId, accountId, choices) {
      return db.write(() => {
        const r = db.get('SELECT votes FROM polls WHERE id = ?', key(pollId));
        if (!r) return 'already';
        const added = db.run(
          'INSERT INTO poll_votes (poll_id, account_id, choices) VALUES (?, ?, ?) ON CONFLICT (poll_id, account_id) DO NOTHING',
          key(pollId), key(accountId), jsonText(choices),
        );
        if (added === 0) return 'already';
        const votes = json<number[]>(r.votes);
        for (const c of choices) votes[c] = (votes[c] ?? 0) + 1;
        db.run('UPDATE polls SET votes = ?, votes_count = votes_count + ?, voters_count = voters_count + 1 WHERE id = ?', jsonText(votes), choices.length, key(pollId));
        return 'voted';
      });
    },
    async votesBy(accountId, pollIds) {
      const out = new Map<Id, number[]>();
      const rows = db.all('SELECT poll_id, choices FROM poll_votes WHERE account_id = ? AND poll_id IN (SELECT value FROM json_each(?))', key(accountId), keyList(pollIds));
      for (const r of rows) out.set(id(r.poll_id), json(r.choices));
      return out;
    },
  };
}
