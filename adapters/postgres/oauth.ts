import type { OAuthRepository } from '../../core/domain/ports/storage.ts';
import type { AccessToken, Application, AuthorizationCode, WebSession } from '../../core/domain/model.ts';
import type { Db, Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { floorMs, id, idOrNull, int, intOrNull, json, jsonText, key, keyOrNull, keys, lookupKey, newestFirst, storable, text, textOrNull } from './values.ts';

const APPLICATION_COLUMNS = 'id, name, website, redirect_uris, scopes, client_id, client_secret_hash, created_at';
const APPLICATION = `SELECT ${APPLICATION_COLUMNS} FROM applications`;
const TOKEN_COLUMNS = 'id, token_hash, application_id, account_id, scopes, refresh_token_hash, created_at, revoked_at, authorization_code_id';
const TOKEN = `SELECT ${TOKEN_COLUMNS} FROM access_tokens`;
const CODE_COLUMNS = 'id, code_hash, application_id, account_id, redirect_uri, scopes, code_challenge, created_at, expires_at, used_at';
const SESSION_COLUMNS = 'id, id_hash, account_id, csrf_token, created_at, expires_at';

function applicationFromRow(r: Row): Application {
  return {
    id: id(r['id']),
    name: text(r['name']),
    website: textOrNull(r['website']),
    redirectUris: json(r['redirect_uris']),
    scopes: json(r['scopes']),
    clientId: text(r['client_id']),
    clientSecretHash: text(r['client_secret_hash']),
    createdAt: int(r['created_at']),
  };
}

function tokenFromRow(r: Row): AccessToken {
  const token: AccessToken = {
    id: id(r['id']),
    tokenHash: text(r['token_hash']),
    applicationId: id(r['application_id']),
    accountId: idOrNull(r['account_id']),
    scopes: json(r['scopes']),
    refreshTokenHash: textOrNull(r['refresh_token_hash']),
    createdAt: int(r['created_at']),
    revokedAt: intOrNull(r['revoked_at']),
  };
  const codeId = idOrNull(r['authorization_code_id']);
  return codeId === null ? token : { ...token, authorizationCodeId: codeId };
}

function codeFromRow(r: Row): AuthorizationCode {
  return {
    id: id(r['id']),
    codeHash: text(r['code_hash']),
    applicationId: id(r['application_id']),
    accountId: id(r['account_id']),
    redirectUri: text(r['redirect_uri']),
    scopes: json(r['scopes']),
    codeChallenge: textOrNull(r['code_challenge']),
    createdAt: int(r['created_at']),
    expiresAt: int(r['expires_at']),
    usedAt: intOrNull(r['used_at']),
  };
}

function sessionFromRow(r: Row): WebSession {
  return {
    id: id(r['id']),
    idHash: text(r['id_hash']),
    accountId: idOrNull(r['account_id']),
    csrfToken: text(r['csrf_token']),
    createdAt: int(r['created_at']),
    expiresAt: int(r['expires_at']),
  };
}

/** A token as it was before this write revoked it. */
const asLive = (r: Row): AccessToken => ({ ...tokenFromRow(r), revokedAt: null });

export function oauthRepository(db: Db): OAuthRepository {
  return {
    async createApplication(a) {
      await db.run(`INSERT INTO applications (${APPLICATION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
        key(a.id), a.name, a.website, jsonText(a.redirectUris), jsonText(a.scopes), a.clientId, a.clientSecretHash, a.createdAt,
      ]);
    },
    async getApplication(applicationId) {
      const k = lookupKey(applicationId);
      if (k === null) return null;
      const r = await db.row(`${APPLICATION} WHERE id = $1`, [k]);
      return r ? applicationFromRow(r) : null;
    },
    async getApplicationsMany(ids) {
      const wanted = keys(ids);
      if (wanted.length === 0) return [];
      return newestFirst((await db.rows(`${APPLICATION} WHERE id = ANY($1::bigint[])`, [wanted])).map(applicationFromRow));
    },
    async findApplicationByClientId(clientId) {
      if (!storable(clientId)) return null;
      const r = await db.row(`${APPLICATION} WHERE client_id = $1`, [clientId]);
      return r ? applicationFromRow(r) : null;
    },
    async createToken(t) {
      await db.run(`INSERT INTO access_tokens (${TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
        key(t.id), t.tokenHash, key(t.applicationId), keyOrNull(t.accountId), jsonText(t.scopes), t.refreshTokenHash, t.createdAt, t.revokedAt,
        keyOrNull(t.authorizationCodeId ?? null),
      ]);
    },
    async findTokenByHash(tokenHash) {
      if (!storable(tokenHash)) return null;
      const r = await db.row(`${TOKEN} WHERE token_hash = $1`, [tokenHash]);
      return r ? tokenFromRow(r) : null;
    },
    async revokeToken(tokenId, at, outbox) {
      const k = lookupKey(tokenId);
      return writeWithOutbox(db, outbox, async (sql) => k !== null && (await sql.run('UPDATE access_tokens SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, k])) > 0);
    },
    async findTokenByRefreshHash(refreshTokenHash) {
      if (!storable(refreshTokenHash)) return null;
      const r = await db.row(`${TOKEN} WHERE refresh_token_hash = $1`, [refreshTokenHash]);
      return r ? tokenFromRow(r) : null;
    },
    async revokeTokenByRefreshHash(refreshTokenHash, at, outbox) {
      // The UPDATE re-checks revoked_at on the newest row: of two concurrent uses, one finds it live.
      return writeWithOutbox(db, outbox, async (sql) => {
        if (!storable(refreshTokenHash)) return null;
        const r = await sql.row(`UPDATE access_tokens SET revoked_at = $1 WHERE refresh_token_hash = $2 AND revoked_at IS NULL RETURNING ${TOKEN_COLUMNS}`, [
          at, refreshTokenHash,
        ]);
        return r ? asLive(r) : null;
      });
    },
    async createCode(c) {
      await db.run(`INSERT INTO authorization_codes (${CODE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
        key(c.id), c.codeHash, key(c.applicationId), key(c.accountId), c.redirectUri, jsonText(c.scopes), c.codeChallenge, c.createdAt, c.expiresAt, c.usedAt,
      ]);
    },
    async consumeCode(codeHash, now) {
      if (!storable(codeHash)) return null;
      const r = await db.row(
        `UPDATE authorization_codes SET used_at = $1 WHERE code_hash = $2 AND used_at IS NULL AND expires_at > $3 RETURNING ${CODE_COLUMNS}`,
        [now, codeHash, floorMs(now)],
      );
      return r ? codeFromRow(r) : null;
    },
    async revokeTokensOfCode(codeHash, at, outbox) {
      return writeWithOutbox(db, outbox, async (sql) => {
        if (!storable(codeHash)) return [];
        const rows = await sql.rows(
          `UPDATE access_tokens SET revoked_at = $1
           WHERE authorization_code_id = (SELECT id FROM authorization_codes WHERE code_hash = $2) AND revoked_at IS NULL
           RETURNING ${TOKEN_COLUMNS}`,
          [at, codeHash],
        );
        return newestFirst(rows.map(asLive)).reverse();
      });
    },
    async createSession(s) {
      await db.run(`INSERT INTO web_sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
        key(s.id), s.idHash, keyOrNull(s.accountId), s.csrfToken, s.createdAt, s.expiresAt,
      ]);
    },
    async findSessionByHash(idHash, now) {
      if (!storable(idHash)) return null;
      const r = await db.row(`SELECT ${SESSION_COLUMNS} FROM web_sessions WHERE id_hash = $1 AND expires_at > $2`, [idHash, floorMs(now)]);
      return r ? sessionFromRow(r) : null;
    },
    async deleteSession(sessionId) {
      const k = lookupKey(sessionId);
      if (k !== null) await db.run('DELETE FROM web_sessions WHERE id = $1', [k]);
    },
    async revokeTokensOfAccount(accountId, at) {
      const k = lookupKey(accountId);
      if (k === null) return [];
      const rows = await db.rows('UPDATE access_tokens SET revoked_at = $1 WHERE account_id = $2 AND revoked_at IS NULL RETURNING id', [at, k]);
      return rows.map((r) => id(r['id']));
    },
    async deleteSessionsOf(accountId) {
      const k = lookupKey(accountId);
      return k === null ? 0 : db.run('DELETE FROM web_sessions WHERE account_id = $1', [k]);
    },
    async pruneSessions(now) {
      return db.run('DELETE FROM web_sessions WHERE expires_at <= $1', [floorMs(now)]);
    },
  };
}
