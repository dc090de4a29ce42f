// Private conversations (Mastodon's /api/v1/conversations): the list, paged by the id of each
// conversation's last status, and marking one read or unread, or removing it.

import type { AppCore } from '../context.ts';
import { listConversations, markConversation, removeConversation } from '../../domain/conversations/conversations.ts';
import { page } from '../../domain/params.ts';
import { presentConversations } from '../present/conversation.ts';
import { pagedJson } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type Endpoint } from '../endpoint/types.ts';

const READ = ['read', 'read:statuses'];
const WRITE = ['write', 'write:conversations'];

export function conversationEndpoints(core: AppCore): Endpoint[] {
  const mark = (path: string, unread: boolean): Endpoint => ({
    method: 'POST',
    path,
    auth: 'user',
    scopes: WRITE,
    handle: async (request) => {
      const viewer = actorOf(request);
      const conversation = await markConversation(core, viewer, request.params['id'] ?? '', unread);
      const [rendered] = await presentConversations(core, [conversation], viewer);
      return json(rendered);
    },
  });
  return [
    {
      method: 'GET',
      path: '/api/v1/conversations',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const viewer = actorOf(request);
        const slice = await listConversations(core, viewer, page(paramsOf(request), 20, 40));
        return pagedJson(core, request, await presentConversations(core, slice.items, viewer), slice);
      },
    },
    mark('/api/v1/conversations/:id/read', false),
    mark('/api/v1/conversations/:id/unread', true),
    {
      method: 'DELETE',
      path: '/api/v1/conversations/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await removeConversation(core, actorOf(request), request.params['id'] ?? '');
        return json({});
      },
    },
  ];
}
