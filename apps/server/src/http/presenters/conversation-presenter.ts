import type { components } from '@quire/api-types';
import type { ClusterView } from '../../services/conversation-service.js';
import type { ConversationRow, IssueWithConversation } from '../../stores/conversation-store.js';
import { apiUrl, appUrl, type PresentContext } from './context.js';

export type ApiConversation = components['schemas']['Conversation'];
export type ApiConversationDetails = components['schemas']['ConversationDetails'];
export type ApiConversationIssueWithConversation = components['schemas']['ConversationIssueWithConversation'];
export type ApiConversationsIssuesCluster = components['schemas']['ConversationsIssuesCluster'];
type Metadata = components['schemas']['ConversationMetadata'];

function isAbsoluteUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return Boolean(new URL(value).protocol);
  } catch {
    return false;
  }
}

export function presentConversation(context: PresentContext, row: ConversationRow): ApiConversation {
  const metadata = JSON.parse(row.metadata) as Metadata;
  return {
    object: 'conversation',
    id: row.id,
    ...(row.subject !== null ? { subject: row.subject } : {}),
    createdAt: row.created_at,
    ...(row.processed_at !== null ? { processedAt: row.processed_at } : {}),
    source: row.source,
    urls: {
      location: apiUrl(context, `/orgs/${row.organization_id}/conversations/${row.id}`),
      ...(isAbsoluteUrl(metadata.url) ? { source: metadata.url } : {}),
    },
  };
}

export function presentConversationDetails(context: PresentContext, row: ConversationRow): ApiConversationDetails {
  return {
    conversation: presentConversation(context, row),
    parts: JSON.parse(row.parts) as ApiConversationDetails['parts'],
    metadata: JSON.parse(row.metadata) as Metadata,
  };
}

export function presentIssueWithConversation(context: PresentContext, row: IssueWithConversation): ApiConversationIssueWithConversation {
  return {
    issue: {
      object: 'conversation-issue',
      id: row.id,
      title: row.title,
      summary: row.summary,
      createdAt: row.created_at,
      ingestedAt: row.ingested_at,
      conversation: row.conversation_id,
      ...(row.cluster_id !== null ? { cluster: row.cluster_id } : {}),
      urls: { location: apiUrl(context, `/orgs/${row.organization_id}/conversations-issues/${row.id}`) },
    },
    conversation: presentConversation(context, row.conversation),
  };
}

export function presentCluster(context: PresentContext, row: ClusterView): ApiConversationsIssuesCluster {
  return {
    object: 'issues-cluster',
    id: row.id,
    label: row.label,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    icon: row.icon,
    summary: row.summary,
    weeklyPulse: row.weeklyPulse,
    sources: row.sources,
    stats: {
      issues: row.issues_count,
      conversations: row.conversations_count,
      tasksTotal: row.tasks_total,
      tasksBacklog: row.tasks_backlog,
      tasksStarted: row.tasks_started,
      tasksCompleted: row.tasks_completed,
      tasksCancelled: row.tasks_cancelled,
    },
    urls: {
      location: apiUrl(context, `/orgs/${row.organization_id}/conversations-clusters/${row.id}`),
      app: appUrl(context, `/o/${row.organization_id}/insights/clusters/${row.id}`),
    },
  };
}
