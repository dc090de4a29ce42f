// The API around statuses that clients call (timelines, notifications, lists, markers,
// filters, preferences, search, hashtags, trends), and empty answers for what Rookery does not have.

import type { AppCore } from '../context.ts';
import { conversationEndpoints } from './conversations.ts';
import { emptyEndpoints } from './empty.ts';
import { filterEndpoints } from './filters.ts';
import { healthEndpoints } from './health.ts';
import { listEndpoints } from './lists.ts';
import { markerEndpoints } from './markers.ts';
import { notificationEndpoints } from './notifications.ts';
import { preferenceEndpoints } from './preferences.ts';
import { reportEndpoints } from './reports.ts';
import { adminDashboardEndpoints } from './admin-dashboard.ts';
import { adminBlockEndpoints } from './admin-blocks.ts';
import { adminAccountEndpoints } from './admin-accounts.ts';
import { accountLifecycleEndpoints } from './account-lifecycle.ts';
import { searchEndpoints } from './search.ts';
import { suggestionEndpoints } from './suggestions.ts';
import { tagEndpoints } from './tags.ts';
import { trendEndpoints } from './trends.ts';
import { timelineEndpoints } from './timelines.ts';
import type { Endpoint } from '../endpoint/types.ts';

export function supportingEndpoints(core: AppCore): Endpoint[] {
  return [
    ...timelineEndpoints(core),
    ...notificationEndpoints(core),
    ...conversationEndpoints(core),
    ...listEndpoints(core),
    ...markerEndpoints(core),
    ...filterEndpoints(core),
    ...preferenceEndpoints(core),
    ...searchEndpoints(core),
    ...suggestionEndpoints(core),
    ...tagEndpoints(core),
    ...trendEndpoints(core),
    ...reportEndpoints(core),
    ...adminDashboardEndpoints(core),
    ...adminBlockEndpoints(core),
    ...adminAccountEndpoints(core),
    ...accountLifecycleEndpoints(core),
    ...healthEndpoints(core),
    ...emptyEndpoints(core),
  ];
}
