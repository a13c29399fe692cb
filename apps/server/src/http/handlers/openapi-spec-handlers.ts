import { listAnswer } from '../../pagination.js';
import { openApiSpecPermissions } from '../../policies/openapi-spec-policy.js';
import {
  createOpenAPISpec,
  createOrUpdateOpenAPISpecBySlug,
  deleteOpenAPISpecBySlug,
  getLatestOpenAPISpecVersion,
  getLatestOpenAPISpecVersionContent,
  getOpenAPISpecBySlug,
  getOpenAPISpecVersionById,
  getOpenAPISpecVersionContentById,
  listOpenAPISpecs,
  listOpenAPISpecVersions,
  updateOpenAPISpecBySlug,
} from '../../services/openapi-spec-service.js';
import { presentOpenApiSpec, presentOpenApiSpecContent, presentOpenApiSpecVersion } from '../presenters/openapi-spec-presenter.js';
import type { Handlers } from '../registry.js';
import type { HandlerDeps } from './deps.js';

/** OpenAPI specifications of an organization, their versions and the content of each. */
export function openApiSpecHandlers({ services, present }: HandlerDeps): Handlers {
  return {
    listOpenAPISpecs: async ({ caller, params, query }) => {
      const { page, membership } = await listOpenAPISpecs(services, caller, params.organizationId, query);
      return { status: 200, body: listAnswer(page, (row) => presentOpenApiSpec(present, row, openApiSpecPermissions(membership))) };
    },

    createOpenAPISpec: async ({ caller, params, body }) => {
      const { spec, membership } = await createOpenAPISpec(services, caller, params.organizationId, body);
      return { status: 201, body: presentOpenApiSpec(present, spec, openApiSpecPermissions(membership)) };
    },

    getOpenAPISpecBySlug: async ({ caller, params }) => {
      const { spec, membership } = await getOpenAPISpecBySlug(services, caller, params.organizationId, params.specSlug);
      return { status: 200, body: presentOpenApiSpec(present, spec, openApiSpecPermissions(membership)) };
    },

    createOrUpdateOpenAPISpecBySlug: async ({ caller, params, body }) => {
      const { spec, membership, created } = await createOrUpdateOpenAPISpecBySlug(services, caller, params.organizationId, params.specSlug, body);
      const answer = presentOpenApiSpec(present, spec, openApiSpecPermissions(membership));
      return created ? { status: 201, body: answer } : { status: 200, body: answer };
    },

    updateOpenAPISpecBySlug: async ({ caller, params, body }) => {
      const { spec, membership } = await updateOpenAPISpecBySlug(services, caller, params.organizationId, params.specSlug, body);
      return { status: 200, body: presentOpenApiSpec(present, spec, openApiSpecPermissions(membership)) };
    },

    deleteOpenAPISpecBySlug: async ({ caller, params }) => {
      await deleteOpenAPISpecBySlug(services, caller, params.organizationId, params.specSlug);
      return { status: 204 };
    },

    listOpenAPISpecVersions: async ({ caller, params, query }) => {
      const { spec, page } = await listOpenAPISpecVersions(services, caller, params.organizationId, params.specSlug, query);
      return { status: 200, body: listAnswer(page, (version) => presentOpenApiSpecVersion(present, spec, version)) };
    },

    getLatestOpenAPISpecVersion: async ({ caller, params }) => {
      const { spec, version } = await getLatestOpenAPISpecVersion(services, caller, params.organizationId, params.specSlug);
      return { status: 200, body: presentOpenApiSpecVersion(present, spec, version) };
    },

    getOpenAPISpecVersionById: async ({ caller, params }) => {
      const { spec, version } = await getOpenAPISpecVersionById(services, caller, params.organizationId, params.specSlug, params.versionId);
      return { status: 200, body: presentOpenApiSpecVersion(present, spec, version) };
    },

    getLatestOpenAPISpecVersionContent: async ({ caller, params }) => {
      const { spec, version } = await getLatestOpenAPISpecVersionContent(services, caller, params.organizationId, params.specSlug);
      return { status: 200, body: presentOpenApiSpecContent(present, spec, version) };
    },

    getOpenAPISpecVersionContentById: async ({ caller, params }) => {
      const { spec, version } = await getOpenAPISpecVersionContentById(services, caller, params.organizationId, params.specSlug, params.versionId);
      return { status: 200, body: presentOpenApiSpecContent(present, spec, version) };
    },
  };
}
