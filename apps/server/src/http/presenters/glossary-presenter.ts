import type { components } from '@quire/api-types';
import type { GlossaryEntryRow } from '../../stores/glossary-store.js';
import { apiUrl, type PresentContext } from './context.js';

export type ApiGlossaryEntry = components['schemas']['GlossaryEntry'];

export function presentGlossaryEntry(context: PresentContext, row: GlossaryEntryRow): ApiGlossaryEntry {
  return {
    object: 'glossary-entry',
    id: row.id,
    translations: JSON.parse(row.translations) as Record<string, string>,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    urls: { location: apiUrl(context, `/orgs/${row.organization_id}/translations-glossary/${row.id}`) },
  };
}
