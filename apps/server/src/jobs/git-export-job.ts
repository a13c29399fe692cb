import { GIT_EXPORT_JOB } from '../services/git-sync-service.js';
import { parseGitSyncPayload, runGitExport, type GitRunOptions } from '../services/git-sync-runs.js';
import type { JobHandler } from './runner.js';

export { GIT_EXPORT_JOB };

/**
 * Runs a queued Git export (payload: `GitSyncJobPayload`, credentials sealed). A Git failure ends the
 * operation as failed and the job as done; only unexpected errors make the runner try again.
 */
export function gitExportJob(options: GitRunOptions = {}): JobHandler {
  return async (payload, { services, job }) => {
    await runGitExport(services, parseGitSyncPayload(payload, 'export'), { attempts: job.attempts, maxAttempts: job.max_attempts }, options);
  };
}
