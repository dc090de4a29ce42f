// The admin dashboard's API, as Mastodon 4.4 serves it: POST /api/v1/admin/measures, dimensions
// and retention (figures from the store: domain/moderation/dashboard.ts) and the admin trends
// lists of hashtags and statuses (links and their publishers are the cards plugin's; without it
// there are none). Like the other admin endpoints they take an optional token
// (authorize_if_got_token!): without a user whose role may view the dashboard (manage
// taxonomies, for trends) they answer 403.

import type { AppCore } from '../context.ts';
import { MASTODON_COMPATIBLE_VERSION, ROOKERY_VERSION } from '../../domain/config.ts';
import { LANGUAGE_LIST } from '../../domain/languages.ts';
import { dimensions, keysOf, limitOf, measures, periodOf, retention, staffWith, type KeyParams } from '../../domain/moderation/dashboard.ts';
import { bool, int, obj, str, strArray, type Params } from '../../domain/params.ts';
import { trendingStatuses, trendingTags } from '../../domain/trends.ts';
import { iso } from '../entities/time.ts';
import { presentStatuses } from '../present/load.ts';
import { presentTags } from '../present/tag.ts';
import { offsetPagedJson, offsetWindow } from './offset-paging.ts';
import { paramsOf } from './statuses.ts';
import { json, type ApiRequest, type Endpoint } from '../endpoint/types.ts';

const READ = ['admin:read'];
const LANGUAGE_NAMES = new Map(LANGUAGE_LIST.map((l) => [l.code, l.name]));
const languageName = (code: string): string => LANGUAGE_NAMES.get(code) ?? code;

/** Mastodon's day stamps: the measures' with milliseconds, the cohorts' without. */
const measureDate = (ms: number): string => iso(ms).replace('Z', '+00:00');
const cohortDate = (ms: number): string => iso(ms).replace('.000Z', '+00:00');

/** A key's own parameters (`tag_uses[id]=…`, `{"instance_accounts": {"domain": …}}`). */
function keyParams(params: Params): (key: string) => KeyParams | undefined {
  return (key) => {
    const own = obj(params, key);
    return own === undefined ? undefined : { id: str(own, 'id'), domain: str(own, 'domain'), includeSubdomains: bool(own, 'include_subdomains') };
  };
}

export function adminDashboardEndpoints(core: AppCore): Endpoint[] {
  const software = () => [
    { key: 'mastodon', human_key: 'Mastodon', value: MASTODON_COMPATIBLE_VERSION, human_value: MASTODON_COMPATIBLE_VERSION },
    { key: 'rookery', human_key: 'Rookery', value: ROOKERY_VERSION, human_value: ROOKERY_VERSION },
    { key: 'storage', human_key: 'Storage', value: core.storage.engine, human_value: core.storage.engine },
  ];
  /** What a dimension's entry shows for its key (null: the local server, the web, no language). */
  const entry = (dimension: string, key: string | null, value: number) => {
    const text = String(value);
    switch (dimension) {
      case 'languages':
      case 'tag_languages':
      case 'instance_languages': {
        const code = key ?? 'und';
        return { key: code, human_key: languageName(code), value: text };
      }
      case 'sources':
        return { key: key ?? 'web', human_key: key ?? 'Website', value: text };
      case 'servers':
      case 'tag_servers':
        return { key: key ?? core.config.domain, human_key: key ?? core.config.domain, value: text };
      default:
        return { key: key ?? '', human_key: key ?? '', value: text };
    }
  };
  const tagsList = (path: string): Endpoint => ({
    method: 'GET',
    path,
    auth: 'optional',
    scopes: READ,
    handle: async (request) => {
      staffWith(request.caller.account, 'manage_taxonomies');
      const params = paramsOf(request);
      const window = offsetWindow(params, 10);
      const trending = (await trendingTags(core)).slice(window.offset, window.offset + window.limit);
      const histories = new Map(trending.map((t) => [t.tag, t.history]));
      const tags = await presentTags(core, trending.map((t) => t.tag), null, histories);
      const admin = tags.map((tag) => ({ ...tag, trendable: true, usable: true, requires_review: false, listable: true }));
      return offsetPagedJson(core.config, request.path, params, admin, window);
    },
  });
  /** What a measures or dimensions request asks for, once the caller may see the dashboard. */
  const askedFor = (request: ApiRequest) => {
    staffWith(request.caller.account, 'view_dashboard');
    const params = paramsOf(request);
    return { params, keys: keysOf(strArray(params, 'keys')), period: periodOf(core.clock.now(), str(params, 'start_at'), str(params, 'end_at')) };
  };
  return [
    {
      method: 'POST',
      path: '/api/v1/admin/measures',
      auth: 'optional',
      scopes: READ,
      handle: async (request) => {
        const { params, keys, period } = askedFor(request);
        const found = await measures(core, keys, period, keyParams(params));
        return json(
          found.map((m) => ({
            key: m.key,
            unit: m.unit,
            total: String(m.total),
            ...(m.previousTotal === undefined ? {} : { previous_total: String(m.previousTotal) }),
            data: m.data.map((d) => ({ date: measureDate(d.date), value: String(d.value) })),
          })),
        );
      },
    },
    {
      method: 'POST',
      path: '/api/v1/admin/dimensions',
      auth: 'optional',
      scopes: READ,
      handle: async (request) => {
        const { params, keys, period } = askedFor(request);
        const found = await dimensions(core, keys, period, limitOf(int(params, 'limit')), keyParams(params));
        return json(found.map((d) => ({ key: d.key, data: d.data === null ? software() : d.data.map((e) => entry(d.key, e.key, e.value)) })));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/admin/retention',
      auth: 'optional',
      scopes: READ,
      handle: async (request) => {
        staffWith(request.caller.account, 'view_dashboard');
        const params = paramsOf(request);
        const frequency = str(params, 'frequency') === 'month' ? 'month' : 'day';
        const cohorts = await retention(core, frequency, str(params, 'start_at'), str(params, 'end_at'));
        return json(
          cohorts.map((c) => ({
            period: cohortDate(c.period),
            frequency: c.frequency,
            data: c.data.map((d) => ({ date: cohortDate(d.date), rate: d.rate, value: String(d.value) })),
          })),
        );
      },
    },
    tagsList('/api/v1/admin/trends/tags'),
    {
      method: 'GET',
      path: '/api/v1/admin/trends/statuses',
      auth: 'optional',
      scopes: READ,
      handle: async (request) => {
        const viewer = staffWith(request.caller.account, 'manage_taxonomies');
        const params = paramsOf(request);
        const window = offsetWindow(params, 20);
        const trending = (await trendingStatuses(core, viewer)).slice(window.offset, window.offset + window.limit);
        return offsetPagedJson(core.config, request.path, params, await presentStatuses(core, trending, viewer), window);
      },
    },
    // Without the cards plugin (which takes these paths over) there are no links to rank.
    ...['/api/v1/admin/trends/links', '/api/v1/admin/trends/links/publishers'].map(
      (path): Endpoint => ({
        method: 'GET',
        path,
        auth: 'optional',
        scopes: READ,
        handle: async (request) => {
          staffWith(request.caller.account, 'manage_taxonomies');
          return json([]);
        },
      }),
    ),
  ];
}
