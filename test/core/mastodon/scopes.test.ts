import t from 'tap';
import { authorize } from '../../../core/mastodon/api/guard.ts';
import type { TokenLookup } from '../../../core/mastodon/endpoint/types.ts';
import { resolveConfig } from '../../../core/domain/config.ts';
import { RookeryError } from '../../../core/domain/errors.ts';
import { grants, isKnownScope, isSubset, parseScopes, satisfiesAny } from '../../../core/mastodon/oauth/scopes.ts';
import { account } from '../../helpers/fixtures.ts';

t.test('the hierarchy: parents grant children, never the reverse', async (t) => {
  t.ok(grants('read', 'read:statuses'));
  t.ok(grants('write', 'write:favourites'));
  t.notOk(grants('read:statuses', 'read'));
  t.notOk(grants('read', 'write:statuses'));
  t.notOk(grants('read', 'admin:read:accounts'), 'read does not reach admin scopes');
  t.ok(grants('admin:read', 'admin:read:reports'));
  t.ok(grants('follow', 'write:follows'), 'the legacy follow scope');
  t.ok(grants('follow', 'read:blocks'));
  t.notOk(grants('follow', 'write:statuses'));
  t.ok(satisfiesAny(['read', 'write:statuses'], ['write', 'write:statuses']));
  t.notOk(satisfiesAny(['read'], ['write', 'write:statuses']));
  t.ok(satisfiesAny(['push'], []), 'no scope needed');
});

t.test('parsing and the literal subset rule', async (t) => {
  t.same(parseScopes('read write  follow'), ['read', 'write', 'follow']);
  t.same(parseScopes('read+write'), ['read', 'write']);
  t.same(parseScopes('read read'), ['read']);
  t.ok(isKnownScope('write:media'));
  t.notOk(isKnownScope('crypto'), 'removed in 4.3');
  t.notOk(isKnownScope('admin'), 'there is no admin scope');
  t.ok(isSubset(['read'], ['read', 'write']));
  t.notOk(isSubset(['read:statuses'], ['read']), 'subset is literal: read does not register read:statuses');
  t.notOk(isSubset(['write'], ['read']));
  t.notOk(isSubset(['bogus'], ['bogus']), 'unknown scopes never pass');
});

t.test('the guard: 401, 403, 422, 403 in that order', async (t) => {
  const config = resolveConfig({ domain: 'rookery.test' });
  const me = account();
  const token = { id: '1', tokenHash: 'h', applicationId: '2', accountId: me.id as string | null, scopes: ['read'], refreshTokenHash: null, createdAt: 0, revokedAt: null };
  const application = { id: '2', name: 'a', website: null, redirectUris: [], scopes: ['read'], clientId: 'c', clientSecretHash: 's', createdAt: 0 };
  const user = { accountId: me.id, email: 'a@b.c', passwordHash: '', createdAt: 0, confirmedAt: 0, approved: true, disabled: false, locale: 'en', createdByApplicationId: null, settings: { defaultVisibility: 'public' as const, defaultSensitive: false, defaultLanguage: null, expandMedia: 'default' as const, expandSpoilers: false } };
  const valid: TokenLookup = { kind: 'valid', token, application, account: me, user };
  const appOnly: TokenLookup = { kind: 'valid', token: { ...token, accountId: null }, application, account: null, user: null };
  const refusal = (fn: () => unknown) => {
    try {
      fn();
      return 'allowed';
    } catch (err) {
      return err instanceof RookeryError ? `${err.status} ${err.message}` : 'crash';
    }
  };
  const writeEndpoint = { auth: 'user' as const, scopes: ['write', 'write:statuses'] };
  const readEndpoint = { auth: 'optional' as const, scopes: ['read', 'read:statuses'] };
  t.equal(refusal(() => authorize(writeEndpoint, { kind: 'none' }, config)), '401 The access token is invalid');
  t.equal(refusal(() => authorize(writeEndpoint, { kind: 'unknown' }, config)), '401 The access token is invalid');
  t.equal(refusal(() => authorize(writeEndpoint, { kind: 'revoked' }, config)), '401 The access token is invalid');
  t.equal(refusal(() => authorize(writeEndpoint, valid, config)), '403 This action is outside the authorized scopes');
  t.equal(refusal(() => authorize({ auth: 'user', scopes: ['read'] }, appOnly, config)), '422 This method requires an authenticated user');
  t.equal(refusal(() => authorize({ auth: 'user', scopes: ['read'] }, { ...valid, user: { ...user, confirmedAt: null } }, config)), '403 Your login is missing a confirmed e-mail address');
  t.equal(refusal(() => authorize({ auth: 'user', scopes: ['read'] }, { ...valid, user: { ...user, approved: false } }, config)), '403 Your login is currently pending approval');
  t.equal(refusal(() => authorize({ auth: 'user', scopes: ['read'] }, { ...valid, user: { ...user, disabled: true } }, config)), '403 Your login is currently disabled');
  t.equal(refusal(() => authorize(readEndpoint, { kind: 'none' }, config)), 'allowed', 'optional: anonymous is fine');
  t.equal(refusal(() => authorize(readEndpoint, { kind: 'unknown' }, config)), 'allowed', 'optional: an unknown token reads as anonymous');
  t.equal(refusal(() => authorize(readEndpoint, { kind: 'revoked' }, config)), '401 The access token is invalid', 'a revoked token is refused everywhere');
  t.equal(refusal(() => authorize({ auth: 'optional', scopes: ['write'] }, valid, config)), '403 This action is outside the authorized scopes');
  const limited = resolveConfig({ domain: 'rookery.test', limitedFederation: true });
  t.equal(refusal(() => authorize(readEndpoint, { kind: 'none' }, limited)), '401 This API requires an authenticated user', 'whitelist mode');
  t.equal(refusal(() => authorize(readEndpoint, appOnly, limited)), '401 This API requires an authenticated user', 'an app token is not a user');
  t.equal(refusal(() => authorize(readEndpoint, valid, limited)), 'allowed');
  t.equal(refusal(() => authorize({ ...readEndpoint, openInLimitedMode: true }, { kind: 'none' }, limited)), 'allowed');
  t.equal(refusal(() => authorize({ auth: 'client', scopes: ['read'] }, valid, config)), '403 This method requires an client credentials authentication');
  t.equal(refusal(() => authorize({ auth: 'client', scopes: ['read'] }, appOnly, config)), 'allowed');
  t.equal(refusal(() => authorize({ auth: 'public', scopes: [] }, { kind: 'revoked' }, config)), 'allowed', 'public endpoints ignore tokens');
});
