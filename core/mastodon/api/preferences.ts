// GET /api/v1/preferences: the signed-in user's posting and reading settings.

import type { AppCore } from '../context.ts';
import type { UserSettings } from '../../domain/model.ts';
import { actorOf } from './statuses.ts';
import { json, type Endpoint } from '../endpoint/types.ts';

const DEFAULTS: UserSettings = { defaultVisibility: 'public', defaultSensitive: false, defaultLanguage: null, expandMedia: 'default', expandSpoilers: false };

export function renderPreferences(settings: UserSettings) {
  return {
    'posting:default:visibility': settings.defaultVisibility,
    'posting:default:sensitive': settings.defaultSensitive,
    'posting:default:language': settings.defaultLanguage,
    'posting:default:quote_policy': settings.defaultQuotePolicy ?? 'public',
    'reading:expand:media': settings.expandMedia,
    'reading:expand:spoilers': settings.expandSpoilers,
  };
}

export function preferenceEndpoints(core: AppCore): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/preferences',
      auth: 'user',
      scopes: ['read', 'read:accounts'],
      handle: async (request) => {
        const user = request.caller.user ?? (await core.storage.accounts.getUser(actorOf(request).id));
        return json(renderPreferences(user?.settings ?? DEFAULTS));
      },
    },
  ];
}
