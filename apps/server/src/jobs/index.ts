import type { JobHandlers } from './runner.js';
import { SPACE_PURGE_JOB, spacePurgeJob } from './space-purge-job.js';

/**
 * Every job kind this service runs, by name; a family adds `<kind>-job.ts` in this folder and lists its
 * handler here. Jobs are queued with `enqueueJob` (./queue.ts) in the transaction of the request.
 */
export function allJobHandlers(): JobHandlers {
  return {
    [SPACE_PURGE_JOB]: spacePurgeJob(),
  };
}
