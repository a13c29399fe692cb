import { GIT_IMPORT_JOB } from '../services/git-sync-service.js';
import { parseGitSyncPayload, runGitImport, type GitRunOptions } from '../services/git-sync-runs.js';
import type { JobHandler } from './runner.js';

export { GIT_IMPORT_JOB };

/**
 * Runs a queued Git import (payload: `GitSyncJobPayload`, credentials sealed). A Git failure ends the
 * operation as failed and the job as done; only unexpected errors make the runner try again.
 */
export function gitImportJob(options: GitRunOptions = {}): JobHandler {
  return async (payload, { services, job }) => {
    await runGitImport(services, parseGitSyncPayload(payload, 'import'), { attempts: job.attempts, maxAttempts: job.max_attempts }, options);
  };
}
