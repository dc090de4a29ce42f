// OAuth: applications, access tokens (with their refresh token's digest), authorization codes
// and the sign-in pages' sessions. Revocations and a code's use are conditional single-document
// updates. Codes and sessions also carry `purgeAt` (wall clock: creation + lifetime + a day) for
// a TTL index, so expired ones do not pile up; reads still compare the model's `expiresAt`.

import type { AccessToken, Application, AuthorizationCode, Id, Millis, WebSession } from '../../core/domain/model.ts';
import type { OAuthRepository } from '../../core/domain/ports/storage.ts';
import { bump, type Mongo } from './db.ts';
import { C } from './schema.ts';
import { lookupId, newestFirst, num, stored, validIds, type Doc } from './values.ts';

export const PURGE_GRACE_MS = 24 * 3_600_000;

/** When the TTL index may remove a code or session: `wallNow` plus its lifetime plus a day. */
export function purgeAt(wallNow: Millis, createdAt: Millis, expiresAt: Millis): Date {
  return new Date(wallNow + Math.max(0, expiresAt - createdAt) + PURGE_GRACE_MS);
}

export function applicationDoc(a: Application): Doc {
  return {
    _id: a.id,
    num: num(a.id),
    name: a.name,
    website: a.website,
    redirectUris: a.redirectUris,
    scopes: a.scopes,
    clientId: a.clientId,
    clientSecretHash: a.clientSecretHash,
    createdAt: a.createdAt,
  };
}

export function applicationFromDoc(d: Doc): Application {
  return {
    id: d['_id'] as Id,
    name: d['name'] as string,
    website: d['website'] as string | null,
    redirectUris: d['redirectUris'] as string[],
    scopes: d['scopes'] as string[],
    clientId: d['clientId'] as string,
    clientSecretHash: d['clientSecretHash'] as string,
    createdAt: d['createdAt'] as number,
  };
}

export function tokenDoc(t: AccessToken): Doc {
  return {
    _id: t.id,
    num: num(t.id),
    tokenHash: t.tokenHash,
    applicationId: t.applicationId,
    accountId: t.accountId,
    scopes: t.scopes,
    refreshTokenHash: t.refreshTokenHash,
    authorizationCodeId: t.authorizationCodeId ?? null,
    createdAt: t.createdAt,
    revokedAt: t.revokedAt,
  };
}

export function tokenFromDoc(d: Doc): AccessToken {
  return {
    id: d['_id'] as Id,
    tokenHash: d['tokenHash'] as string,
    applicationId: d['applicationId'] as Id,
    accountId: d['accountId'] as Id | null,
    scopes: d['scopes'] as string[],
    refreshTokenHash: (d['refreshTokenHash'] as string | null | undefined) ?? null,
    createdAt: d['createdAt'] as number,
    revokedAt: d['revokedAt'] as number | null,
    ...(typeof d['authorizationCodeId'] === 'string' ? { authorizationCodeId: d['authorizationCodeId'] } : {}),
  };
}

export function codeDoc(c: AuthorizationCode, purge: Date): Doc {
  return {
    _id: c.id,
    num: num(c.id),
    codeHash: c.codeHash,
    applicationId: c.applicationId,
    accountId: c.accountId,
    redirectUri: c.redirectUri,
    scopes: c.scopes,
    codeChallenge: c.codeChallenge,
    createdAt: c.createdAt,
    expiresAt: c.expiresAt,
    usedAt: c.usedAt,
    purgeAt: purge,
  };
}

export function codeFromDoc(d: Doc): AuthorizationCode {
  return {
    id: d['_id'] as Id,
    codeHash: d['codeHash'] as string,
    applicationId: d['applicationId'] as Id,
    accountId: d['accountId'] as Id,
    redirectUri: d['redirectUri'] as string,
    scopes: d['scopes'] as string[],
    codeChallenge: d['codeChallenge'] as string | null,
    createdAt: d['createdAt'] as number,
    expiresAt: d['expiresAt'] as number,
    usedAt: d['usedAt'] as number | null,
  };
}

export function sessionDoc(s: WebSession, purge: Date): Doc {
  return { _id: s.id, num: num(s.id), idHash: s.idHash, accountId: s.accountId, csrfToken: s.csrfToken, createdAt: s.createdAt, expiresAt: s.expiresAt, purgeAt: purge };
}

export function sessionFromDoc(d: Doc): WebSession {
  return {
    id: d['_id'] as Id,
    idHash: d['idHash'] as string,
    accountId: d['accountId'] as Id | null,
    csrfToken: d['csrfToken'] as string,
    createdAt: d['createdAt'] as number,
    expiresAt: d['expiresAt'] as number,
  };
}

/** Uses a code once: only while unused and unexpired (a code has expired at its expiresAt). */
export function consumeCodeUpdate(codeHash: string, now: Millis): { filter: Doc; update: Doc } {
  return { filter: { codeHash, usedAt: null, expiresAt: { $gt: now } }, update: { $set: { usedAt: now } } };
}

export const revokeUpdate = (at: Millis): Doc => ({ $set: { revokedAt: at } });

/** The live tokens issued for one authorization code (a replayed code revokes them). */
export const liveTokensOfCode = (codeId: Id): Doc => ({ authorizationCodeId: codeId, revokedAt: null });

/** Sessions expired at `now` (the TTL index removes them later anyway; this is the prune job). */
export const expiredSessions = (now: Millis): Doc => ({ expiresAt: { $lte: now } });

export function oauthRepository(m: Mongo): OAuthRepository {
  const applications = m.collection(C.applications);
  const tokens = m.collection(C.accessTokens);
  const codes = m.collection(C.authorizationCodes);
  const sessions = m.collection(C.webSessions);
  const insert = async (collection: typeof tokens, doc: Doc): Promise<void> => {
    try {
      await collection.insertOne(stored(doc));
    } catch (error) {
      throw m.translate(error);
    }
  };
  return {
    async createApplication(a) {
      await insert(applications, applicationDoc(a));
    },
    async getApplication(applicationId) {
      const id = lookupId(applicationId);
      const d = id === null ? null : await applications.findOne({ _id: id });
      return d ? applicationFromDoc(d) : null;
    },
    async getApplicationsMany(ids) {
      const wanted = validIds(ids);
      if (wanted.length === 0) return [];
      return newestFirst((await applications.find({ _id: { $in: wanted } }).toArray()).map(applicationFromDoc));
    },
    async findApplicationByClientId(clientId) {
      const d = await applications.findOne({ clientId });
      return d ? applicationFromDoc(d) : null;
    },
    async createToken(t) {
      await insert(tokens, tokenDoc(t));
    },
    async findTokenByHash(tokenHash) {
      const d = await tokens.findOne({ tokenHash });
      return d ? tokenFromDoc(d) : null;
    },
    async revokeToken(tokenId, at, outbox) {
      const id = lookupId(tokenId);
      if (id === null) return false;
      return m.cas({
        collection: C.accessTokens,
        read: () => tokens.findOne({ _id: id }, { projection: { revokedAt: 1, _v: 1 } }),
        decide: (current) => (current === null || current['revokedAt'] !== null ? { result: false, write: null } : { result: true, write: { update: revokeUpdate(at) } }),
        outbox,
      });
    },
    async findTokenByRefreshHash(refreshTokenHash) {
      const d = await tokens.findOne({ refreshTokenHash });
      return d ? tokenFromDoc(d) : null;
    },
    async revokeTokenByRefreshHash(refreshTokenHash, at, outbox) {
      return m.cas({
        collection: C.accessTokens,
        read: () => tokens.findOne({ refreshTokenHash }, { projection: { _jobs: 0 } }),
        decide: (current) =>
          current === null || current['revokedAt'] !== null ? { result: null, write: null } : { result: tokenFromDoc(current), write: { update: revokeUpdate(at) } },
        outbox,
      });
    },
    async createCode(c) {
      await insert(codes, codeDoc(c, purgeAt(m.wallNow(), c.createdAt, c.expiresAt)));
    },
    async consumeCode(codeHash, now) {
      const { filter, update } = consumeCodeUpdate(codeHash, now);
      const d = await codes.findOneAndUpdate(filter, bump(update), { returnDocument: 'after' });
      return d ? codeFromDoc(d) : null;
    },
    async revokeTokensOfCode(codeHash, at, outbox) {
      // Several token documents change together, with the jobs of their revocation: a transaction.
      return m.withOutbox(outbox, async (tx) => {
        const code = await tx.collection(C.authorizationCodes).findOne({ codeHash }, { session: tx.session, projection: { _id: 1 } });
        if (code === null) return [];
        const filter = liveTokensOfCode(code._id as Id);
        const found = (await tx.collection(C.accessTokens).find(filter, { session: tx.session, projection: { _jobs: 0 } }).toArray()).map(tokenFromDoc);
        if (found.length > 0) await tx.collection(C.accessTokens).updateMany({ _id: { $in: found.map((t) => t.id) } }, bump(revokeUpdate(at)), { session: tx.session });
        return found;
      });
    },
    async createSession(s) {
      await insert(sessions, sessionDoc(s, purgeAt(m.wallNow(), s.createdAt, s.expiresAt)));
    },
    async findSessionByHash(idHash, now) {
      const d = await sessions.findOne({ idHash, expiresAt: { $gt: now } });
      return d ? sessionFromDoc(d) : null;
    },
    async deleteSession(sessionId) {
      const id = lookupId(sessionId);
      if (id === null) return;
      await sessions.deleteOne({ _id: id });
    },
    async revokeTokensOfAccount(accountId, at) {
      const live = { accountId, revokedAt: null };
      const found = (await tokens.find(live, { projection: { _id: 1 } }).toArray()).map((d) => d['_id'] as Id);
      if (found.length > 0) await tokens.updateMany({ ...live, _id: { $in: found } }, bump(revokeUpdate(at)));
      return found;
    },
    async deleteSessionsOf(accountId) {
      return (await sessions.deleteMany({ accountId })).deletedCount;
    },
    async pruneSessions(now) {
      return (await sessions.deleteMany(expiredSessions(now))).deletedCount;
    },
  };
}
