/*
 * What the service, the worker pool and the worker say to each other about an OpenAPI document, apart from
 * the processing itself: the server loads this module at start-up, and spec-processing.ts (with
 * @redocly/openapi-core, ~170 ms to load) only in the worker thread that parses documents.
 */

export type SpecErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR';

export interface SpecProblem {
  message: string;
  code?: string;
}

export interface SpecProcessInput {
  /** The root document as text. */
  text: string;
  /** Where the root document was fetched from; undefined when it was sent as text. */
  sourceUrl?: string;
  /** QUIRE_ALLOW_LOCAL_URLS, for the guard of external references (file URLs stay refused whatever it says). */
  allowLocal: boolean;
  /** Limits of each external file fetched. */
  fetchTimeoutMs: number;
  maxBytes: number;
  /** At most this many external files. */
  maxFiles: number;
}

export type SpecProcessResult =
  | {
      ok: true;
      /** `swagger` or `openapi` version of the root, e.g. `3.1.0`. */
      specVersion: string;
      /** The root's name first (its URL, or `openapi.json`/`openapi.yaml`), then every external file, as text. */
      files: Array<{ name: string; text: string }>;
      /** JSON of {file name: parsed document}, root first. */
      filesystem: string;
      /** Validation warnings: the document is usable, but these should be fixed. */
      warnings: SpecProblem[];
    }
  | { ok: false; code: SpecErrorCode; errors: SpecProblem[] };

/** Where a JSON or YAML text names itself: by its first non-blank character. */
export function rootName(text: string): string {
  return /^\s*[{[]/.test(text) ? 'openapi.json' : 'openapi.yaml';
}
