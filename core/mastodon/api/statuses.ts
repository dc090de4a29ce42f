// The status operations at Mastodon's paths (docs/behaviour.md, "Statuses and their transitions"),
// plus edit, history, source and the batch read clients use.

import type { AppCore } from '../context.ts';
import { notFound, RookeryError, unprocessable } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import { page, strArray, type Params } from '../../domain/params.ts';
import { loadAccountDecorators, pluginParts, presentAccounts, presentStatus } from '../present/load.ts';
import { renderStatusEdit } from '../present/status-edit.ts';
import { bookmark, unbookmark } from '../../domain/statuses/bookmark.ts';
import { statusContext } from '../../domain/statuses/context.ts';
import { deleteStatus } from '../../domain/statuses/delete.ts';
import { editStatus, statusHistory, statusSource } from '../../domain/statuses/edit.ts';
import { favourite, unfavourite } from '../../domain/statuses/favourite.ts';
import { favouritedBy, rebloggedBy, type PagedAccounts } from '../../domain/statuses/interactors.ts';
import { muteConversation, unmuteConversation } from '../../domain/statuses/mute.ts';
import { pin, unpin } from '../../domain/statuses/pin.ts';
import { publish, UnexpectedMentionsError, type Author } from '../../domain/statuses/publish.ts';
import { reblog, unreblog } from '../../domain/statuses/reblog.ts';
import { viewStatus } from '../../domain/statuses/view.ts';
import { quotesOf, revokeQuote, setInteractionPolicy } from '../../domain/statuses/quote.ts';
import { filterVisible } from '../../domain/viewer.ts';
import { linkHeader } from './links.ts';
import { answerAsGet, json, jsonText, type ApiRequest, type ApiResponse, type Endpoint } from '../endpoint/types.ts';
import { presentStatusesText, presentStatusText } from '../present/cache/status-text.ts';
import type { Account, Status } from '../../domain/model.ts';

const READ = ['read', 'read:statuses'];
const WRITE = ['write', 'write:statuses'];
const FAVOURITES = ['write', 'write:favourites'];
const BOOKMARKS = ['write', 'write:bookmarks'];

/** Mastodon reads parameters from the query string and the body alike. */
export function paramsOf(request: ApiRequest): Params {
  return { ...request.query, ...request.body };
}

/** The signed-in account of a 'user' endpoint (the guard guarantees it). */
export function actorOf(request: ApiRequest): Account {
  const account = request.caller.account;
  if (account === null) throw new Error('actorOf used on an endpoint that allows anonymous callers');
  return account;
}

function authorOf(request: ApiRequest): Author {
  return { account: actorOf(request), user: request.caller.user, applicationId: request.caller.application?.id ?? null };
}

function id(request: ApiRequest): string {
  return request.params['id'] ?? '';
}

export function statusEndpoints(core: AppCore): Endpoint[] {
  const render = async (status: Status, request: ApiRequest): Promise<ApiResponse> =>
    jsonText(await presentStatusText(core, status, request.caller.account, request.keep));

  /** An operation on one status for the signed-in caller, answered with the status. */
  const action = (path: string, scopes: string[], run: (actor: Account, request: ApiRequest) => Promise<Status>): Endpoint => ({
    method: 'POST',
    path: `/api/v1/statuses/:id/${path}`,
    auth: 'user',
    scopes,
    handle: async (request) => render(await run(actorOf(request), request), request),
  });

  /** An action on a mark of the caller's own, answered with the status as GET shows it to
   * them: when the action changed nothing (a repeat), that answer may be one kept ready. Its
   * status is one the action found visible to the caller, as GET would. */
  const markAction = (path: string, scopes: string[], run: (actor: Account, request: ApiRequest) => Promise<Status>): Endpoint => ({
    ...action(path, scopes, run),
    handle: async (request) => {
      const status = await run(actorOf(request), request);
      return answerAsGet(request, `/api/v1/statuses/${status.id}`, () => render(status, request));
    },
  });

  const interactors = (path: string, list: typeof rebloggedBy): Endpoint => ({
    method: 'GET',
    path: `/api/v1/statuses/:id/${path}`,
    auth: 'optional',
    scopes: ['read', 'read:accounts'],
    handle: async (request) => {
      const query = paramsOf(request);
      const result: PagedAccounts = await list(core, request.caller.account, id(request), page(query, 40, 80));
      const link = linkHeader(core.config, request.path, request.query, {
        next: result.full ? result.oldest : null,
        prev: result.newest,
        prevParam: 'since_id',
      });
      return json(await presentAccounts(core, result.accountIds), 200, link ? { link } : undefined);
    },
  });

  return [
    {
      method: 'POST',
      path: '/api/v1/statuses',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        const key = request.headers['idempotency-key'];
        const result = await publish(core, authorOf(request), paramsOf(request), key === undefined || key === '' ? null : key).catch(async (err: unknown) => {
          if (!(err instanceof UnexpectedMentionsError)) throw err;
          // Mastodon names those accounts, rendered, beside the error.
          throw new RookeryError(err.status, err.message, { unexpected_accounts: await presentAccounts(core, err.accountIds) });
        });
        if (result.kind === 'diverted') return json(result.body);
        return render(result.status, request);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/statuses/:id',
      auth: 'optional',
      scopes: READ,
      keep: true,
      handle: async (request) => render(await viewStatus(core, request.caller.account, id(request)), request),
    },
    {
      method: 'DELETE',
      path: '/api/v1/statuses/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        const deleted = await deleteStatus(core, actorOf(request), id(request));
        return json(await presentStatus(core, deleted, request.caller.account, { source: true }));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/statuses/:id/context',
      auth: 'optional',
      scopes: READ,
      keep: true,
      handle: async (request) => {
        const viewer = request.caller.account;
        const context = await statusContext(core, viewer, id(request));
        const [ancestors, descendants] = await Promise.all([
          presentStatusesText(core, context.ancestors, viewer, request.keep),
          presentStatusesText(core, context.descendants, viewer, request.keep),
        ]);
        return jsonText(`{"ancestors":${ancestors},"descendants":${descendants}}`);
      },
    },
    interactors('reblogged_by', rebloggedBy),
    interactors('favourited_by', favouritedBy),
    markAction('favourite', FAVOURITES, (actor, request) => favourite(core, actor, id(request))),
    markAction('unfavourite', FAVOURITES, (actor, request) => unfavourite(core, actor, id(request))),
    action('reblog', WRITE, (actor, request) =>
      reblog(core, actor, request.caller.user, id(request), paramsOf(request), request.caller.application?.id ?? null),
    ),
    action('unreblog', WRITE, (actor, request) => unreblog(core, actor, id(request))),
    markAction('bookmark', BOOKMARKS, (actor, request) => bookmark(core, actor, id(request))),
    markAction('unbookmark', BOOKMARKS, (actor, request) => unbookmark(core, actor, id(request))),
    action('mute', ['write', 'write:mutes'], (actor, request) => muteConversation(core, actor, id(request))),
    action('unmute', ['write', 'write:mutes'], (actor, request) => unmuteConversation(core, actor, id(request))),
    action('pin', ['write', 'write:accounts'], (actor, request) => pin(core, actor, id(request))),
    action('unpin', ['write', 'write:accounts'], (actor, request) => unpin(core, actor, id(request))),
    {
      method: 'GET',
      path: '/api/v1/statuses/:id/card',
      auth: 'optional',
      scopes: READ,
      // The core has no cards: {} for a visible status. The cards plugin takes this path over.
      handle: async (request) => {
        await viewStatus(core, request.caller.account, id(request));
        return json({});
      },
    },
    {
      method: 'PUT',
      path: '/api/v1/statuses/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => render(await editStatus(core, authorOf(request), id(request), paramsOf(request)), request),
    },
    {
      method: 'GET',
      path: '/api/v1/statuses/:id/history',
      auth: 'optional',
      scopes: READ,
      handle: async (request) => {
        const { status, edits } = await statusHistory(core, request.caller.account, id(request));
        const author = await core.storage.accounts.get(status.accountId);
        if (author === null) throw notFound();
        const authorDecorators = await loadAccountDecorators(core, [author]);
        if (edits === null) {
          // Never edited: one entry, the status as it is, its plugin parts as they render it.
          const parts = await pluginParts(core, status);
          const entry = renderStatusEdit(core.config, { ...status, statusId: status.id, pollOptions: null }, author, authorDecorators);
          entry.media_attachments = parts.media_attachments;
          entry.emojis = parts.emojis;
          const poll = parts.poll as { options?: { title: string }[] } | null;
          entry.poll = poll?.options ? { options: poll.options.map((o) => ({ title: o.title })) } : null;
          return json([entry]);
        }
        const entries = edits.map((edit) => renderStatusEdit(core.config, edit, author, authorDecorators));
        for (const decorator of core.hooks.decorators) await decorator.renderEdits?.(edits, entries);
        return json(entries);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/statuses/:id/source',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const status = await statusSource(core, actorOf(request), id(request));
        return json({ id: status.id, text: status.text, spoiler_text: status.spoilerText });
      },
    },
    {
      // Mastodon 4.5: the accepted quotes of a status, paged by quote (the Link header's ids).
      method: 'GET',
      path: '/api/v1/statuses/:id/quotes',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const result = await quotesOf(core, viewer, id(request), page(paramsOf(request), 20, 40));
        const link = linkHeader(core.config, request.path, request.query, {
          next: result.full ? result.oldest : null,
          prev: result.newest,
          prevParam: 'since_id',
        });
        return jsonText(await presentStatusesText(core, result.statuses, viewer), 200, link ? { link } : undefined);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/statuses/:id/quotes/:quoting_status_id/revoke',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => render(await revokeQuote(core, actorOf(request), id(request), request.params['quoting_status_id'] ?? ''), request),
    },
    {
      method: 'PUT',
      path: '/api/v1/statuses/:id/interaction_policy',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => render(await setInteractionPolicy(core, actorOf(request), request.caller.user, id(request), paramsOf(request)), request),
    },
    {
      method: 'GET',
      path: '/api/v1/statuses',
      auth: 'optional',
      scopes: READ,
      handle: async (request) => {
        const ids = strArray(paramsOf(request), 'id') ?? [];
        if (ids.length > 20) throw unprocessable('Too many ids requested');
        const viewer = request.caller.account;
        const found = await core.storage.statuses.getMany(ids.filter(isId));
        const byId = new Map(found.map((s) => [s.id, s]));
        const ordered = ids.flatMap((i) => {
          const status = byId.get(i);
          return status ? [status] : [];
        });
        return jsonText(await presentStatusesText(core, await filterVisible(core, viewer, ordered), viewer));
      },
    },
  ];
}
