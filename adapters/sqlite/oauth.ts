import type { OAuthRepository } from '../../core/domain/ports/storage.ts';
import type { AccessToken, Application, AuthorizationCode, WebSession } from '../../core/domain/model.ts';
import { allAmong, id, idOrNull, int, intOrNull, json, jsonText, key, keyOrNull, lookupKey, text, textOrNull, type Db, type Row } from './db.ts';
import { writeWithOutbox } from './jobs.ts';
import { RowCache } from './cache.ts';
import { isId } from '../../core/domain/ids.ts';

const APPLICATION = 'SELECT id, name, website, redirect_uris, scopes, client_id, client_secret_hash, created_at FROM applications';
const TOKEN_COLUMNS = 'id, token_hash, application_id, account_id, scopes, refresh_token_hash, created_at, revoked_at, authorization_code_id';
const TOKEN = `SELECT ${TOKEN_COLUMNS} FROM access_tokens`;
const CODE_COLUMNS = 'id, code_hash, application_id, account_id, redirect_uri, scopes, code_challenge, created_at, expires_at, used_at';
const SESSION = 'SELECT id, id_hash, account_id, csrf_token, created_at, expires_at FROM web_sessions';

function applicationFromRow(r: Row): Application {
  return {
    id: id(r.id),
    name: text(r.name),
    website: textOrNull(r.website),
    redirectUris: json(r.redirect_uris),
    scopes: json(r.scopes),
    clientId: text(r.client_id),
    clientSecretHash: text(r.client_secret_hash),
    createdAt: int(r.created_at),
  };
}

function tokenFromRow(r: Row): AccessToken {
  const token: AccessToken = {
    id: id(r.id),
    tokenHash: text(r.token_hash),
    applicationId: id(r.application_id),
    accountId: idOrNull(r.account_id),
    scopes: json(r.scopes),
    refreshTokenHash: textOrNull(r.refresh_token_hash),
    createdAt: int(r.created_at),
    revokedAt: intOrNull(r.revoked_at),
  };
  const codeId = idOrNull(r.authorization_code_id);
  return codeId === null ? token : { ...token, authorizationCodeId: codeId };
}

function codeFromRow(r: Row): AuthorizationCode {
  return {
    id: id(r.id),
    codeHash: text(r.code_hash),
    applicationId: id(r.application_id),
    accountId: id(r.account_id),
    redirectUri: text(r.redirect_uri),
    scopes: json(r.scopes),
    codeChallenge: textOrNull(r.code_challenge),
    createdAt: int(r.created_at),
    expiresAt: int(r.expires_at),
    usedAt: intOrNull(r.used_at),
  };
}

function sessionFromRow(r: Row): WebSession {
  return {
    id: id(r.id),
    idHash: text(r.id_hash),
    accountId: idOrNull(r.account_id),
    csrfToken: text(r.csrf_token),
    createdAt: int(r.created_at),
    expiresAt: int(r.expires_at),
  };
}

const copyApplication = (a: Application): Application => ({ ...a, redirectUris: [...a.redirectUris], scopes: [...a.scopes] });
const copyToken = (t: AccessToken): AccessToken => ({ ...t, scopes: [...t.scopes] });

export function oauthRepository(db: Db): OAuthRepository {
  const applications = new RowCache<string, Application>(db, 'applications', 5_000, copyApplication, { byOwnKey: true });
  // By token_hash, which is unique.
  const tokens = new RowCache<string, AccessToken>(db, 'access_tokens', 20_000, copyToken, { byOwnKey: true });
  return {
    async createApplication(a) {
      await db.write(() => {
        db.run(
          'INSERT INTO applications (id, name, website, redirect_uris, scopes, client_id, client_secret_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
          key(a.id), a.name, a.website, jsonText(a.redirectUris), jsonText(a.scopes), a.clientId, a.clientSecretHash, a.createdAt,
        );
      });
    },
    async getApplication(applicationId) {
      const k = lookupKey(applicationId);
      if (k === null) return null;
      const hit = applications.get(applicationId);
      if (hit !== undefined) return hit;
      const r = db.get(`${APPLICATION} WHERE id = ?`, k);
      if (!r) return null;
      const found = applicationFromRow(r);
      applications.set(applicationId, found);
      return found;
    },
    async getApplicationsMany(ids) {
      const wanted = [...new Set(ids.filter(isId))];
      const found = applications.many(wanted, (missing) => allAmong(db, `${APPLICATION} WHERE`, 'id', missing).map(applicationFromRow), (a) => a.id);
      return found.sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    },
    async findApplicationByClientId(clientId) {
      const r = db.get(`${APPLICATION} WHERE client_id = ?`, clientId);
      return r ? applicationFromRow(r) : null;
    },
    async createToken(t) {
      await db.write(() => {
        db.run(
          `INSERT INTO access_tokens (${TOKEN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          key(t.id), t.tokenHash, key(t.applicationId), keyOrNull(t.accountId), jsonText(t.scopes), t.refreshTokenHash, t.createdAt, t.revokedAt,
          keyOrNull(t.authorizationCodeId ?? null),
        );
      });
    },
    async findTokenByHash(tokenHash) {
      const hit = tokens.get(tokenHash);
      if (hit !== undefined) return hit;
      const r = db.get(`${TOKEN} WHERE token_hash = ?`, tokenHash);
      if (!r) return null;
      const found = tokenFromRow(r);
      tokens.set(tokenHash, found);
      return found;
    },
    async revokeToken(tokenId, at, outbox) {
      const k = lookupKey(tokenId);
      if (k === null) return false;
      return writeWithOutbox(db, outbox, () => db.run('UPDATE access_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', at, k) > 0);
    },
    async findTokenByRefreshHash(refreshTokenHash) {
      const r = db.get(`${TOKEN} WHERE refresh_token_hash = ?`, refreshTokenHash);
      return r ? tokenFromRow(r) : null;
    },
    async revokeTokenByRefreshHash(refreshTokenHash, at, outbox) {
      return writeWithOutbox(db, outbox, () => {
        const r = db.get(
          `UPDATE access_tokens SET revoked_at = ? WHERE refresh_token_hash = ? AND revoked_at IS NULL RETURNING ${TOKEN_COLUMNS}`,
          at, refreshTokenHash,
        );
        return r ? { ...tokenFromRow(r), revokedAt: null } : null;
      });
    },
    async createCode(c) {
      await db.write(() => {
        db.run(
          `INSERT INTO authorization_codes (${CODE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          key(c.id), c.codeHash, key(c.applicationId), key(c.accountId), c.redirectUri, jsonText(c.scopes), c.codeChallenge, c.createdAt,
          c.expiresAt, c.usedAt,
        );
      });
    },
    async consumeCode(codeHash, now) {
      return db.write(() => {
        const r = db.get(
          `UPDATE authorization_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL AND expires_at > ? RETURNING ${CODE_COLUMNS}`,
          now, codeHash, now,
        );
        return r ? codeFromRow(r) : null;
      });
    },
    async revokeTokensOfCode(codeHash, at, outbox) {
      return writeWithOutbox(db, outbox, () =>
        db
          .all(
            `UPDATE access_tokens SET revoked_at = ? WHERE authorization_code_id = (SELECT id FROM authorization_codes WHERE code_hash = ?) AND revoked_at IS NULL RETURNING ${TOKEN_COLUMNS}`,
            at, codeHash,
          )
          .map((r) => ({ ...tokenFromRow(r), revokedAt: null })),
      );
    },
    async createSession(s) {
      await db.write(() => {
        db.run(
          'INSERT INTO web_sessions (id, id_hash, account_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
          key(s.id), s.idHash, keyOrNull(s.accountId), s.csrfToken, s.createdAt, s.expiresAt,
        );
      });
    },
    async findSessionByHash(idHash, now) {
      const r = db.get(`${SESSION} WHERE id_hash = ? AND expires_at > ?`, idHash, now);
      return r ? sessionFromRow(r) : null;
    },
    async deleteSession(sessionId) {
      const k = lookupKey(sessionId);
      if (k === null) return;
      await db.write(() => db.run('DELETE FROM web_sessions WHERE id = ?', k));
    },
    async revokeTokensOfAccount(accountId, at) {
      const k = lookupKey(accountId);
      if (k === null) return [];
      return db.write(() => {
        const live = db.all('SELECT id FROM access_tokens WHERE account_id = ? AND revoked_at IS NULL', k).map((r) => id(r.id));
        db.run('UPDATE access_tokens SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL', at, k);
        return live;
      });
    },
    async deleteSessionsOf(accountId) {
      const k = lookupKey(accountId);
      if (k === null) return 0;
      return db.write(() => db.run('DELETE FROM web_sessions WHERE account_id = ?', k));
    },
    async pruneSessions(now) {
      return db.write(() => db.run('DELETE FROM web_sessions WHERE expires_at <= ?', now));
    },
  };
}
