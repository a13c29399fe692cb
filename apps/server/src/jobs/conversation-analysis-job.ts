import { analyseConversations, CONVERSATION_ANALYSIS_JOB, type ConversationAnalysisPayload } from '../services/conversation-analysis.js';
import type { JobHandler } from './runner.js';

export { CONVERSATION_ANALYSIS_JOB };

function organizationOf(payload: unknown): string {
  const organizationId = (payload as Partial<ConversationAnalysisPayload> | null)?.organizationId;
  if (typeof organizationId !== 'string' || organizationId === '') throw new Error('conversations.analyse payload must be {"organizationId": string}');
  return organizationId;
}

/**
 * Finds the issues of the organization's conversations that wait for analysis and groups them into
 * clusters. Idempotent: it analyses whatever waits when it runs, and nothing when nothing does.
 */
export function conversationAnalysisJob(): JobHandler {
  return async (payload, { services, signal }) => {
    await analyseConversations(services, organizationOf(payload), signal);
  };
}
