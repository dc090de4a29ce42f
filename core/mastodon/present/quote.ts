// The quote parts of a Status (Mastodon 4.5): `quote` (a Quote with the quoted status, or a
// ShallowQuote with its id inside a quoted status), `quote_approval` (the status's policy and
// what it means for the reader) and `quotes_count`. Loaded in a few batched reads beside the
// rest of a StatusBundle (loadQuotes), filled in by one step of the renderer (decorateQuote).
// A quote never shows the reader a status they may not see: its state says why instead.
//
// All three members depend on the reader (what they may see, how the policy applies to them)
// and on quote rows no status row reflects (a new quote, a revocation): a renderer that keeps
// reader-independent parts of a status (a render cache) must leave `quote`, `quote_approval`
// and `quotes_count` out of what it keeps and fill them per request with decorateQuote, from the
// request's own bundle, as it does the reader's flags.

import type { AppCore } from '../context.ts';
import type { Account, Id, Quote, QuotePolicy, Status } from '../../domain/model.ts';
import { canView, quoteDecision, type QuoteDecision, type ViewerFacts } from '../../domain/policy.ts';
import { effectivePolicy } from '../../domain/statuses/quote.ts';
import { factsOf, viewerFacts } from '../../domain/viewer.ts';
import type { StatusJson } from '../entities/status-json.ts';

/** How the reader may see a quoted status: shown, or why not (Mastodon's states, in its order). */
type Access = 'visible' | 'unauthorized' | 'blocked_account' | 'blocked_domain' | 'muted_account';

function accessOf(status: Status, facts: ViewerFacts): Access {
  if (facts.viewerId !== null && facts.viewerId === status.accountId) return 'visible';
  if (!canView(status, facts)) return 'unauthorized';
  if (facts.blocksAuthor) return 'blocked_account';
  if (facts.blocksDomain === true) return 'blocked_domain';
  if (facts.mutesAuthor === true) return 'muted_account';
  return 'visible';
}

export interface QuoteBundle {
  /** Quoting status id → its quote (the rendered statuses' and the quoted ones'). */
  quotes: Map<Id, Quote>;
  /** Live quoted statuses (two levels: quoted, and quoted by those), by id. */
  quoted: Map<Id, Status>;
  /** Quoted status id → whether the reader may see it. */
  access: Map<Id, Access>;
  /** Status id → its policy. */
  policies: Map<Id, QuotePolicy>;
  /** Status id → how its policy applies to the reader. */
  decisions: Map<Id, QuoteDecision>;
  /** Status id → accepted quotes of it. */
  counts: Map<Id, number>;
}

export const NO_QUOTES: QuoteBundle = { quotes: new Map(), quoted: new Map(), access: new Map(), policies: new Map(), decisions: new Map(), counts: new Map() };

export interface QuoteJson {
  state: string;
  quoted_status: StatusJson | null;
}
export interface ShallowQuoteJson {
  state: string;
  quoted_status_id: string | null;
}
export interface QuoteApprovalJson {
  automatic: string[];
  manual: string[];
  current_user: QuoteDecision;
}

/** The quotes of `statuses` (boosts' originals included), the statuses they quote and those
 * quoted in turn, their policies and counts, and what the reader may see of them. `rendered`:
 * the quoted statuses the reader may see, to render beside the others. */
export async function loadQuotes(core: AppCore, statuses: readonly Status[], viewer: Account | null): Promise<{ bundle: QuoteBundle; rendered: Status[] }> {
  const { quotes: store } = core.storage;
  const own = statuses.filter((s) => s.reblogOfId === null);
  if (own.length === 0) return { bundle: NO_QUOTES, rendered: [] };
  const ids = own.map((s) => s.id);
  const { quotes, policies, counts } = await store.summary(ids, ['accepted']);
  const bundle: QuoteBundle = { quotes, quoted: new Map(), access: new Map(), policies: new Map(), decisions: new Map(), counts };
  for (const s of own) bundle.policies.set(s.id, effectivePolicy(s, policies.get(s.id)));
  const firstIds = acceptedTargets(quotes.values());
  const first = firstIds.length === 0 ? [] : await core.storage.statuses.getMany(firstIds);
  if (first.length > 0) {
    const firstOwn = first.map((s) => s.id);
    const { quotes: nestedQuotes, policies: nestedPolicies, counts: nestedCounts } = await store.summary(firstOwn, ['accepted']);
    for (const [id, q] of nestedQuotes) quotes.set(id, q);
    for (const [id, n] of nestedCounts) counts.set(id, n);
    for (const s of first) bundle.policies.set(s.id, effectivePolicy(s, nestedPolicies.get(s.id)));
    const secondIds = acceptedTargets(nestedQuotes.values()).filter((id) => !firstOwn.includes(id));
    const second = secondIds.length === 0 ? [] : await core.storage.statuses.getMany(secondIds);
    for (const s of [...first, ...second]) bundle.quoted.set(s.id, s);
  }
  // One read of the reader's relationships to every author whose status is quoted or whose
  // policy depends on following.
  const all = [...own, ...first];
  const authorIds = [...bundle.quoted.values(), ...all.filter((s) => bundle.policies.get(s.id) === 'followers')].map((s) => s.accountId);
  const facts = await viewerFacts(core, viewer, authorIds);
  for (const s of bundle.quoted.values()) {
    bundle.access.set(s.id, accessOf(s, factsOf(facts, viewer, s.accountId)));
  }
  for (const s of all) bundle.decisions.set(s.id, quoteDecision(s, bundle.policies.get(s.id) ?? 'nobody', factsOf(facts, viewer, s.accountId)));
  return { bundle, rendered: first.filter((s) => bundle.access.get(s.id) === 'visible') };
}

function acceptedTargets(quotes: Iterable<Quote>): Id[] {
  const ids = new Set<Id>();
  for (const q of quotes) if (q.state === 'accepted' && q.quotedStatusId !== null) ids.add(q.quotedStatusId);
  return [...ids];
}

/** The state a reader is told, and the quoted status when they may see it. */
function resolve(quote: Quote, bundle: QuoteBundle): { state: string; quoted: Status | null } {
  if (quote.state !== 'accepted') return { state: quote.state, quoted: null };
  const quoted = quote.quotedStatusId === null ? undefined : bundle.quoted.get(quote.quotedStatusId);
  if (quoted === undefined) return { state: 'deleted', quoted: null };
  const access = bundle.access.get(quoted.id) ?? 'unauthorized';
  return access === 'visible' ? { state: 'accepted', quoted } : { state: access, quoted: null };
}

/** Fills `quote`, `quote_approval` and `quotes_count` of a status's JSON. `nested`: the status is
 * itself shown as a quote, so its own quote is shallow. `render` renders a quoted status. A boost
 * carries none of its own (clients read `reblog`'s), but the approval of its original. */
export function decorateQuote(status: Status, bundle: QuoteBundle, json: StatusJson, nested: boolean, render: (quoted: Status) => StatusJson | null): void {
  const proper = status.reblogOfId ?? status.id;
  const policy = bundle.policies.get(proper) ?? 'nobody';
  json.quotes_count = status.reblogOfId === null ? (bundle.counts.get(status.id) ?? 0) : 0;
  json.quote_approval = {
    automatic: policy === 'nobody' ? [] : [policy],
    manual: [],
    current_user: bundle.decisions.get(proper) ?? 'denied',
  };
  const quote = status.reblogOfId === null ? bundle.quotes.get(status.id) : undefined;
  if (quote === undefined) {
    json.quote = null;
    return;
  }
  const { state, quoted } = resolve(quote, bundle);
  if (nested) {
    json.quote = { state, quoted_status_id: quoted?.id ?? null };
    return;
  }
  const rendered = quoted === null ? null : render(quoted);
  json.quote = rendered === null ? { state: quoted === null ? state : 'deleted', quoted_status: null } : { state, quoted_status: rendered };
}
