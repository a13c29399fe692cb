import type { components } from '@quire/api-types';
import type { EmbedRecord } from '../../services/embed-service.js';

export type ApiEmbed = components['schemas']['Embed'];

export function presentEmbed(record: EmbedRecord): ApiEmbed {
  return { type: 'link', title: record.title, site: record.site, ...(record.icon ? { icon: record.icon } : {}) };
}
