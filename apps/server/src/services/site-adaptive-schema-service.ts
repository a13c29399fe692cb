import { AdaptiveSchemaError, checkAdaptiveSchema, templateConditions, type AdaptiveJsonSchema, type TemplateCondition } from '../content/site-adaptive-schema.js';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { nowIso } from '../ids.js';
import { canManageSites } from '../policies/site-policy.js';
import { updateSite, type SiteWithCount } from '../stores/site-store.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { readableSite, withManagedSite } from './site-access.js';

/*
 * The adaptive schema of a docs site: the JSON schema of the claims its visitors carry, which conditions may
 * then read (site-input-checks.ts refuses claims it does not declare), and the condition templates made from it.
 */

export interface AdaptiveSchemaRecord {
  jsonSchema: AdaptiveJsonSchema;
  updatedAt: string;
}

function storedSchema(site: SiteWithCount): AdaptiveSchemaRecord | undefined {
  if (site.adaptive_schema === null || site.adaptive_schema_updated_at === null) return undefined;
  return { jsonSchema: JSON.parse(site.adaptive_schema) as AdaptiveJsonSchema, updatedAt: site.adaptive_schema_updated_at };
}

export async function getSiteAdaptiveSchema(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<AdaptiveSchemaRecord> {
  const { site, who } = await readableSite(context, caller, organizationId, siteId);
  if (!canManageSites(who.membership)) throw new ForbiddenError('Only organization admins can read the adaptive schema of a site');
  const schema = storedSchema(site);
  if (!schema) throw new NotFoundError('The site has no adaptive schema');
  return schema;
}

export async function updateSiteAdaptiveSchema(context: ServiceContext, caller: Caller, organizationId: string, siteId: string, body: { jsonSchema: unknown }): Promise<AdaptiveSchemaRecord> {
  let jsonSchema: AdaptiveJsonSchema;
  try {
    jsonSchema = checkAdaptiveSchema(body.jsonSchema, 'body.jsonSchema');
  } catch (error) {
    if (error instanceof AdaptiveSchemaError) throw new BadRequestError(error.message);
    throw error;
  }
  return withManagedSite(context, caller, organizationId, siteId, async (tx) => {
    const updatedAt = nowIso();
    await updateSite(tx.db, siteId, { adaptive_schema: JSON.stringify(jsonSchema), adaptive_schema_updated_at: updatedAt, updated_at: updatedAt });
    return { jsonSchema, updatedAt };
  });
}

export async function listSiteAdaptiveTemplateConditions(context: ServiceContext, caller: Caller, organizationId: string, siteId: string): Promise<TemplateCondition[]> {
  const { site } = await readableSite(context, caller, organizationId, siteId);
  const schema = storedSchema(site);
  return schema ? templateConditions(schema.jsonSchema) : [];
}
