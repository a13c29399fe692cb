import type { DatabaseHandle } from '#server/db/index.js';
import { createLogger } from '#server/logger.js';
import { bootstrap } from '#server/services/admin-service.js';
import type { Caller } from '#server/services/caller.js';
import type { ServiceContext } from '#server/services/context.js';
import { findUserById } from '#server/stores/user-store.js';

/** What a bench works with: the services on its database, and the organization it made with its admin. */
export interface BenchOwner {
  context: ServiceContext;
  organizationId: string;
  /** The organization's admin, as the services see an API caller. */
  caller: Caller;
}

/**
 * Makes the first organization and its admin of a migrated database, as `admin bootstrap` does, so that a
 * bench (or a test of a layer below the API) puts its data in through the services, like the API would.
 * `context` adds to the services' context (blob storage, local URLs); the logger is silent.
 */
export async function bootstrapBench(
  handle: DatabaseHandle,
  organizationTitle: string,
  context: Partial<ServiceContext> = {},
): Promise<BenchOwner> {
  const services: ServiceContext = { db: handle.db, dialect: handle.dialect, logger: createLogger('silent'), ...context };
  const owner = await bootstrap(services, { organizationTitle, email: 'bench@example.com' });
  const user = await findUserById(handle.db, owner.userId);
  if (!user) throw new Error('the bench user was not created');
  return { context: services, organizationId: owner.organizationId, caller: { user, tokenId: 'bench' } };
}
