import { listAnswer } from '../../pagination.js';
import { getIntegrationByName, listIntegrations, publishIntegration, unpublishIntegration } from '../../services/integration-service.js';
import { presentIntegration } from '../presenters/integration-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** Integrations published to the installation. */
export function integrationHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listIntegrations: async ({ caller, query }) => {
      const page = await listIntegrations(services, caller, query);
      return { status: 200, body: listAnswer(page, (row) => presentIntegration(present, row)) };
    },

    getIntegrationByName: async ({ caller, params }) => {
      return { status: 200, body: presentIntegration(present, await getIntegrationByName(services, caller, params.integrationName)) };
    },

    publishIntegration: async ({ caller, params, body }) => {
      return { status: 200, body: presentIntegration(present, await publishIntegration(services, caller, params.integrationName, body)) };
    },

    unpublishIntegration: async ({ caller, params }) => {
      await unpublishIntegration(services, caller, params.integrationName);
      return { status: 204 };
    },
  };
}
