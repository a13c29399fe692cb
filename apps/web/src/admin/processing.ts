import type { components } from '@quire/api-types';

type OpenAPISpec = components['schemas']['OpenAPISpec'];

/** How often a specification being processed is asked for again: the screen shows progress as it goes. */
export const PROCESSING_POLL_MS = 1000;

export const isProcessing = (spec: OpenAPISpec | undefined) => spec !== undefined && spec.processingState !== 'complete';

const ERROR_CODES: Record<string, string> = {
  FETCH_TIMEOUT: 'The source URL did not answer in time. Check that it is reachable, then upload again.',
  FETCH_ERROR: 'The source could not be fetched. Check the URL (and that the document is not too large), then upload again.',
  PARSE_ERROR: 'The document is not a valid OpenAPI document. Fix the problems listed below, then upload it again.',
};

/** The processing state as a person reads it. */
export function processingLabel(spec: OpenAPISpec): string {
  if (spec.processingState === 'pending') return 'Waiting to be processed…';
  if (spec.processingState === 'progress') return 'Being processed…';
  if (spec.lastProcessErrorCode) return 'Processing failed';
  return 'Processed';
}

export function processingAdvice(spec: OpenAPISpec): string | undefined {
  return spec.processingState === 'complete' && spec.lastProcessErrorCode ? ERROR_CODES[spec.lastProcessErrorCode] : undefined;
}
