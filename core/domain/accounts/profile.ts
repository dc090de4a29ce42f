// Editing one's own profile (PATCH /api/v1/accounts/update_credentials; docs/behaviour.md,
// "Limits"): display name, bio, the locked/bot/discoverable flags, up to four
// profile fields, the posting defaults (source[privacy|sensitive|language]) and, through the
// plugins that take them over (the media plugin), avatar and header images. Validated as
// Mastodon's Account model does, every error reported at once with `details`; one atomic write
// changes the account and the user's settings and records 'account.updated' with it.

import type { Core } from '../context.ts';
import { acceptRequest } from './follow.ts';
import type { EventHandler } from '../queue/registry.ts';
import { unprocessable, validationFailed, type FieldError } from '../errors.ts';
import type { AccountPatch, ProfileDraft } from '../hooks.ts';
import { normalizeLanguage } from '../languages.ts';
import { QUOTE_POLICIES, type Account, type ProfileField, type QuotePolicy, type User, type UserSettings, type Visibility } from '../model.ts';
import { bool, obj, present, str, type Params } from '../params.ts';
import { countCharacters } from '../text/index.ts';

/** Mastodon's Account limits (also stated by the instance endpoint). */
export const PROFILE_LIMITS = {
  displayName: 30,
  note: 500,
  fields: 4,
  fieldName: 255,
  fieldValue: 255,
} as const;

/** Default visibilities a user may choose for new posts (Mastodon's default_privacy). */
const DEFAULT_PRIVACIES: readonly Visibility[] = ['public', 'unlisted', 'private'];

/** update_credentials parameters only plugins handle, with the text used while none does. */
const PLUGIN_PARAMS: Record<string, string> = {
  avatar: 'Validation failed: Avatar images are not supported by this server',
  header: 'Validation failed: Header images are not supported by this server',
};

export const profileTexts = {
  tooLong: (max: number) => `is too long (maximum is ${max} characters)`,
  missingLabels: 'contains values with missing labels',
  notIncluded: 'is not included in the list',
} as const;

const codePoints = (text: string) => Array.from(text).length;
const cut = (text: string, max: number) => (codePoints(text) > max ? Array.from(text).slice(0, max).join('') : text);

/** More entries than this are too many whatever they hold: not read one by one. */
const MAX_FIELD_ENTRIES = 64;
/** A note longer than this cannot count 500 (a URL counts 23 but is at most a few KB long). */
const MAX_NOTE_SOURCE = 100_000;

/** The entries of fields_attributes, Rails-style ({"0": {name, value}, …}) or an array. */
function fieldEntries(value: unknown): Params[] {
  const items = Array.isArray(value) ? value : Object.values(value as object);
  return items.filter((item): item is Params => item !== null && typeof item === 'object' && !Array.isArray(item));
}

/** Mastodon's fields_attributes=: entries with neither name nor value are dropped; names and
 * values are stripped and cut to 255 characters (as Account::Field reads them); a field whose
 * value did not change keeps its verification. */
function readFields(value: unknown, current: readonly ProfileField[]): ProfileField[] {
  return fieldEntries(value).flatMap((entry) => {
    const name = cut((str(entry, 'name') ?? '').trim(), PROFILE_LIMITS.fieldName);
    const fieldValue = cut((str(entry, 'value') ?? '').trim(), PROFILE_LIMITS.fieldValue);
    if (name === '' && fieldValue === '') return [];
    const previous = current.find((field) => field.value === fieldValue);
    return [{ name, value: fieldValue, verifiedAt: previous?.verifiedAt ?? null }];
  });
}

function has(params: Params, name: string): boolean {
  return Object.hasOwn(params, name) && params[name] !== undefined && params[name] !== null;
}

/** What the request asks to change, and what is wrong with it (every error, as Rails reports). */
function readProfile(account: Account, user: User, params: Params): { patch: AccountPatch; settings: UserSettings | null; errors: FieldError[] } {
  const patch: AccountPatch = {};
  const errors: FieldError[] = [];
  const displayName = has(params, 'display_name') ? str(params, 'display_name') : undefined;
  if (displayName !== undefined) {
    patch.displayName = displayName.trim();
    if (codePoints(patch.displayName) > PROFILE_LIMITS.displayName) {
      errors.push({ field: 'display_name', label: 'Display name', code: 'ERR_TOO_LONG', description: profileTexts.tooLong(PROFILE_LIMITS.displayName) });
    }
  }
  const note = has(params, 'note') ? str(params, 'note') : undefined;
  if (note !== undefined) {
    patch.note = note.trim();
    if (patch.note.length > MAX_NOTE_SOURCE || countCharacters(patch.note) > PROFILE_LIMITS.note) {
      errors.push({ field: 'note', label: 'Note', code: 'ERR_TOO_LONG', description: profileTexts.tooLong(PROFILE_LIMITS.note) });
    }
  }
  for (const flag of ['locked', 'bot', 'discoverable'] as const) {
    const value = bool(params, flag);
    if (value !== undefined) patch[flag] = value;
  }
  // A lone string is not a set of fields (Rails' permit drops it): no change.
  const rawFields = params['fields_attributes'];
  if (rawFields !== null && typeof rawFields === 'object') {
    const count = Array.isArray(rawFields) ? rawFields.length : Object.keys(rawFields).length;
    const fields = count > MAX_FIELD_ENTRIES ? [] : readFields(rawFields, account.fields);
    patch.fields = fields;
    if (count > MAX_FIELD_ENTRIES || fields.length > PROFILE_LIMITS.fields) {
      errors.push({ field: 'fields', label: 'Fields', code: 'ERR_TOO_LONG', description: profileTexts.tooLong(PROFILE_LIMITS.fields) });
    }
    if (fields.some((field) => field.name === '' && field.value !== '')) {
      errors.push({ field: 'fields', label: 'Fields', code: 'ERR_FIELDS_WITH_VALUES_MISSING_LABELS', description: profileTexts.missingLabels });
    }
  }

  let settings: UserSettings | null = null;
  const source = obj(params, 'source');
  if (source !== undefined) {
    const next: UserSettings = { ...user.settings };
    const privacy = str(source, 'privacy');
    if (privacy !== undefined && privacy !== '') {
      if ((DEFAULT_PRIVACIES as readonly string[]).includes(privacy)) next.defaultVisibility = privacy as Visibility;
      else errors.push({ field: 'source[privacy]', label: 'Source privacy', code: 'ERR_INCLUSION', description: profileTexts.notIncluded });
    }
    const quotePolicy = str(source, 'quote_policy');
    if (quotePolicy !== undefined && quotePolicy !== '') {
      if ((QUOTE_POLICIES as readonly string[]).includes(quotePolicy)) next.defaultQuotePolicy = quotePolicy as QuotePolicy;
      else errors.push({ field: 'source[quote_policy]', label: 'Source quote policy', code: 'ERR_INCLUSION', description: profileTexts.notIncluded });
    }
    const sensitive = bool(source, 'sensitive');
    if (sensitive !== undefined) next.defaultSensitive = sensitive;
    const language = has(source, 'language') ? str(source, 'language') : undefined;
    if (language !== undefined) {
      // "" clears it (posts then take the locale's language); an unknown code is refused.
      const code = normalizeLanguage(language);
      if (language.trim() === '') next.defaultLanguage = null;
      else if (code !== null) next.defaultLanguage = code;
      else errors.push({ field: 'source[language]', label: 'Source language', code: 'ERR_INCLUSION', description: profileTexts.notIncluded });
    }
    settings = next;
  }
  return { patch, settings, errors };
}

/** Validates and applies a profile edit; returns the account and user as they now are. */
export async function updateProfile(core: Core, account: Account, user: User, params: Params): Promise<{ account: Account; user: User }> {
  const { patch, settings, errors } = readProfile(account, user, params);
  if (errors.length > 0) throw validationFailed(errors);
  // Parameters only plugins take (avatar, header): refused with a clear 422 when none does.
  for (const name of Object.keys(PLUGIN_PARAMS)) {
    if (present(params, name) && core.hooks.profileHookFor(name) === undefined) throw unprocessable(PLUGIN_PARAMS[name] as string);
  }
  const draft: ProfileDraft = { account, user, params, patch, jobs: [] };
  for (const hook of core.hooks.profileHooks) {
    if (hook.params.some((name) => present(params, name))) await hook.prepare(draft);
  }
  const updated = await core.storage.accounts.update(account.id, draft.patch, {
    ...(settings === null ? {} : { settings }),
    outbox: (changed) => (changed === null ? [] : [...core.record({ type: 'account.updated', account: changed }), ...draft.jobs]),
  });
  if (updated === null) throw new Error('the signed-in account disappeared during its own profile edit');
  return { account: updated, user: settings === null ? user : { ...user, settings } };
}

const REQUESTS_PAGE = 200;

/** After a profile edit (a job on 'account.updated'): an account that is not locked (any more)
 * has no pending follow requests: each becomes a follow, as Mastodon's UpdateAccountService
 * authorizes them all when an account unlocks. Idempotent: a second run finds none. */
export function profileHandler(core: Core): EventHandler {
  return async ({ event }) => {
    if (event.type !== 'account.updated' || event.account.domain !== null || event.account.locked) return;
    for (;;) {
      const account = await core.storage.accounts.get(event.account.id);
      if (account === null || account.locked) return; // locked again since: the requests wait
      const requests = await core.storage.relationships.followRequestsTo(account.id, { limit: REQUESTS_PAGE });
      // Accepted as if one by one (follow_request.authorized each, so remote followers hear of it).
      for (const request of requests) await acceptRequest(core, request);
      if (requests.length < REQUESTS_PAGE) return;
    }
  };
}

/** Removes the avatar or header (Mastodon 4.2's DELETE /api/v1/profile/avatar|header): the
 * account shows the default image again. The plugin that stores the images is told, to remove
 * the file once the edit committed. */
export async function clearProfileImage(core: Core, account: Account, user: User, image: 'avatar' | 'header'): Promise<Account> {
  const patch: AccountPatch = image === 'avatar' ? { avatarUrl: null } : { headerUrl: null };
  const draft: ProfileDraft = { account, user, params: {}, patch, jobs: [], cleared: [image] };
  const hook = core.hooks.profileHookFor(image);
  if (hook !== undefined) await hook.prepare(draft);
  const updated = await core.storage.accounts.update(account.id, draft.patch, {
    outbox: (changed) => (changed === null ? [] : [...core.record({ type: 'account.updated', account: changed }), ...draft.jobs]),
  });
  if (updated === null) throw new Error('the signed-in account disappeared during its own profile edit');
  return updated;
}
