// v2 filters with their keywords and statuses (rules in core/filters.ts), and the v1 filters
// Mastodon serves from them: one per keyword.

import type { AppCore } from '../context.ts';
import {
  addFilterStatus,
  addKeyword,
  createFilter,
  deleteFilter,
  deleteFilterStatus,
  deleteKeyword,
  findFilterStatus,
  findKeyword,
  ownFilter,
  updateFilter,
  updateKeyword,
  createV1Filter,
  findV1Filter,
  listV1Filters,
  updateV1Filter,
  type FilterInput,
  type V1Filter,
  type V1FilterInput,
  type KeywordInput,
} from '../../domain/filters.ts';
import type { FilterKeyword, FilterStatus } from '../../domain/model.ts';
import { bool, int, str, strArray, type Params } from '../../domain/params.ts';
import { renderFilter } from '../entities/filter.ts';
import { isoOrNull } from '../entities/time.ts';
import { actorOf, paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const READ = ['read', 'read:filters'];
const WRITE = ['write', 'write:filters'];

const renderKeyword = (k: FilterKeyword) => ({ id: k.id, keyword: k.keyword, whole_word: k.wholeWord });
const renderV1Filter = ({ filter, keyword }: V1Filter) => ({
  id: keyword.id,
  phrase: keyword.keyword,
  context: filter.context,
  whole_word: keyword.wholeWord,
  expires_at: isoOrNull(filter.expiresAt),
  irreversible: filter.action === 'hide',
});
const renderFilterStatus = (s: FilterStatus) => ({ id: s.id, status_id: s.statusId });

function keywordOf(fields: Params): KeywordInput {
  return { id: str(fields, 'id'), keyword: str(fields, 'keyword'), wholeWord: bool(fields, 'whole_word'), destroy: bool(fields, '_destroy') };
}

/** keywords_attributes as an array or an index-keyed object of entries. Form-encoded
 * `keywords_attributes[][keyword]=a&…[][keyword]=b` arrives merged into one entry whose
 * fields are arrays; it is split back by position. */
function keywordsOf(params: Params): KeywordInput[] | undefined {
  const value = params['keywords_attributes'];
  if (value === undefined || value === null || typeof value !== 'object') return undefined;
  const entries = (Array.isArray(value) ? value : Object.values(value)).filter(
    (e): e is Params => e !== null && typeof e === 'object' && !Array.isArray(e),
  );
  return entries.flatMap((entry) => {
    // A loop, not Math.max(...): an entry may carry any number of fields.
    let width = 1;
    for (const v of Object.values(entry)) if (Array.isArray(v) && v.length > width) width = v.length;
    return Array.from({ length: width }, (_, i) => {
      const fields: Params = {};
      for (const [key, v] of Object.entries(entry)) {
        if (Array.isArray(v)) fields[key] = v[i];
        else if (i === 0) fields[key] = v;
      }
      return keywordOf(fields);
    });
  });
}

/** Absent: unchanged; blank or null: never expires. */
function expiresInOf(params: Params): number | null | undefined {
  return 'expires_in' in params ? (int(params, 'expires_in') ?? null) : undefined;
}

function filterInputOf(params: Params): FilterInput {
  return {
    title: str(params, 'title'),
    context: strArray(params, 'context'),
    action: str(params, 'filter_action'),
    expiresIn: expiresInOf(params),
    keywords: keywordsOf(params),
  };
}

function v1InputOf(params: Params): V1FilterInput {
  return {
    phrase: str(params, 'phrase'),
    context: strArray(params, 'context'),
    irreversible: bool(params, 'irreversible'),
    wholeWord: bool(params, 'whole_word'),
    expiresIn: expiresInOf(params),
  };
}

function id(request: ApiRequest): string {
  return request.params['id'] ?? '';
}

export function filterEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v2/filters',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json((await core.storage.filters.listBy(actorOf(request).id)).map(renderFilter)),
    },
    {
      method: 'POST',
      path: '/api/v2/filters',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => json(renderFilter(await createFilter(core, actorOf(request), filterInputOf(paramsOf(request))))),
    },
    {
      method: 'GET',
      path: '/api/v2/filters/:id',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json(renderFilter(await ownFilter(core, actorOf(request), id(request)))),
    },
    {
      method: 'PUT',
      path: '/api/v2/filters/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => json(renderFilter(await updateFilter(core, actorOf(request), id(request), filterInputOf(paramsOf(request))))),
    },
    {
      method: 'DELETE',
      path: '/api/v2/filters/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await deleteFilter(core, actorOf(request), id(request));
        return json({});
      },
    },
    {
      method: 'GET',
      path: '/api/v2/filters/:id/keywords',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json((await ownFilter(core, actorOf(request), id(request))).keywords.map(renderKeyword)),
    },
    {
      method: 'POST',
      path: '/api/v2/filters/:id/keywords',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => json(renderKeyword(await addKeyword(core, actorOf(request), id(request), keywordOf(paramsOf(request))))),
    },
    {
      method: 'GET',
      path: '/api/v2/filters/keywords/:id',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json(renderKeyword((await findKeyword(core, actorOf(request), id(request))).row)),
    },
    {
      method: 'PUT',
      path: '/api/v2/filters/keywords/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => json(renderKeyword(await updateKeyword(core, actorOf(request), id(request), keywordOf(paramsOf(request))))),
    },
    {
      method: 'DELETE',
      path: '/api/v2/filters/keywords/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await deleteKeyword(core, actorOf(request), id(request));
        return json({});
      },
    },
    {
      method: 'GET',
      path: '/api/v2/filters/:id/statuses',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json((await ownFilter(core, actorOf(request), id(request))).statuses.map(renderFilterStatus)),
    },
    {
      method: 'POST',
      path: '/api/v2/filters/:id/statuses',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) =>
        json(renderFilterStatus(await addFilterStatus(core, actorOf(request), id(request), str(paramsOf(request), 'status_id') ?? ''))),
    },
    {
      method: 'GET',
      path: '/api/v2/filters/statuses/:id',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json(renderFilterStatus((await findFilterStatus(core, actorOf(request), id(request))).row)),
    },
    {
      method: 'DELETE',
      path: '/api/v2/filters/statuses/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await deleteFilterStatus(core, actorOf(request), id(request));
        return json({});
      },
    },
    {
      method: 'GET',
      path: '/api/v1/filters',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json((await listV1Filters(core, actorOf(request))).map(renderV1Filter)),
    },
    {
      method: 'POST',
      path: '/api/v1/filters',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => json(renderV1Filter(await createV1Filter(core, actorOf(request), v1InputOf(paramsOf(request))))),
    },
    {
      method: 'GET',
      path: '/api/v1/filters/:id',
      auth: 'user',
      scopes: READ,
      handle: async (request) => json(renderV1Filter(await findV1Filter(core, actorOf(request), id(request)))),
    },
    {
      method: 'PUT',
      path: '/api/v1/filters/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => json(renderV1Filter(await updateV1Filter(core, actorOf(request), id(request), v1InputOf(paramsOf(request))))),
    },
    {
      // As Mastodon: the keyword goes, its filter stays (with its other keywords, if any).
      method: 'DELETE',
      path: '/api/v1/filters/:id',
      auth: 'user',
      scopes: WRITE,
      handle: async (request) => {
        await deleteKeyword(core, actorOf(request), id(request));
        return json({});
      },
    },
  ];
}
