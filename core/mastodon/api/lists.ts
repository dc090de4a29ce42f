// Lists and their members (rules in core/lists.ts).

import type { AppCore } from '../context.ts';
import { addListMembers, createList, deleteList, ownList, removeListMembers, updateList, type ListInput } from '../../domain/lists.ts';
import { fillPage } from '../../domain/paging.ts';
import { bool, page, str, strArray, type Params } from '../../domain/params.ts';
import { presentAccounts } from '../present/load.ts';
import { renderList } from '../present/list.ts';
import { pagedJson } from './paging.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const READ = ['read', 'read:lists'];
const WRITE = ['write', 'write:lists'];

function inputOf(params: Params): ListInput {
  return { title: str(params, 'title'), repliesPolicy: str(params, 'replies_policy'), exclusive: bool(params, 'exclusive') };
}

function id(request: ApiRequest): string {
  return request.params['id'] ?? '';
}

export function listEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/lists',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json((await core.storage.lists.listBy(actorOf(request).id)).map(renderList)),
    },
    {
      method: 'POST',
      path: '/api/v1/lists',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => json(renderList(await createList(core, actorOf(request), inputOf(paramsOf(request))))),
    },
    {
      method: 'GET',
      path: '/api/v1/lists/:id',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json(renderList(await ownList(core, actorOf(request), id(request)))),
    },
    {
      method: 'PUT',
      path: '/api/v1/lists/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => json(renderList(await updateList(core, actorOf(request), id(request), inputOf(paramsOf(request))))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/lists/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await deleteList(core, actorOf(request), id(request));
        return json({});
      },
    },
    {
      method: 'GET',
      path: '/api/v1/lists/:id/accounts',
      auth: 'user',
      scopes: READ,
      handle: async (request) => {
        const list = await ownList(core, actorOf(request), id(request));
        const paging = page(paramsOf(request), 40, 80);
        if (paging.limit === 0) {
          // limit=0: every member at once, without paging.
          const all = await core.storage.lists.members(list.id, paging);
          return json(await presentAccounts(core, all.map((m) => m.accountId)));
        }
        const slice = await fillPage<{ id: string; accountId: string }>(paging, (m) => m.id, (p) => core.storage.lists.members(list.id, p));
        return pagedJson(core, request, await presentAccounts(core, slice.items.map((m) => m.accountId)), slice, 'since_id');
      },
    },
    {
      method: 'POST',
      path: '/api/v1/lists/:id/accounts',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await addListMembers(core, actorOf(request), id(request), strArray(paramsOf(request), 'account_ids') ?? []);
        return json({});
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/lists/:id/accounts',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await removeListMembers(core, actorOf(request), id(request), strArray(paramsOf(request), 'account_ids') ?? []);
        return json({});
      },
    },
  ];
}

