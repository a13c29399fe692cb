import type { components } from '@quire/api-types';
import type { AdaptiveSchemaRecord } from '../../services/site-adaptive-schema-service.js';

export function presentAdaptiveSchema(record: AdaptiveSchemaRecord): components['schemas']['SiteAdaptiveSchema'] {
  return { object: 'site-adaptive-schema', jsonSchema: record.jsonSchema as components['schemas']['SiteAdaptiveJSONSchema'], updatedAt: record.updatedAt };
}
