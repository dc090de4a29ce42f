// The visibility matrix: 4 visibilities × author / follower / mentioned / stranger / anonymous
// × view / context / boost / pin / favourite (the table is in test/helpers/visibility-matrix.ts,
// shared with the same matrix over HTTP). Anonymous callers meet the endpoint guard first
// (write operations need a token), then the policy.

import t from 'tap';
import { authorize } from '../../../core/mastodon/api/guard.ts';
import { resolveConfig } from '../../../core/domain/config.ts';
import { RookeryError } from '../../../core/domain/errors.ts';
import type { Visibility } from '../../../core/domain/model.ts';
import {
  anonymousFacts,
  boostVisibility,
  canView,
  checkBoost,
  checkContext,
  checkFavourite,
  checkPin,
  checkView,
  countsAsReply,
  countsForAuthor,
  readableVisibilities,
  isHashtagTimelineStatus,
  isPublicTimelineStatus,
  isSensitized,
  isSilenced,
  isSuspended,
  maySignIn,
  showsSilencedAuthor,
  visibilityFor,
  type ViewerFacts,
} from '../../../core/domain/policy.ts';
import { account, status } from '../../helpers/fixtures.ts';
import { EXPECTED, OPS, ROLES, VISIBILITIES_IN_MATRIX, type Op, type Role } from '../../helpers/visibility-matrix.ts';

const author = account({ username: 'author' });
const follower = account({ username: 'follower' });
const mentioned = account({ username: 'mentioned' });
const stranger = account({ username: 'stranger' });

const facts: Record<Role, ViewerFacts> = {
  author: { viewerId: author.id, followsAuthor: false, blockedByAuthor: false, blocksAuthor: false },
  follower: { viewerId: follower.id, followsAuthor: true, blockedByAuthor: false, blocksAuthor: false },
  mentioned: { viewerId: mentioned.id, followsAuthor: false, blockedByAuthor: false, blocksAuthor: false },
  stranger: { viewerId: stranger.id, followsAuthor: false, blockedByAuthor: false, blocksAuthor: false },
  anonymous: anonymousFacts,
};

const checks = { view: checkView, context: checkContext, boost: checkBoost, pin: checkPin, favourite: checkFavourite };
const writes = new Set<Op>(['boost', 'pin', 'favourite']);
const config = resolveConfig({ domain: 'rookery.test' });

function outcome(op: Op, role: Role, visibility: Visibility): string {
  const subject = status(author, { visibility, mentionIds: [mentioned.id] });
  try {
    if (role === 'anonymous') authorize({ auth: writes.has(op) ? 'user' : 'optional', scopes: [] }, { kind: 'none' }, config);
    const refusal = checks[op](subject, facts[role]);
    return refusal === null ? '200' : `${refusal.status} ${refusal.message}`;
  } catch (err) {
    if (err instanceof RookeryError) return `${err.status} ${err.message}`;
    throw err;
  }
}

const roles = ROLES;
for (const visibility of VISIBILITIES_IN_MATRIX) {
  t.test(`${visibility} status`, async (t) => {
    for (const op of OPS) {
      roles.forEach((role, index) => {
        t.equal(outcome(op, role, visibility), EXPECTED[visibility][op][index], `${op} by ${role}`);
      });
    }
  });
}

t.test('a deleted status is visible to nobody, not even its author', async (t) => {
  const gone = status(author, { deletedAt: Date.now() });
  for (const role of roles) t.equal(canView(gone, facts[role]), false, role);
});

t.test('an author who blocks the viewer hides every status from them', async (t) => {
  const blocked: ViewerFacts = { ...facts.follower, blockedByAuthor: true };
  t.equal(canView(status(author, { visibility: 'public' }), blocked), false);
  t.equal(checkFavourite(status(author), blocked)?.status, 404);
});

t.test('a viewer who blocks the author may see but not boost or favourite', async (t) => {
  const blocking: ViewerFacts = { ...facts.stranger, blocksAuthor: true };
  t.equal(canView(status(author), blocking), true);
  t.equal(checkBoost(status(author), blocking)?.message, 'This action is not allowed');
  t.equal(checkFavourite(status(author), blocking)?.status, 403);
});

t.test('a boost cannot be pinned, even the own boost of a public status', async (t) => {
  const boost = status(author, { reblogOfId: '123', visibility: 'public' });
  t.equal(checkPin(boost, facts.author)?.message, 'Validation failed: A boost cannot be pinned');
  t.equal(checkPin(boost, facts.author)?.status, 422);
});

t.test('boost visibility', async (t) => {
  const open = status(author, { visibility: 'public' });
  t.equal(boostVisibility(open, undefined, 'unlisted'), 'unlisted', 'default comes from the booster');
  t.equal(boostVisibility(open, '', 'public'), 'public');
  t.equal(boostVisibility(open, 'private', 'public'), 'private');
  t.equal(boostVisibility(open, 'unlisted', 'public'), 'unlisted');
  const reserved = boostVisibility(open, 'direct', 'public');
  t.ok(reserved instanceof RookeryError && reserved.status === 422 && reserved.message === 'Validation failed: Visibility is reserved');
  const unknown = boostVisibility(open, 'everyone', 'public');
  t.ok(unknown instanceof RookeryError && unknown.message === 'Validation failed: Visibility is not included in the list');
  t.equal(boostVisibility(status(author, { visibility: 'private' }), 'public', 'public'), 'private', 'a private original keeps its visibility');
  t.equal(boostVisibility(open, undefined, 'direct'), 'public', 'a direct default never makes a boost direct');
});

t.test('timeline and counter rules', async (t) => {
  const reply = (to: string, visibility: Visibility = 'public') => status(author, { inReplyToId: '1', inReplyToAccountId: to, visibility });
  t.equal(isPublicTimelineStatus(status(author)), true);
  t.equal(isPublicTimelineStatus(status(author, { visibility: 'unlisted' })), false);
  t.equal(isPublicTimelineStatus(status(author, { reblogOfId: '5' })), false, 'boosts stay off public timelines');
  t.equal(isPublicTimelineStatus(reply(stranger.id)), false, 'replies to others stay off');
  t.equal(isPublicTimelineStatus(reply(author.id)), true, 'self-replies stay on');
  t.equal(isHashtagTimelineStatus(reply(stranger.id)), true, 'hashtag timelines include replies');
  t.equal(countsForAuthor(status(author, { visibility: 'direct' })), false);
  t.equal(countsForAuthor(status(author, { visibility: 'private' })), true);
  t.equal(countsAsReply(reply(stranger.id, 'unlisted')), true);
  t.equal(countsAsReply(reply(stranger.id, 'private')), false);
  t.equal(countsAsReply(status(author)), false);
});

t.test('readableVisibilities narrows queries exactly as canView decides (mentions aside)', async (t) => {
  const others: ViewerFacts[] = [facts.author, facts.follower, facts.stranger, facts.anonymous, { ...facts.follower, blockedByAuthor: true }];
  for (const viewer of others) {
    const readable = readableVisibilities(viewer, author.id);
    for (const visibility of ['public', 'unlisted', 'private', 'direct'] as const) {
      t.equal(readable.includes(visibility), canView(status(author, { visibility }), viewer), `${visibility} for ${viewer.viewerId ?? 'anonymous'}${viewer.blockedByAuthor ? ' (blocked)' : ''}`);
    }
  }
});

t.test('moderation: a suspended author is seen by nobody, a silenced one kept from strangers', async (t) => {
  for (const role of Object.keys(facts) as Role[]) {
    const of = { ...facts[role], authorSuspended: true };
    t.equal(canView(status(author, { visibility: 'public' }), of), false, `suspended, seen by ${role}`);
    t.strictSame(readableVisibilities(of, author.id), [], `suspended: nothing to read for ${role}`);
  }
  const loud = status(author, { visibility: 'public' });
  const silenced = (role: Role) => ({ ...facts[role], authorSilenced: true });
  t.equal(canView(loud, silenced('stranger')), true, 'silenced: still visible');
  t.equal(showsSilencedAuthor(loud, silenced('stranger')), false, 'but not on public timelines for a stranger');
  t.equal(showsSilencedAuthor(loud, silenced('anonymous')), false);
  t.equal(showsSilencedAuthor(loud, silenced('follower')), true, 'a follower still sees it');
  t.equal(showsSilencedAuthor(loud, silenced('author')), true, 'and the author');
  t.equal(showsSilencedAuthor(loud, facts.stranger), true, 'not silenced: shown');
});

t.test('moderation: the account states and what they do', async (t) => {
  t.equal(isSuspended({}), false);
  t.equal(isSuspended({ suspendedAt: null }), false);
  t.equal(isSuspended({ suspendedAt: 1 }), true);
  t.equal(isSilenced({ silencedAt: 1 }), true);
  t.equal(isSensitized({ sensitizedAt: null }), false);
  t.equal(maySignIn({ deletedAt: null }, { disabled: false }), true);
  t.equal(maySignIn({ deletedAt: null }, { disabled: true }), false, 'a disabled user');
  t.equal(maySignIn({ suspendedAt: 1, deletedAt: null }, { disabled: false }), false, 'a suspended account');
  t.equal(maySignIn({ deletedAt: 1 }, { disabled: false }), false, 'a deleted account');
  t.equal(visibilityFor({ silencedAt: 1 }, 'public'), 'unlisted', 'a silenced author publishes public as unlisted');
  t.equal(visibilityFor({ silencedAt: 1 }, 'private'), 'private');
  t.equal(visibilityFor({}, 'public'), 'public');
});
