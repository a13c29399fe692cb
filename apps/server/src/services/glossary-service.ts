import type { components } from '@quire/api-types';
import { BadRequestError, ForbiddenError, NotFoundError } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { pageRequest } from '../pagination.js';
import { canEditGlossary, canReadGlossary } from '../policies/glossary-policy.js';
import {
  deleteGlossaryEntry,
  findGlossaryEntry,
  GLOSSARY_ORDER_KEY_LENGTH,
  insertGlossaryEntry,
  listGlossaryEntries as listEntries,
  updateGlossaryEntry,
  type GlossaryEntryRow,
} from '../stores/glossary-store.js';
import type { KeysetPage } from '../stores/keyset.js';
import type { Caller } from './caller.js';
import type { ServiceContext } from './context.js';
import { inTransaction } from './transaction.js';
import { organizationAccess } from './member-service.js';

type GlossaryOperation = components['schemas']['GlossaryOperation'];

/*
 * The translation glossary of an organization: entries that give the agreed form of a term in each
 * language, keyed by canonical BCP 47 language tags. Changes come in batches applied all or nothing.
 */

/**
 * The translations with their language tags checked (BCP 47, by the platform's `Intl.getCanonicalLocales`)
 * and put in canonical form (`pt-br` -> `pt-BR`); two keys that are the same tag are refused.
 */
export function canonicalTranslations(translations: Record<string, string>, field: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [tag, text] of Object.entries(translations)) {
    let canonical: string;
    try {
      [canonical = ''] = Intl.getCanonicalLocales(tag);
    } catch {
      throw new BadRequestError(`${field}: "${tag}" is not a BCP 47 language tag`);
    }
    if (canonical in out) throw new BadRequestError(`${field}: "${tag}" is the same language tag as another one (${canonical})`);
    if (!/^[^\n\r]{1,255}$/.test(text)) throw new BadRequestError(`${field}.${tag} must be 1 to 255 characters without line breaks`);
    out[canonical] = text;
  }
  if (Object.keys(out).length === 0) throw new BadRequestError(`${field} must have at least one translation`);
  return out;
}

function entryNotFound(): NotFoundError {
  return new NotFoundError('The glossary of this organization has no entry with this id');
}

export async function listGlossaryEntries(context: ServiceContext, caller: Caller, organizationId: string, query: { page?: string; limit?: number }): Promise<KeysetPage<GlossaryEntryRow>> {
  const { after, limit } = pageRequest(query, GLOSSARY_ORDER_KEY_LENGTH);
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canReadGlossary(access.membership)) throw new ForbiddenError('You cannot read the glossary of this organization');
  return listEntries(context.db, organizationId, after, limit);
}

export async function getGlossaryEntry(context: ServiceContext, caller: Caller, organizationId: string, entryId: string): Promise<GlossaryEntryRow> {
  const access = await organizationAccess(context.db, caller, organizationId);
  if (!canReadGlossary(access.membership)) throw new ForbiddenError('You cannot read the glossary of this organization');
  const entry = await findGlossaryEntry(context.db, organizationId, entryId);
  if (!entry) throw entryNotFound();
  return entry;
}

/**
 * Applies the operations in order in one transaction. Every one is checked first; an `update` of an entry
 * the glossary does not have (or no longer has, after a `delete` earlier in the batch) fails the batch, and
 * the thrown error rolls back what the operations before it did.
 */
export async function updateGlossaryEntries(context: ServiceContext, caller: Caller, organizationId: string, operations: readonly GlossaryOperation[]): Promise<void> {
  const checked = operations.map((operation, index) =>
    operation.type === 'delete' ? operation : { ...operation, translations: canonicalTranslations(operation.translations, `body.operations[${index}].translations`) });
  await inTransaction(context, async (tx) => {
    const access = await organizationAccess(tx.db, caller, organizationId);
    if (!canEditGlossary(access.membership)) throw new ForbiddenError('Only members who may edit content can change the glossary');
    const now = nowIso();
    for (const [index, operation] of checked.entries()) {
      if (operation.type === 'insert') {
        await insertGlossaryEntry(tx.db, { id: newId(), organization_id: organizationId, translations: JSON.stringify(operation.translations), created_at: now, batch_index: index, updated_at: now });
      } else if (operation.type === 'update') {
        if (!(await updateGlossaryEntry(tx.db, organizationId, operation.id, JSON.stringify(operation.translations), now))) {
          throw new BadRequestError(`body.operations[${index}] updates the entry "${operation.id}", which the glossary does not have; nothing was changed`);
        }
      } else {
        await deleteGlossaryEntry(tx.db, organizationId, operation.id);
      }
    }
  });
}
