// Instance information (v1 and v2), NodeInfo, and the placeholder images account avatars and
// headers point at when unset. All public: clients read them before signing in, also in
// limited-federation mode.

import type { AppCore } from '../context.ts';
import { renderInstanceV1, renderInstanceV2, renderNodeInfo, renderRules, type ActiveUsers, type InstanceStats } from '../present/instance.ts';
import { MISSING_IMAGE_PNG_BASE64 } from '../present/placeholder.ts';
import { LANGUAGE_LIST } from '../../domain/languages.ts';
import { MISSING_AVATAR_PATH, MISSING_HEADER_PATH } from '../../domain/urls.ts';
import { json, type ApiResponse, type Endpoint } from '../endpoint/types.ts';

function open(path: string, handle: () => Promise<ApiResponse>): Endpoint {
  return { method: 'GET', path, auth: 'public', scopes: [], openInLimitedMode: true, handle };
}

async function statsOf(core: AppCore): Promise<InstanceStats> {
  const [userCount, statusCount] = await Promise.all([core.storage.accounts.countLocalUsers(), core.storage.statuses.countLocal()]);
  return { userCount, statusCount };
}

const DAY = 86_400_000;

async function activeOf(core: AppCore): Promise<ActiveUsers> {
  const now = core.clock.now();
  const [month, halfyear] = await Promise.all([core.storage.accounts.countLocalUsers(now - 30 * DAY), core.storage.accounts.countLocalUsers(now - 180 * DAY)]);
  return { month, halfyear };
}

const png = async (): Promise<ApiResponse> => ({
  status: 200,
  body: MISSING_IMAGE_PNG_BASE64,
  type: 'png',
  headers: { 'cache-control': 'public, max-age=86400' },
});

export function instanceEndpoints(core: AppCore): Endpoint[] {
  const { config } = core;
  return [
    open('/api/v2/instance', async () => json(renderInstanceV2(config, await statsOf(core), core.hooks.instanceConfiguration))),
    open('/api/v1/instance', async () => json(renderInstanceV1(config, await statsOf(core), core.hooks.instanceConfiguration))),
    open('/api/v1/instance/peers', async () => json([])),
    open('/api/v1/instance/activity', async () => json([])),
    open('/api/v1/instance/rules', async () => json(renderRules(config))),
    open('/api/v1/instance/domain_blocks', async () => json([])),
    // Mastodon asks for a signed-in user here in limited-federation mode.
    { method: 'GET', path: '/api/v1/instance/languages', auth: 'optional', scopes: [], handle: async () => json(LANGUAGE_LIST) },
    open('/api/v1/instance/translation_languages', async () => json({})),
    open('/api/v1/instance/extended_description', async () => json({ updated_at: null, content: '' })),
    open('/.well-known/nodeinfo', async () =>
      json({
        links: [
          { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: `${config.baseUrl}/nodeinfo/2.0` },
          { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${config.baseUrl}/nodeinfo/2.1` },
        ],
      }),
    ),
    open('/nodeinfo/2.0', async () => json(renderNodeInfo(config, await statsOf(core), await activeOf(core)))),
    open('/nodeinfo/2.1', async () => json(renderNodeInfo(config, await statsOf(core), await activeOf(core), '2.1'))),
    open(MISSING_AVATAR_PATH, png),
    open(MISSING_HEADER_PATH, png),
  ];
}
