import type { components } from '@quire/api-types';
import type { OpenApiSpecRow, OpenApiSpecVersionRow, OpenApiSpecVersionSummary } from '../../stores/openapi-spec-store.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';

export type ApiOpenApiSpec = components['schemas']['OpenAPISpec'];
export type ApiOpenApiSpecVersion = components['schemas']['OpenAPISpecVersion'];
export type ApiOpenApiSpecContent = components['schemas']['OpenAPISpecContent'];

function specPath(row: Pick<OpenApiSpecRow, 'organization_id' | 'slug'>): string {
  return `${encodeURIComponent(row.organization_id)}/${encodeURIComponent(row.slug)}`;
}

/** Where the raw document of a version (or `latest`) is served: outside the API, see http/openapi-raw-route.ts. */
export function rawSpecUrl(context: PresentContext, spec: Pick<OpenApiSpecRow, 'organization_id' | 'slug'>, versionId: string): string {
  return appUrl(context, `/openapi/${specPath(spec)}/${encodeURIComponent(versionId)}`);
}

export function presentOpenApiSpec(context: PresentContext, row: OpenApiSpecRow, permissions: { view: boolean; edit: boolean }): ApiOpenApiSpec {
  const errors = row.last_processed_errors ? (JSON.parse(row.last_processed_errors) as Array<{ message: string; code?: string }>) : undefined;
  return {
    object: 'openapi-spec',
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    slug: row.slug,
    ...(row.source_url ? { sourceURL: row.source_url } : {}),
    processingState: row.processing_state as ApiOpenApiSpec['processingState'],
    visibility: row.visibility as NonNullable<ApiOpenApiSpec['visibility']>,
    ...(row.last_version_id ? { lastVersion: row.last_version_id } : {}),
    ...(row.last_processed_at ? { lastProcessedAt: row.last_processed_at } : {}),
    ...(row.last_process_error_code ? { lastProcessErrorCode: row.last_process_error_code as NonNullable<ApiOpenApiSpec['lastProcessErrorCode']> } : {}),
    ...(errors ? { lastProcessedErrors: errors } : {}),
    permissions,
    urls: {
      location: apiUrl(context, `/orgs/${encodeURIComponent(row.organization_id)}/openapi/${encodeURIComponent(row.slug)}`),
      app: appUrl(context, `/o/${encodeURIComponent(row.organization_id)}/openapi/${encodeURIComponent(row.slug)}`),
      ...(row.visibility === 'public' ? { published: rawSpecUrl(context, row, 'latest') } : {}),
    },
  };
}

export function presentOpenApiSpecVersion(context: PresentContext, spec: OpenApiSpecRow, version: OpenApiSpecVersionSummary): ApiOpenApiSpecVersion {
  return {
    object: 'openapi-spec-version',
    id: version.id,
    createdAt: version.created_at,
    url: rawSpecUrl(context, spec, version.id),
    urls: { location: apiUrl(context, `/orgs/${encodeURIComponent(spec.organization_id)}/openapi/${encodeURIComponent(spec.slug)}/versions/${encodeURIComponent(version.id)}`) },
  };
}

export function presentOpenApiSpecContent(context: PresentContext, spec: OpenApiSpecRow, version: OpenApiSpecVersionRow): ApiOpenApiSpecContent {
  return { filesystem: JSON.parse(version.filesystem) as Record<string, unknown>, url: rawSpecUrl(context, spec, version.id) };
}
