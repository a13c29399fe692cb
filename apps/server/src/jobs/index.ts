import type { JobHandlers } from './runner.js';
import { SPACE_PURGE_JOB, spacePurgeJob } from './space-purge-job.js';
import { SEARCH_REINDEX_JOB, searchReindexJob } from './search-reindex-job.js';
import { GIT_IMPORT_JOB, gitImportJob } from './git-import-job.js';
import { GIT_EXPORT_JOB, gitExportJob } from './git-export-job.js';
import { CONVERSATION_ANALYSIS_JOB, conversationAnalysisJob } from './conversation-analysis-job.js';
import { OPENAPI_SPEC_PROCESS_JOB, openApiSpecJob } from './openapi-spec-job.js';
import { INVITE_MAIL_JOB, inviteMailJob } from './invite-mail-job.js';

/**
 * Every job kind this service runs, by name; a family adds `<kind>-job.ts` in this folder and lists its
 * handler here. Jobs are queued with `enqueueJob` (./queue.ts) in the transaction of the request.
 */
export function allJobHandlers(): JobHandlers {
  return {
    [SPACE_PURGE_JOB]: spacePurgeJob(),
    [SEARCH_REINDEX_JOB]: searchReindexJob(),
    [GIT_IMPORT_JOB]: gitImportJob(),
    [GIT_EXPORT_JOB]: gitExportJob(),
    [CONVERSATION_ANALYSIS_JOB]: conversationAnalysisJob(),
    [OPENAPI_SPEC_PROCESS_JOB]: openApiSpecJob(),
    [INVITE_MAIL_JOB]: inviteMailJob(),
  };
}
