// Who may quote what (policy.ts quoteDecision / canQuote / storedQuotePolicy), the whole matrix:
// 4 visibilities × 3 policies × author / follower / stranger / blocked / anonymous, and boosts.

import t from 'tap';
import { anonymousFacts, canQuote, quoteDecision, storedQuotePolicy, type ViewerFacts } from '../../../core/domain/policy.ts';
import type { QuotePolicy, Visibility } from '../../../core/domain/model.ts';
import { account, status } from '../../helpers/fixtures.ts';

const author = account({ username: 'author' });
const reader = account({ username: 'reader' });
const facts = (o: Partial<ViewerFacts> = {}): ViewerFacts => ({ viewerId: reader.id, followsAuthor: false, blockedByAuthor: false, blocksAuthor: false, ...o });
const ROLES: Record<string, ViewerFacts> = {
  author: { ...facts(), viewerId: author.id },
  follower: facts({ followsAuthor: true }),
  stranger: facts(),
  blocked: facts({ followsAuthor: true, blockedByAuthor: true }),
  anonymous: anonymousFacts,
};

/** What each role gets, by visibility and policy: a = automatic, d = denied; the quote also
 * needs the status visible (canQuote). */
function expected(role: string, visibility: Visibility, policy: QuotePolicy): 'automatic' | 'denied' {
  if (role === 'anonymous' || visibility === 'direct') return 'denied';
  if (role === 'author') return 'automatic';
  if (visibility === 'private') return 'denied';
  if (policy === 'public') return 'automatic';
  if (policy === 'followers' && (role === 'follower' || role === 'blocked')) return 'automatic';
  return 'denied';
}

t.test('the matrix', async (t) => {
  for (const visibility of ['public', 'unlisted', 'private', 'direct'] as const) {
    for (const policy of ['public', 'followers', 'nobody'] as const) {
      const s = status(author, { visibility });
      for (const [role, f] of Object.entries(ROLES)) {
        const decision = quoteDecision(s, policy, f);
        t.equal(decision, expected(role, visibility, policy), `${role} / ${visibility} / ${policy}`);
        t.equal(canQuote(s, policy, f), decision !== 'denied' && role !== 'blocked', `${role} may quote ${visibility} / ${policy}: only what it sees`);
      }
    }
  }
});

t.test('a boost is never quoted; private and direct statuses keep nobody', async (t) => {
  const boost = status(author, { reblogOfId: '1' });
  t.equal(quoteDecision(boost, 'public', ROLES['author'] as ViewerFacts), 'denied');
  for (const policy of ['public', 'followers', 'nobody'] as const) {
    t.equal(storedQuotePolicy('public', policy), policy);
    t.equal(storedQuotePolicy('unlisted', policy), policy);
    t.equal(storedQuotePolicy('private', policy), 'nobody');
    t.equal(storedQuotePolicy('direct', policy), 'nobody');
  }
});
