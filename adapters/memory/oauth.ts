import { StorageConflict, type OAuthRepository } from '../../core/domain/ports/storage.ts';
import type { Application } from '../../core/domain/model.ts';
import { clone, newestFirst, uniqueIds } from './shared.ts';
import type { MemoryState } from './state.ts';
import { recordOutbox } from './jobs.ts';

export function oauthRepository(state: MemoryState): OAuthRepository {
  const { applications, applicationByClientId, tokens, tokenByHash, tokenByRefreshHash, codes, codeByHash, sessions, sessionByHash } = state;
  return {
    async createApplication(app) {
      if (applications.has(app.id)) throw new StorageConflict('id');
      if (applicationByClientId.has(app.clientId)) throw new StorageConflict('clientId');
      applications.set(app.id, clone(app));
      applicationByClientId.set(app.clientId, app.id);
    },
    async getApplication(id) {
      const a = applications.get(id);
      return a ? clone(a) : null;
    },
    async getApplicationsMany(ids) {
      const out: Application[] = [];
      for (const id of uniqueIds(ids)) {
        const a = applications.get(id);
        if (a) out.push(clone(a));
      }
      return newestFirst(out);
    },
    async findApplicationByClientId(clientId) {
      const id = applicationByClientId.get(clientId);
      const a = id === undefined ? undefined : applications.get(id);
      return a ? clone(a) : null;
    },
    async createToken(tok) {
      if (tokens.has(tok.id)) throw new StorageConflict('id');
      if (tokenByHash.has(tok.tokenHash)) throw new StorageConflict('tokenHash');
      if (tok.refreshTokenHash !== null && tokenByRefreshHash.has(tok.refreshTokenHash)) throw new StorageConflict('refreshTokenHash');
      tokens.set(tok.id, clone(tok));
      tokenByHash.set(tok.tokenHash, tok.id);
      if (tok.refreshTokenHash !== null) tokenByRefreshHash.set(tok.refreshTokenHash, tok.id);
    },
    async findTokenByRefreshHash(refreshTokenHash) {
      const id = tokenByRefreshHash.get(refreshTokenHash);
      const tok = id === undefined ? undefined : tokens.get(id);
      return tok ? clone(tok) : null;
    },
    async revokeTokenByRefreshHash(refreshTokenHash, at, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        const id = tokenByRefreshHash.get(refreshTokenHash);
        const tok = id === undefined ? undefined : tokens.get(id);
        if (!tok || tok.revokedAt !== null) return null;
        const before = clone(tok);
        tok.revokedAt = at;
        return before;
      })());
    },
    async findTokenByHash(tokenHash) {
      const id = tokenByHash.get(tokenHash);
      const tok = id === undefined ? undefined : tokens.get(id);
      return tok ? clone(tok) : null;
    },
    async revokeToken(id, at, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        const tok = tokens.get(id);
        if (!tok || tok.revokedAt !== null) return false;
        tok.revokedAt = at;
        return true;
      })());
    },
    async createCode(c) {
      if (codes.has(c.id)) throw new StorageConflict('id');
      if (codeByHash.has(c.codeHash)) throw new StorageConflict('codeHash');
      codes.set(c.id, clone(c));
      codeByHash.set(c.codeHash, c.id);
    },
    async consumeCode(codeHash, now) {
      const id = codeByHash.get(codeHash);
      const c = id === undefined ? undefined : codes.get(id);
      if (!c || c.usedAt !== null || c.expiresAt <= now) return null;
      c.usedAt = now;
      return clone(c);
    },
    async revokeTokensOfCode(codeHash, at, outbox) {
      return recordOutbox(state.jobs, outbox, (() => {
        const codeId = codeByHash.get(codeHash);
        if (codeId === undefined) return [];
        const revoked = [];
        for (const tok of tokens.values()) {
          if (tok.authorizationCodeId !== codeId || tok.revokedAt !== null) continue;
          revoked.push(clone(tok));
          tok.revokedAt = at;
        }
        return revoked;
      })());
    },
    async createSession(s) {
      if (sessions.has(s.id)) throw new StorageConflict('id');
      if (sessionByHash.has(s.idHash)) throw new StorageConflict('idHash');
      sessions.set(s.id, clone(s));
      sessionByHash.set(s.idHash, s.id);
    },
    async findSessionByHash(idHash, now) {
      const id = sessionByHash.get(idHash);
      const s = id === undefined ? undefined : sessions.get(id);
      return s && s.expiresAt > now ? clone(s) : null;
    },
    async deleteSession(id) {
      const s = sessions.get(id);
      if (!s) return;
      sessions.delete(id);
      sessionByHash.delete(s.idHash);
    },
    async pruneSessions(now) {
      let pruned = 0;
      for (const [id, s] of sessions) {
        if (s.expiresAt > now) continue;
        sessions.delete(id);
        sessionByHash.delete(s.idHash);
        pruned++;
      }
      return pruned;
    },
  };
}
