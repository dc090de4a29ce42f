// Answers with a page of results and its Link header (core/api/links.ts), the way every paged
// list of the supporting API does; no header for an empty page.

import type { AppCore } from '../context.ts';
import type { Account, Id, Status } from '../../domain/model.ts';
import { presentStatusesText } from '../present/cache/status-text.ts';
import { linkHeader } from './links.ts';
import { json, jsonText, type ApiRequest, type ApiResponse } from '../endpoint/types.ts';

export interface Cursors {
  next: Id | null;
  prev: Id | null;
}

/** `prevParam`: min_id for statuses and notifications, since_id for lists of accounts. */
export function pagedJson(core: AppCore, request: ApiRequest, body: unknown, cursors: Cursors, prevParam: 'min_id' | 'since_id' = 'min_id'): ApiResponse {
  const link = linkHeader(core.config, request.path, request.query, { next: cursors.next, prev: cursors.prev, prevParam });
  return json(body, 200, link === undefined ? undefined : { link });
}

/** Statuses rendered for the caller, with the page's links. */
export async function pagedStatuses(core: AppCore, request: ApiRequest, statuses: readonly Status[], cursors: Cursors): Promise<ApiResponse> {
  const viewer: Account | null = request.caller.account;
  const text = await presentStatusesText(core, statuses, viewer, request.keep);
  const link = linkHeader(core.config, request.path, request.query, { next: cursors.next, prev: cursors.prev, prevParam: 'min_id' });
  return jsonText(text, 200, link === undefined ? undefined : { link });
}
