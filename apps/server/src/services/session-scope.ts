import { NotFoundError } from '../errors.js';
import { findCollectionById } from '../stores/collection-store.js';
import { findSpaceById } from '../stores/space-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';

/**
 * A session started by signing in through an organization's SSO acts in that organization only: the
 * organization of the request's path (`/orgs/{organizationId}`, or the organization of its space or
 * collection) and a target organization named in the body (transfers) must be it. Anything else answers
 * 404, as an organization the caller cannot see does. Checked once per request, before the handler, so
 * every operation is covered whatever its service does. Tokens made by an administrator are not scoped.
 */
export async function assertWithinSessionScope(context: ServiceContext, caller: Caller, params: Record<string, unknown>, body: unknown): Promise<void> {
  const scope = caller.organizationId;
  if (scope === undefined) return;
  const outside = () => new NotFoundError('This session was started for another organization: sign in to this one');
  const targetOrganization = body !== null && typeof body === 'object' ? (body as Record<string, unknown>).organization : undefined;
  if (typeof targetOrganization === 'string' && targetOrganization !== scope) throw outside();
  let organizationId: string | undefined;
  if (typeof params.organizationId === 'string') organizationId = params.organizationId;
  else if (typeof params.spaceId === 'string') organizationId = (await findSpaceById(context.db, params.spaceId))?.organization_id;
  else if (typeof params.collectionId === 'string') organizationId = (await findCollectionById(context.db, params.collectionId))?.organization_id;
  // A space or collection that does not exist answers 404 from its own operation.
  if (organizationId !== undefined && organizationId !== scope) throw outside();
}
