import { processSpec } from './spec-processing.js';
import type { SpecProcessInput, SpecProcessResult } from './spec-types.js';

/*
 * The worker-thread side of spec-pool.ts: parsing and validating an OpenAPI document, which takes seconds of
 * CPU for a large one, where it cannot stall the requests the server is answering.
 */
export default function runSpecTask(input: SpecProcessInput): Promise<SpecProcessResult> {
  return processSpec(input);
}
