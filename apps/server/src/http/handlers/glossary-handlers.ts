import { listAnswer } from '../../pagination.js';
import { getGlossaryEntry, listGlossaryEntries, updateGlossaryEntries } from '../../services/glossary-service.js';
import { presentGlossaryEntry } from '../presenters/glossary-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** The translation glossary of an organization. */
export function glossaryHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listGlossaryEntries: async ({ caller, params, query }) => {
      const page = await listGlossaryEntries(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentGlossaryEntry(present, row)) };
    },

    getGlossaryEntry: async ({ caller, params }) => {
      const entry = await getGlossaryEntry(services, caller, params.organizationId, params.glossaryEntryId);
      return { status: 200, body: presentGlossaryEntry(present, entry) };
    },

    updateGlossaryEntries: async ({ caller, params, body }) => {
      await updateGlossaryEntries(services, caller, params.organizationId, body.operations);
      return { status: 204 };
    },
  };
}
