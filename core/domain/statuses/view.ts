// Operation 2: view a status (operation 17, its card, answers for any visible status). Whether anonymous callers may view
// at all (limited-federation mode) is the endpoint's auth rule, not this function's.

import type { Core } from '../context.ts';
import type { Account, Status } from '../model.ts';
import { findVisible } from '../viewer.ts';

export async function viewStatus(core: Core, viewer: Account | null, id: string): Promise<Status> {
  return (await findVisible(core, viewer, id)).status;
}
