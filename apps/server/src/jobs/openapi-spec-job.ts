import { OPENAPI_SPEC_PROCESS_JOB, parseOpenApiSpecJobPayload, processOpenApiSpec, type OpenApiProcessOptions } from '../services/openapi-spec-service.js';
import type { JobHandler } from './runner.js';

export { OPENAPI_SPEC_PROCESS_JOB };

/**
 * Processes a new source of an OpenAPI specification (payload: `{specId, generation}`). A source that cannot
 * be fetched or parsed ends the job as done, with the error recorded on the spec; only unexpected errors
 * (the database) make the runner try again.
 */
export function openApiSpecJob(options: OpenApiProcessOptions = {}): JobHandler {
  return async (payload, { services }) => {
    await processOpenApiSpec(services, parseOpenApiSpecJobPayload(payload), options);
  };
}
